import TestSupport
import XCTest

@testable import ArchiveCodec

/// `ArchiveAnalysis` on its own: the forms it refines after classification.
final class ArchiveAnalysisTests: XCTestCase {
    /// One NSDictionary of `large` string keys, then `small` NSDictionary entries each holding
    /// one key twice (so each is checked with the set), under one NSArray.
    private func dictionaries(large: Int, small: Int) throws -> [UInt8] {
        let keys = 3 + small
        var entries: [Entry] = [
            .object("NSArray", [("NS.objects", .array((0..<(1 + small)).map { .uid(2 + $0) }))]),
            .object("NSDictionary", [("NS.keys", .array((0..<large).map { .uid(keys + $0) })), ("NS.objects", .array([Value](repeating: .uid(keys), count: large)))])
        ]
        entries += [Entry](repeating: .object("NSDictionary", [("NS.keys", .array([.uid(keys), .uid(keys)])), ("NS.objects", .array([.uid(keys), .uid(keys)]))]), count: small)
        entries += (0..<large).map { .string("key \($0)") }
        return try buildArchive(entries)
    }

    /// A dictionary whose key repeats keeps its pairs; one of distinct keys reads as an object.
    /// Small dictionaries checked after a huge one cost their own keys, not the huge one's
    /// (the set kept between them is not cleared at its huge capacity for each).
    func testRepeatedKeysAfterAHugeDictionaryCostTheirOwnKeys() throws {
        let archive = try KeyedArchive(parsing: try dictionaries(large: 100, small: 3))
        XCTAssertEqual(archive.forms[2], .stringKeyDictionary)
        XCTAssertEqual(archive.forms[3], .pairDictionary)
        let result = try ScalingCheck.measure(startingAt: 10_000, maximumSize: 10_000, make: { try dictionaries(large: 2 * $0, small: $0) }) {
            _ = try KeyedArchive(parsing: $0)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }
}
