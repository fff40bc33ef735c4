import XCTest

@testable import ArchiveCodec

/// `HeldText`: each growth asked before the array grows, with what is held beside it; a
/// refusal keeps nothing and takes nothing more.
final class HeldTextTests: XCTestCase {
    func testGrowthIsAskedBeforeItIsHeld() {
        var asked: [Int] = []
        let text = HeldText(
            hold: {
                asked.append($0)
                return $0 <= 1_100
            }, held: 1_000)
        let piece = [UInt8](repeating: 0x61, count: 100)
        piece.withUnsafeBufferPointer { text.append($0) }
        XCTAssertEqual(asked, [1_100])
        XCTAssertEqual(text.bytes.count, 100)
        // Within the capacity the first growth gave: not asked again.
        let capacity = text.bytes.capacity
        let small = [UInt8](repeating: 0x62, count: capacity - 100)
        small.withUnsafeBufferPointer { text.append($0) }
        XCTAssertEqual(asked.count, 1)
        // Past it: asked for double, refused, nothing kept, nothing more taken.
        piece.withUnsafeBufferPointer { text.append($0) }
        XCTAssertTrue(text.refused)
        XCTAssertEqual(asked.last, 1_000 + 2 * capacity)
        XCTAssertTrue(text.bytes.isEmpty)
        piece.withUnsafeBufferPointer { text.append($0) }
        XCTAssertTrue(text.take().isEmpty)
        XCTAssertEqual(asked.count, 2)
    }

    func testWithoutHoldNothingIsAsked() {
        let text = HeldText(hold: nil)
        [UInt8](repeating: 1, count: 10_000).withUnsafeBufferPointer { text.append($0) }
        XCTAssertFalse(text.refused)
        XCTAssertEqual(text.take().count, 10_000)
        XCTAssertTrue(text.bytes.isEmpty)
    }
}
