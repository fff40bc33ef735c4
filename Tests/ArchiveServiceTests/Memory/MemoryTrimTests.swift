import XCTest

@testable import ArchiveServer

/// A trim follows a large conversion only when the process holds more than an eighth of the
/// budget beyond what requests reserved.
final class MemoryTrimTests: XCTestCase {
    func testATrimIsDueOnlyWhenWhatIsKeptMatters() throws {
        let resident = try XCTUnwrap(ProcessStatistics.memoryBytes()?.resident)
        // This process holds far more than an eighth of a 16 MiB budget: due after a large body.
        let small = MemoryBudget(capacity: 16 << 20)
        XCTAssertGreaterThan(resident, 2 << 20)
        XCTAssertTrue(MemoryTrim.isDue(afterBodyOf: 1 << 20, budget: small))
        // Not after a small body, whatever is kept.
        XCTAssertFalse(MemoryTrim.isDue(afterBodyOf: (1 << 20) - 1, budget: small))
        // Not while what the process holds is within an eighth of a large budget.
        let large = MemoryBudget(capacity: 8 * (resident + (1 << 30)))
        XCTAssertFalse(MemoryTrim.isDue(afterBodyOf: 64 << 20, budget: large))
        // What requests have reserved is not counted as kept: a budget whose reservations
        // cover what the process holds asks for no trim.
        let covered = MemoryBudget(capacity: 4 * (resident + (64 << 20)))
        let reservation = covered.reserve(resident + (64 << 20))
        XCTAssertNotNil(reservation)
        XCTAssertFalse(MemoryTrim.isDue(afterBodyOf: 64 << 20, budget: covered))
    }
}
