import XCTest

@testable import ArchiveServer

/// A conversion's payloads held in its reservation beside what it was admitted with, let go
/// when read, and the first refusal answered as the budget's.
final class PayloadReservationTests: XCTestCase {
    func testHoldsBesideTheAdmittedBytesThenLetsGo() throws {
        let budget = MemoryBudget(capacity: 1_000_000)
        let reservation = try XCTUnwrap(budget.reserve(1_000))
        let payloads = PayloadReservation(reservation)
        XCTAssertTrue(payloads.hold(text: 500, reading: nil))
        XCTAssertEqual(reservation.bytes, 1_500)
        // Ten bytes of payload reserve what a decode of them would (four per byte at least).
        XCTAssertTrue(payloads.hold(text: 500, reading: [UInt8](repeating: 0, count: 10)))
        XCTAssertEqual(reservation.bytes, 1_540)
        XCTAssertTrue(payloads.hold(text: 0, reading: nil))
        XCTAssertEqual(reservation.bytes, 1_000)
        XCTAssertFalse(payloads.refused)
        XCTAssertNil(payloads.refusal(path: "/v1/decode"))
    }

    func testARefusalIsTheBudgetsAnswer() throws {
        let budget = MemoryBudget(capacity: 2_000)
        let reservation = try XCTUnwrap(budget.reserve(1_000))
        let payloads = PayloadReservation(reservation)
        XCTAssertFalse(payloads.hold(text: 0, reading: [UInt8](repeating: 0, count: 1_000)))
        XCTAssertTrue(payloads.refused)
        // Answered as the budget being full (503), as a decode's nested payloads always were.
        let response = try XCTUnwrap(payloads.refusal(path: "/v1/decode"))
        XCTAssertEqual(response.status, 503)
    }

    /// A nested summary holds every open level's working memory at once: a payload read inside
    /// another adds to it, and letting the inner one go keeps the outer one's.
    func testOpenLevelsAreHeldTogether() throws {
        let budget = MemoryBudget(capacity: 1_000_000)
        let reservation = try XCTUnwrap(budget.reserve(1_000))
        let payloads = PayloadReservation(reservation)
        XCTAssertTrue(payloads.holdLevel([UInt8](repeating: 0, count: 100)))
        XCTAssertEqual(reservation.bytes, 1_400)
        XCTAssertTrue(payloads.holdLevel([UInt8](repeating: 0, count: 10)))
        XCTAssertEqual(reservation.bytes, 1_440)
        XCTAssertTrue(payloads.holdLevel(nil))
        XCTAssertEqual(reservation.bytes, 1_400)
        XCTAssertTrue(payloads.holdLevel(nil))
        XCTAssertEqual(reservation.bytes, 1_000)
        // Past the budget with the outer level open: refused, the outer level still held.
        let small = try XCTUnwrap(MemoryBudget(capacity: 2_000).reserve(1_000))
        let tight = PayloadReservation(small)
        XCTAssertTrue(tight.holdLevel([UInt8](repeating: 0, count: 200)))
        XCTAssertFalse(tight.holdLevel([UInt8](repeating: 0, count: 200)))
        XCTAssertEqual(small.bytes, 1_800)
        XCTAssertTrue(tight.refused)
    }

    func testWithoutABudgetEverythingIsHeld() {
        let payloads = PayloadReservation(nil)
        XCTAssertTrue(payloads.hold(text: .max / 4, reading: [1, 2, 3]))
        XCTAssertNil(payloads.refusal(path: "/v1/decode"))
    }
}
