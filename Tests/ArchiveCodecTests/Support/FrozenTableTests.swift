import XCTest

@testable import ArchiveCodec

final class FrozenTableTests: XCTestCase {
    /// A table adopted from a stack past its first capacity holds what the stack held, in
    /// order; copies of it read the same elements, and it outlives the copies and the stack
    /// variable (the buffer is freed with the last table).
    func testAdoptsWhatAStackHeld() {
        var stack = InPlaceStack<UInt32>(capacity: 2)
        for value in 0..<1_000 as Range<UInt32> { stack.push(value &* 7) }
        let table = FrozenTable(adopting: stack)
        var copies = [table, table]
        XCTAssertEqual(table.count, 1_000)
        XCTAssertEqual(Array(table), (0..<1_000).map { UInt32($0) &* 7 })
        copies.removeAll()
        XCTAssertEqual(table[999], 999 * 7)
        XCTAssertEqual(table.last, 999 * 7)
    }

    /// A copy of a collection, empty or not, and of a slice of another table.
    func testCopiesACollection() {
        let empty = FrozenTable([UInt8]())
        XCTAssertTrue(empty.isEmpty)
        XCTAssertEqual(Array(empty), [])
        let table = FrozenTable([UInt8](0..<200))
        let part = FrozenTable(table[50...60])
        XCTAssertEqual(Array(part), Array(50...60))
        XCTAssertEqual(part.indices, 0..<11)
    }
}
