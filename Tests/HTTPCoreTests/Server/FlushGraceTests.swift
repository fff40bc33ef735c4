import XCTest

@testable import HTTPCore

final class FlushGraceTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testAClientThatTakesNothingIsGivenUpAfterTheGrace() {
        var grace = FlushGrace(nanos: second)
        XCTAssertFalse(grace.expired(now: 0, notTaken: 500))
        XCTAssertFalse(grace.expired(now: second / 2, notTaken: 500))
        XCTAssertFalse(grace.expired(now: second - 1, notTaken: 500))
        XCTAssertTrue(grace.expired(now: second, notTaken: 500))
    }

    func testEachFallInOutputUntakenStartsTheGraceAgain() {
        var grace = FlushGrace(nanos: second)
        XCTAssertFalse(grace.expired(now: 0, notTaken: 10_000))
        // A slow reader: a few bytes every 0.9 s, for far longer than one grace.
        for step in 1...20 {
            XCTAssertFalse(grace.expired(now: UInt64(step) * second * 9 / 10, notTaken: 10_000 - step * 100), "step \(step)")
        }
        // Then it stops: a grace after its last read.
        XCTAssertFalse(grace.expired(now: 18 * second + second / 2, notTaken: 8_000))
        XCTAssertTrue(grace.expired(now: 19 * second, notTaken: 8_000))
    }

    func testMoreOutputQueuedIsNoProgress() {
        var grace = FlushGrace(nanos: second)
        XCTAssertFalse(grace.expired(now: 0, notTaken: 100))
        // The stream's last chunk is queued: more untaken, not less.
        XCTAssertFalse(grace.expired(now: second / 2, notTaken: 105))
        XCTAssertTrue(grace.expired(now: second, notTaken: 105))
    }
}
