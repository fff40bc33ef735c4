import XCTest

@testable import ArchiveCodec

/// `ScratchStack` on its own: frames nest, each frame reads back what was appended to it,
/// popping restores the stack, and only the top-most open frame counts as one to read or pop.
final class ScratchStackTests: XCTestCase {
    private func items(of frame: borrowing ScratchFrame, on stack: ScratchStack) -> [UInt32] {
        stack.withItems(of: frame) { Array($0) }
    }

    func testAFrameHoldsWhatWasAppendedAfterIt() {
        var stack = ScratchStack()
        let frame = stack.frame()
        XCTAssertEqual(stack.count(of: frame), 0)
        XCTAssertEqual(items(of: frame, on: stack), [])
        for item: UInt32 in [7, 8, 9] { stack.append(item) }
        XCTAssertEqual(stack.count(of: frame), 3)
        XCTAssertEqual(items(of: frame, on: stack), [7, 8, 9])
        XCTAssertEqual(stack.item(1, of: frame), 8)
        stack.pop(frame)
    }

    func testFramesNestAndPopBackToWhereTheyStarted() {
        var stack = ScratchStack()
        let outer = stack.frame()
        stack.append(1)
        stack.append(2)
        let inner = stack.frame()
        XCTAssertEqual(stack.count(of: inner), 0, "a frame starts at the top, above the outer frame's items")
        stack.append(3)
        let innermost = stack.frame()
        stack.append(4)
        stack.append(5)
        XCTAssertEqual(items(of: innermost, on: stack), [4, 5])
        stack.pop(innermost)
        XCTAssertEqual(items(of: inner, on: stack), [3], "popping removes the popped frame's items only")
        stack.pop(inner)
        XCTAssertEqual(items(of: outer, on: stack), [1, 2])
        // The outer frame goes on above its nested frames' place.
        stack.append(6)
        XCTAssertEqual(items(of: outer, on: stack), [1, 2, 6])
        stack.pop(outer)
        let again = stack.frame()
        XCTAssertEqual(stack.count(of: again), 0, "the stack is empty again after its last frame is popped")
        stack.pop(again)
    }

    func testOnlyTheTopMostOpenFrameIsTop() {
        var stack = ScratchStack()
        let outer = stack.frame()
        XCTAssertTrue(stack.isTop(outer))
        stack.append(1)
        let inner = stack.frame()
        XCTAssertTrue(stack.isTop(inner))
        XCTAssertFalse(stack.isTop(outer), "the outer frame may not be read or popped while the inner one is open")
        stack.pop(inner)
        XCTAssertTrue(stack.isTop(outer))
        stack.pop(outer)
    }

    func testPairsSplitIntoKeysThenValues() {
        var stack = ScratchStack()
        let pairs = stack.frame()
        for item: UInt32 in [10, 11, 20, 21, 30, 31] { stack.append(item) }
        let lists = stack.splitPairs(of: pairs)
        XCTAssertEqual(items(of: lists, on: stack), [10, 20, 30, 11, 21, 31])
        XCTAssertFalse(stack.isTop(pairs))
        stack.pop(lists)
        XCTAssertEqual(items(of: pairs, on: stack), [10, 11, 20, 21, 30, 31], "splitting leaves the pairs as they were")
        stack.pop(pairs)
    }

    func testReusedFramesSeeNothingOfEarlierOnes() {
        var stack = ScratchStack()
        for round: UInt32 in 0..<3 {
            let frame = stack.frame()
            for item in 0...round { stack.append(item) }
            XCTAssertEqual(items(of: frame, on: stack), Array(0...round))
            stack.pop(frame)
        }
    }
}
