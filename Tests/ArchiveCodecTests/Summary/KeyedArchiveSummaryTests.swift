import TestSupport
import XCTest

@testable import ArchiveCodec

/// A keyed archive's summary against counts the test makes itself from the archive's raw view
/// (`RawViewCounts`): objects, sharing, cycles, classes with their chains and keys, the kinds of
/// the keys' values, and the lengths of the largest strings and data values.
final class KeyedArchiveSummaryTests: XCTestCase {
    private func keyedFixtures() throws -> [(String, [UInt8])] {
        var files: [(String, [UInt8])] = []
        for name in Fixtures.names() {
            let bytes = try Fixtures.bytes(name)
            guard try Archive(parsing: bytes).keyedArchive != nil else { continue }
            files.append((name, bytes))
        }
        for name in Fixtures.publicNames("keyed-archive") { files.append((name, try Fixtures.publicFile(name))) }
        XCTAssertGreaterThan(files.count, 40)
        return files
    }

    func testCountsMatchTheRawView() throws {
        var (sharedSeen, cyclicSeen) = (false, false)
        for (name, bytes) in try keyedFixtures() {
            let summary = try Archive(parsing: bytes).summary()
            let raw = try Archive(parsing: bytes, view: .raw).json(view: .raw, pretty: false)
            let counts = RawViewCounts(rawView: raw)
            XCTAssertEqual(summary.format, .keyedArchive, name)
            XCTAssertEqual(summary.bytes, bytes.count, name)
            XCTAssertEqual(summary.objects, counts.objects, name)
            XCTAssertEqual(summary.shared, counts.shared, name)
            XCTAssertEqual(summary.cyclic, counts.cyclic, name)
            XCTAssertEqual(RawViewCounts.classes(of: summary), counts.classes, name)
            XCTAssertEqual(summary.largestStrings.map(\.length), Array(counts.stringLengths.prefix(ArchiveSummary.listedValues)), name)
            XCTAssertEqual(summary.largestData.map(\.length), Array(counts.dataLengths.prefix(ArchiveSummary.listedValues)), name)
            sharedSeen = sharedSeen || counts.shared > 0
            cyclicSeen = cyclicSeen || counts.cyclic > 0
        }
        // The fixtures share and close cycles: the comparison covers both.
        XCTAssertTrue(sharedSeen && cyclicSeen)
    }

    /// Jobs run in reverse order in parts as small as one entry: the summary is the serial one.
    func testParallelismChangesNothing() throws {
        let parts = Parallelism(width: 3, smallestPart: 1) { jobs, job in
            for index in (0..<jobs).reversed() { job(index) }
        }
        for (name, bytes) in try keyedFixtures() {
            let serial = try Archive(parsing: bytes).summary()
            XCTAssertEqual(try Archive(parsing: bytes, parallelism: parts).summary(parallelism: parts), serial, name)
        }
    }

    /// Random graphs (cycles, sharing, nil links, inline arrays, raw arrays): the same counts.
    func testRandomGraphsMatchTheRawView() throws {
        var generator = SplitMix64(seed: 0x5EED)
        for round in 0..<200 {
            let bytes = try buildArchive(randomGraph(count: Int.random(in: 1...40, using: &generator), using: &generator))
            let summary = try Archive(parsing: bytes).summary()
            let counts = RawViewCounts(rawView: try Archive(parsing: bytes, view: .raw).json(view: .raw, pretty: false))
            XCTAssertEqual(summary.objects, counts.objects, "round \(round)")
            XCTAssertEqual(summary.shared, counts.shared, "round \(round)")
            XCTAssertEqual(summary.cyclic, counts.cyclic, "round \(round)")
            XCTAssertEqual(RawViewCounts.classes(of: summary), counts.classes, "round \(round)")
            XCTAssertEqual(summary.largestStrings.map(\.length), Array(counts.stringLengths.prefix(ArchiveSummary.listedValues)), "round \(round)")
        }
    }

    /// Classes by count, most first, then by name; keys likewise; every listed count adds up to
    /// the objects.
    func testListsAreOrdered() throws {
        for (name, bytes) in try keyedFixtures() {
            let summary = try Archive(parsing: bytes).summary()
            let order = summary.classes.map { (-$0.count, $0.name) }
            XCTAssertTrue(zip(order, order.dropFirst()).allSatisfy { $0 < $1 }, name)
            for use in summary.classes {
                let keys = use.keys.map { (-$0.count, $0.key) }
                XCTAssertTrue(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "\(name) \(use.name)")
                for key in use.keys { XCTAssertEqual(key.kinds.reduce(0) { $0 + $1.count }, key.count, "\(name) \(use.name).\(key.key)") }
            }
            XCTAssertLessThanOrEqual(summary.classes.reduce(0) { $0 + $1.count }, summary.objects, name)
        }
    }

    /// The nesting is what `archive-tool depth` reports for both views.
    func testNestingIsTheViewsDepth() throws {
        for (name, bytes) in try keyedFixtures() {
            let archive = try Archive(parsing: bytes)
            let summary = try archive.summary()
            XCTAssertEqual(summary.readableNesting, archive.depth(of: .readable), name)
            XCTAssertEqual(summary.rawNesting, archive.depth(of: .raw), name)
        }
    }

    /// A cycle of two objects, one of them shared by the root: both cyclic, one shared.
    func testCycleAndSharingOfAHandBuiltArchive() throws {
        let bytes = try buildArchive([
            .object("Root", [("a", .uid(2)), ("b", .uid(2))]),
            .object("Node", [("next", .uid(3)), ("name", .string("first"))]),
            .object("Node", [("next", .uid(2)), ("count", .int(2))])
        ])
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.objects, 5)  // three instances and two class entries
        XCTAssertEqual(summary.shared, 1)
        XCTAssertEqual(summary.cyclic, 2)
        let node = try XCTUnwrap(summary.classes.first { $0.name == "Node" })
        XCTAssertEqual(node.count, 2)
        XCTAssertEqual(node.shared, 1)
        XCTAssertEqual(node.cyclic, 2)
        XCTAssertEqual(node.keys.map(\.key), ["next", "count", "name"])
        XCTAssertEqual(node.keys[0].kinds, [ArchiveSummary.KindCount(kind: "Node", count: 2)])
        XCTAssertEqual(node.keys[2].kinds, [ArchiveSummary.KindCount(kind: "string", count: 1)])
        XCTAssertEqual(summary.largestStrings.map(\.preview), ["first"])
    }
}
