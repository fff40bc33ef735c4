import XCTest

@testable import ArchiveCodec

/// Inputs built to make a summary large or slow: many classes, many keys, long names, deep
/// chains. The summary stays within its caps and never recurses.
final class ArchiveSummaryHostileTests: XCTestCase {
    func testManyClassesAreCapped() throws {
        let count = ArchiveSummary.listedClasses + 500
        let bytes = try buildArchive((0..<count).map { .object("C\($0)", [("k", .int(1))]) })
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.classes.count, ArchiveSummary.listedClasses)
        XCTAssertEqual(summary.classesNotListed, 500)
        XCTAssertLessThan(summary.json(pretty: false).count, 200_000)
    }

    func testManyKeysAreCapped() throws {
        let pairs = (0..<(ArchiveSummary.listedKeys + 300)).map { ("key\($0)", Value.int(Int64($0))) }
        let bytes = try buildArchive([.object("Wide", pairs), .object("Wide", pairs)])
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.classes[0].keys.count, ArchiveSummary.listedKeys)
        XCTAssertEqual(summary.classes[0].keysNotListed, 600)
    }

    /// One long key shared by many classes is listed cut, so it cannot be repeated into a
    /// summary far larger than the archive.
    func testLongSharedKeyIsCut() throws {
        let key = String(repeating: "k", count: 100_000)
        let bytes = try buildArchive((0..<300).map { .object("C\($0)", [(key, .int(1))]) })
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.classes.count, 300)
        XCTAssertEqual(summary.classes[0].keys.first?.key.count, ArchiveSummary.listedNameLength + 1)
        XCTAssertLessThan(summary.json(pretty: false).count, bytes.count)
    }

    /// A chain far deeper than any stack admits to write: summed up (its nesting measured, its
    /// one cycle found) without recursion, on a small stack.
    func testDeepChainOnASmallStack() throws {
        let bytes = try chainArchive(depth: 100_000, cyclic: true)
        var summary: ArchiveSummary?
        onThread(stackSize: 512 << 10) { summary = try? Archive(parsing: bytes).summary() }
        XCTAssertEqual(summary?.readableNesting, 100_001)
        XCTAssertEqual(summary?.cyclic, 100_000)
        XCTAssertEqual(summary?.shared, 1)
        XCTAssertEqual(summary?.classes.first?.keys.first { $0.key == "next" }?.kinds, [ArchiveSummary.KindCount(kind: "Node", count: 100_000)])
        let refusal = DecodePolicy(stackSize: 8 << 20).refusal(depth: summary?.readableNesting ?? 0, pretty: false)
        XCTAssertNotNil(refusal)
    }

    /// A string at the end of a long chain has a place only while its path is short enough to
    /// be written whole.
    func testPathsTooLongToWriteAreLeftOut() throws {
        func chain(_ depth: Int) throws -> ArchiveSummary {
            let entries: [Entry] = (0..<depth).map { index in
                index + 1 < depth ? .object("Node", [("next", .uid(index + 2))]) : .object("Node", [("text", .uid(depth + 1))])
            }
            return try Archive(parsing: try buildArchive(entries + [.string("at the end")])).summary()
        }
        XCTAssertEqual(try chain(40).largestStrings.first?.path, String(repeating: ".next", count: 39) + ".text")
        XCTAssertNil(try chain(60).largestStrings.first?.path)
        XCTAssertEqual(try chain(60).largestStrings.first?.preview, "at the end")
    }
}
