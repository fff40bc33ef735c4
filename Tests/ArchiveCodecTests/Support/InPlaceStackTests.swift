import XCTest

@testable import ArchiveCodec

final class InPlaceStackTests: XCTestCase {
    /// Pushed past its first capacity many times over, the stack gives its elements back in
    /// reverse, in place and after truncation as an array would.
    func testGrowsAndGivesBackInOrder() {
        var stack = InPlaceStack<Int32>(capacity: 1)
        defer { stack.deallocate() }
        XCTAssertTrue(stack.isEmpty)
        var model: [Int32] = []
        for value in 0..<1_000 as Range<Int32> {
            stack.push(value * 3)
            model.append(value * 3)
        }
        XCTAssertEqual(stack.count, 1_000)
        XCTAssertEqual(Array(stack.elements(990..<1_000)), Array(model[990..<1_000]))
        stack.truncate(to: 500)
        model.removeLast(500)
        XCTAssertEqual(Array(stack.elements(0..<stack.count)), model)
        while !stack.isEmpty { XCTAssertEqual(stack.pop(), model.removeLast()) }
        XCTAssertTrue(model.isEmpty)
        stack.push(7)
        XCTAssertEqual(stack.pop(), 7)
    }

    /// A capacity of 0 asked is one: the first push needs no special case.
    func testZeroCapacityIsOne() {
        var stack = InPlaceStack<UInt8>(capacity: 0)
        defer { stack.deallocate() }
        stack.push(1)
        stack.push(2)
        XCTAssertEqual(Array(stack.elements(0..<2)), [1, 2])
    }
}
