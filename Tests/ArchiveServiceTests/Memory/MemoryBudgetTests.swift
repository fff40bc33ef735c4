import XCTest

@testable import ArchiveServer

final class MemoryBudgetTests: XCTestCase {
    func testReservationsGrowShrinkAndReleaseOnFree() {
        let budget = MemoryBudget(capacity: 100)
        var first: Reservation? = budget.reserve(60)
        XCTAssertNotNil(first)
        XCTAssertNil(budget.reserve(41))
        let second = budget.reserve(40)
        XCTAssertNotNil(second)
        XCTAssertFalse(second!.grow(by: 1))
        XCTAssertEqual(second!.bytes, 40)
        first!.shrink(to: 10)
        XCTAssertEqual(budget.snapshot.reserved, 50)
        XCTAssertTrue(second!.grow(by: 30))
        XCTAssertEqual(second!.grow(upTo: 50), 20)
        XCTAssertEqual(budget.snapshot.reserved, 100)
        first = nil
        XCTAssertEqual(budget.snapshot.reserved, 90)
        XCTAssertEqual(budget.snapshot.highWater, 100)
    }

    func testConcurrentReservationsNeverPassTheCapacity() {
        let budget = MemoryBudget(capacity: 1_000)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for size in 1...2_000 {
                if let reservation = budget.reserve(size % 300) {
                    XCTAssertLessThanOrEqual(budget.snapshot.reserved, 1_000)
                    _ = reservation.grow(by: size % 7)
                }
            }
        }
        XCTAssertEqual(budget.snapshot.reserved, 0)
        XCTAssertLessThanOrEqual(budget.snapshot.highWater, 1_000)
    }
}
