import XCTest

@testable import ArchiveCodec

final class ArrayAheadTests: XCTestCase {
    func testWithinTheCapacityHeldNoGrowth() {
        var table: [UInt8] = []
        table.reserveCapacity(100)
        let capacity = table.capacity
        table.appendAhead(10, copying: [UInt8](repeating: 7, count: 64))
        XCTAssertEqual(table.count, 26, "the ten missing and sixteen ahead")
        XCTAssertEqual(table.capacity, capacity)
        table.appendAhead(capacity - table.count, copying: [UInt8](repeating: 7, count: 64))
        XCTAssertEqual(table.count, capacity, "never past the capacity when what is missing fits it")
        XCTAssertEqual(table.capacity, capacity)
        XCTAssertTrue(table.allSatisfy { $0 == 7 })
    }

    func testPastTheCapacityAllMissingAndAnEighthAhead() {
        var table = [Int](repeating: 1, count: 800)
        table.appendAhead(1000, copying: [Int](repeating: 0, count: 64))
        XCTAssertEqual(table.count, 800 + 1000 + 64, "the block caps what goes ahead")
        var small = [Int](repeating: 1, count: 80)
        small.appendAhead(100, copying: [Int](repeating: 0, count: 64))
        XCTAssertEqual(small.count, 80 + 100 + 16 + 10)
        XCTAssertEqual(small[80...].filter { $0 != 0 }.count, 0)
    }
}
