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

    func testWithoutABudgetEverythingIsHeld() {
        let payloads = PayloadReservation(nil)
        XCTAssertTrue(payloads.hold(text: .max / 4, reading: [1, 2, 3]))
        XCTAssertNil(payloads.refusal(path: "/v1/decode"))
    }
}
