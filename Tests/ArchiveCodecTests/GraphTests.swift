import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

final class GraphTests: XCTestCase {
    func testCyclesSelfReferencesAndSharing() throws {
        // 1: Team ↔ 2: Game, 3 shared by both, 4 refers to itself.
        let archive = try buildArchive([
            .object("Team", [("game", .uid(2)), ("logo", .uid(3)), ("me", .uid(4)), ("wins", .int(3)), ("raw", .data([1, 2]))]),
            .object("Game", [("home", .uid(1)), ("logo", .uid(3)), ("score", .real(.nan))]),
            .data([9, 9, 9]),
            .object("Loop", [("self", .uid(4)), ("inline", .array([.uid(3), .int(7), .string("s")]))])
        ])
        let json = String(decoding: try KeyedArchive(parsing: archive).json(view: .readable, pretty: false), as: UTF8.self)
        // Team and Loop carry ids, numbered as the view reaches them.
        XCTAssertTrue(json.contains(#""$class":"Team","$id":1"#), json)
        XCTAssertTrue(json.contains(#""$ref":1"#), json)
        XCTAssertTrue(json.contains(#""$class":"Loop","$id":2,"self":{"$ref":2}"#), json)
        try assertEquivalent(archive, roundTrip(archive))
        try assertEquivalent(archive, roundTrip(archive, format: .xml))
    }

    func testEveryFoundationFormRoundTrips() throws {
        let archive = try buildArchive(
            [
                .object("NSMutableArray", [("NS.objects", .array([.uid(2), .uid(3)]))]),
                .string("a"),
                .object("NSMutableDictionary", [("NS.keys", .array([.uid(4), .uid(2)])), ("NS.objects", .array([.uid(5), .uid(6)]))]),
                .int(40400),
                .object("NSSet", [("NS.objects", .array([.uid(7)]))]),
                .object("NSOrderedSet", [("NS.object.0", .uid(2)), ("NS.object.1", .uid(8))]),
                .object("NSDate", [("NS.time", .real(625945468.42794))]),
                .object("NSUUID", [("NS.uuidbytes", .data(Array(0..<16)))]),
                .object("NSMutableString", [("NS.string", .string("mutable"))])
            ], top: [("root", .uid(1)), ("$1", .uid(9)), ("inlineTop", .int(5))])
        try assertEquivalent(archive, roundTrip(archive))
        try assertEquivalent(archive, roundTrip(archive, format: .xml))
    }

    func testDeepChainsAndWideArrays() throws {
        // Deep recursion needs a deep stack (debug frames are large): convert on a thread
        // with 1.5 GiB of it, then check the results here.
        var results: [(original: [UInt8], copy: [UInt8], depth: Int)] = []
        var failure: (any Error)?
        onThread(stackSize: 1536 << 20) {
            do {
                for cyclic in [false, true] {
                    let archive = try chainArchive(depth: 100_000, cyclic: cyclic)
                    results.append((archive, try roundTrip(archive), try KeyedArchive(parsing: archive).depth(of: .readable)))
                }
                let wide = try buildArchive([.array((0..<100_000).map { _ in .uid(2) }), .string("x")])
                results.append((wide, try roundTrip(wide), 1))
            } catch { failure = error }
        }
        if let failure { throw failure }
        XCTAssertEqual(results.map(\.depth), [100_000, 100_001, 1])  // the cycle closes with {"$ref": 1}
        for result in results { try assertEquivalent(result.original, result.copy) }
    }

    func testHandWrittenJSONNeedsNoWrappers() throws {
        let json = #"{"team":"Bears","players":[{"$class":"Player","name":"Ann","number":7}],"ratio":1.5,"big":18446744073709551615,"$$odd":null}"#
        let archive = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let back = String(decoding: try KeyedArchive(parsing: archive).json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertEqual(back, json)
    }
}
