import XCTest

@testable import ArchiveCodec

final class ArrayFilledTests: XCTestCase {
    func testFilledIsRepeating() {
        for count in [0, 1, 7, 64, 1_000, 70_000] {
            XCTAssertEqual([Int32](filledWith: -1, count: count), [Int32](repeating: -1, count: count), "count \(count)")
            XCTAssertEqual([Bool](filledWith: true, count: count), [Bool](repeating: true, count: count), "count \(count)")
            XCTAssertEqual([[Int]](filledWith: [3], count: count), [[Int]](repeating: [3], count: count), "count \(count)")
        }
        XCTAssertGreaterThanOrEqual([UInt8](filledWith: 0, count: 10).capacity, 10)
    }

    /// The reserved fill optimised builds take (a debug build, the tests', takes
    /// `Array(repeating:)`): the same elements, the count reserved at once.
    func testReservedFillIsRepeating() {
        for count in [0, 1, 7, 64, 1_000, 70_000] {
            let filled = [Int32](reservingAndFilling: -1, count: count)
            XCTAssertEqual(filled, [Int32](repeating: -1, count: count), "count \(count)")
            XCTAssertGreaterThanOrEqual(filled.capacity, count)
            XCTAssertEqual([Bool](reservingAndFilling: true, count: count), [Bool](repeating: true, count: count), "count \(count)")
            XCTAssertEqual([[Int]](reservingAndFilling: [3], count: count), [[Int]](repeating: [3], count: count), "count \(count)")
        }
    }

    /// Small and large (from 4,096 bytes, allocated uninitialized) alike: every element is the
    /// one the body wrote, and the count is the one asked for.
    func testWritingGivesWhatTheBodyWrote() {
        for count in [0, 1, 5, 1_023, 1_024, 1_025, 4_095, 4_096, 4_097, 50_000] {
            let bytes = [UInt8](count: count, placeholder: 0) { buffer in
                XCTAssertEqual(buffer.count, count)
                for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            }
            XCTAssertEqual(bytes, (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }, "count \(count)")
            let words = [UInt64](count: count, placeholder: 0) { buffer in
                for index in buffer.indices { buffer[index] = UInt64(index) << 33 }
            }
            XCTAssertEqual(words, (0..<count).map { UInt64($0) << 33 }, "count \(count)")
        }
    }

    /// A small array is filled with the placeholder before the body runs (what a body that
    /// leaves elements unwritten sees there).
    func testSmallArrayHoldsThePlaceholderFirst() {
        let values = [Int32](count: 100, placeholder: -7) { buffer in
            XCTAssertTrue(buffer.allSatisfy { $0 == -7 })
            buffer[3] = 4
        }
        XCTAssertEqual(values.filter { $0 == -7 }.count, 99)
        XCTAssertEqual(values[3], 4)
    }
}
