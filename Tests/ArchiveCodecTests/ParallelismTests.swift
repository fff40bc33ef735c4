import XCTest

@testable import ArchiveCodec

/// `Parallelism.map` and `mapOrFirstError` give results, and the error, in job order,
/// whatever order the jobs run in; a failed map hands back every job that succeeded.
final class ParallelismTests: XCTestCase {
    /// Runs the jobs last first, so that an outcome depending on finishing order would show.
    private let lastFirst = Parallelism(width: 4, smallestPart: 1) { jobs, job in
        for index in (0..<jobs).reversed() { job(index) }
    }

    func testResultsComeInJobOrder() throws {
        let ranges = lastFirst.ranges(of: 10)
        XCTAssertEqual(ranges.count, 4)
        XCTAssertEqual(lastFirst.map(ranges) { $0.lowerBound }, ranges.map(\.lowerBound))
        let sums = try lastFirst.mapOrFirstError(ranges) { (range) throws(CodecError) in range.reduce(0, +) }
        XCTAssertEqual(sums, ranges.map { $0.reduce(0, +) })
        XCTAssertEqual(sums.reduce(0, +), 45)
    }

    /// Cuts kept as one range (no bounds array) and cuts kept as bounds read the same.
    func testCutsCoverTheCountInOrder() {
        XCTAssertEqual(Array(Cuts([0, 5])), [0..<5])
        XCTAssertEqual(Array(Cuts(units: 1)), [0..<1])
        XCTAssertEqual(Array(Cuts(units: 3)), [0..<1, 1..<2, 2..<3])
        XCTAssertEqual(Array(Cuts(whole: 3..<9)), [3..<9])
        XCTAssertEqual(Array(Cuts([0, 3, 3, 7])), [0..<3, 3..<3, 3..<7])
        for count in [0, 1, 2, 7, 100] {
            for parallelism in [Parallelism.serial, lastFirst] {
                for cuts in [parallelism.ranges(of: count), parallelism.chunks(of: count), parallelism.ranges(of: count) { $0 * 3 }] {
                    XCTAssertGreaterThanOrEqual(cuts.count, 1)
                    XCTAssertEqual(cuts.first?.lowerBound, 0)
                    XCTAssertEqual(cuts.last?.upperBound, count)
                    XCTAssertEqual(zip(cuts.dropLast(), cuts.dropFirst()).filter { $0.upperBound != $1.lowerBound }.count, 0)
                }
            }
        }
    }

    func testTheFirstErrorInJobOrderWinsAndSuccessesAreDiscarded() {
        let ranges = lastFirst.ranges(of: 8)
        var discarded: [Int] = []
        XCTAssertThrowsError(
            try lastFirst.mapOrFirstError(ranges) { (range) throws(CodecError) -> Int in
                // Jobs 1 and 3 fail; job 3 runs first.
                if range.lowerBound == ranges[1].lowerBound || range.lowerBound == ranges[3].lowerBound {
                    throw CodecError(.malformedPlist, "job at \(range.lowerBound)")
                }
                return range.lowerBound
            } discardingOnFailure: {
                discarded.append($0)
            }
        ) { error in
            XCTAssertEqual((error as? CodecError)?.message, "job at \(ranges[1].lowerBound)")
        }
        XCTAssertEqual(discarded.sorted(), [ranges[0].lowerBound, ranges[2].lowerBound])
    }

    func testOneJobRunsInlineAndThrowsItsOwnError() {
        var discarded = 0
        XCTAssertThrowsError(
            try Parallelism.serial.mapOrFirstError(Parallelism.serial.ranges(of: 5)) { (_) throws(CodecError) -> Int in
                throw CodecError(.malformedPlist, "only job")
            } discardingOnFailure: { _ in
                discarded += 1
            }
        ) { error in
            XCTAssertEqual((error as? CodecError)?.message, "only job")
        }
        XCTAssertEqual(discarded, 0)
    }
}
