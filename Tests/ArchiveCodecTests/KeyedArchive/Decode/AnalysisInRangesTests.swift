import TestSupport
import XCTest

@testable import ArchiveCodec

/// The analysis split into jobs (classifying `$objects` in ranges of UIDs, scalar identities
/// by hash partitions, dictionary forms by ranges) must give exactly what one pass gives:
/// forms, classes (in the same order), summed reference counts, collection lists,
/// identities, and the same first error.
final class AnalysisInRangesTests: XCTestCase {
    /// `width` jobs of at least one entry each, run last first: a merge that depended on
    /// the order the jobs finish in would show.
    private func reversed(width: Int) -> Parallelism {
        Parallelism(width: width, smallestPart: 1) { jobs, job in
            for index in (0..<jobs).reversed() { job(index) }
        }
    }

    private func assertClassifiedAlike(_ bytes: [UInt8], _ name: String) throws {
        let serial = try KeyedArchive(parsing: bytes)
        for width in [2, 3, 7] {
            let split = try KeyedArchive(parsing: bytes, parallelism: reversed(width: width))
            let context = "\(name), \(width) jobs"
            XCTAssertEqual(split.forms, serial.forms, context)
            XCTAssertEqual(split.classOf, serial.classOf, context)
            XCTAssertEqual(split.classInfos.map(\.name), serial.classInfos.map(\.name), context)
            XCTAssertEqual(split.referenceCounts, serial.referenceCounts, context)
            XCTAssertEqual(split.lists, serial.lists, context)
            XCTAssertEqual(split.carriesID, serial.carriesID, context)
            XCTAssertEqual(try split.json(view: .readable, pretty: false), try serial.json(view: .readable, pretty: false), context)
        }
    }

    private func failure(_ bytes: [UInt8], _ parallelism: Parallelism) -> CodecError? {
        do {
            _ = try KeyedArchive(parsing: bytes, parallelism: parallelism)
            return nil
        } catch {
            return error
        }
    }

    func testEveryFixtureClassifiesAlikeInRanges() throws {
        var checked = 0
        for (name, bytes, _) in Fixtures.archives() {
            try assertClassifiedAlike(bytes, name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    /// Classes first met in a later range, met again in earlier ones, and shared by all;
    /// references that cross ranges; every Foundation form.
    func testRandomGraphsClassifyAlikeInRanges() throws {
        var generator = TestRandom(for: self)
        for round in 0..<30 {
            let entries = randomGraph(count: Int.random(in: 1...40, using: &generator), using: &generator)
            try assertClassifiedAlike(try buildArchive(entries), "random graph \(round)")
        }
    }

    /// Two bad objects far apart: whichever job finishes first, the error is the one a
    /// single pass meets first.
    func testFirstErrorInRangesIsTheSerialOne() throws {
        var entries: [Entry] = (0..<100).map { .object("Node", [("n", .int(Int64($0)))]) }
        entries[9] = .object("Node", [("next", .uid(5_000))])
        entries[89] = .object("Node", [("next", .uid(6_000))])
        let outOfRange = try buildArchive(entries)
        let serial = try XCTUnwrap(failure(outOfRange, .serial))
        XCTAssertTrue(serial.message.contains("5000"), serial.message)
        for width in [2, 3, 7] {
            XCTAssertEqual(failure(outOfRange, reversed(width: width))?.message, serial.message)
            XCTAssertEqual(failure(outOfRange, reversed(width: width))?.uid, serial.uid)
        }
        // Errors of two kinds: a count mismatch early, a UID out of range late.
        entries[9] = .object("NSDictionary", [("NS.keys", .array([.uid(1)])), ("NS.objects", .array([]))])
        let mixed = try buildArchive(entries)
        let first = try XCTUnwrap(failure(mixed, .serial))
        XCTAssertEqual(first.uid, 10, first.message)
        for width in [2, 3, 7] {
            XCTAssertEqual(failure(mixed, reversed(width: width))?.message, first.message)
        }
    }

    /// Cuts by position cover every item once, leave no range empty, and even out the
    /// position's span, whatever it looks like.
    func testRangesBalancedByPositionCoverEveryItem() {
        let parallelism = Parallelism(width: 4, smallestPart: 1) { jobs, job in for index in 0..<jobs { job(index) } }
        let shapes: [(String, (Int) -> Int)] = [
            ("linear", { $0 }), ("late heavy", { $0 * $0 }), ("flat", { _ in 7 }),
            ("one jump", { $0 < 90 ? 0 : 1_000 }), ("decreasing", { -$0 })
        ]
        for count in [1, 2, 3, 4, 5, 9, 100] {
            for (name, position) in shapes {
                let ranges = parallelism.ranges(of: count, balancing: position)
                XCTAssertEqual(ranges.first?.lowerBound, 0, name)
                XCTAssertEqual(ranges.last?.upperBound, count, name)
                XCTAssertEqual(ranges.count, min(4, count), "\(name), \(count)")
                for (left, right) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(left.upperBound, right.lowerBound, name) }
                XCTAssertTrue(ranges.allSatisfy { !$0.isEmpty }, "\(name), \(count): \(ranges)")
            }
        }
        // Quadratic growth: the later ranges hold fewer items.
        let skewed = parallelism.ranges(of: 1_000, balancing: { $0 * $0 })
        XCTAssertEqual(skewed.map(\.count), [500, 207, 159, 134])
    }
}
