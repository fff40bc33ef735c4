import XCTest

@testable import ArchiveCodec

final class OutputBytesTests: XCTestCase {
    /// Bytes and buffers appended past the first capacity many times over come back in order,
    /// as an array's appends would.
    func testAppendsGrowAndKeepEveryByte() {
        var output = OutputBytes(capacity: 1)
        XCTAssertEqual(output.capacity, 16, "the least capacity")
        var model: [UInt8] = []
        for round in 0..<2_000 {
            let byte = UInt8(truncatingIfNeeded: round)
            output.append(byte)
            model.append(byte)
            let run = [UInt8](repeating: byte &+ 1, count: round % 37)
            run.withUnsafeBufferPointer { output.append($0) }
            model += run
        }
        XCTAssertGreaterThanOrEqual(output.capacity, model.count)
        XCTAssertEqual(output.count, model.count)
        output.withBytes { XCTAssertEqual(Array($0), model) }
    }

    /// A writer's fast path: room asked once, bytes stored at `end`, `count` moved by what it
    /// keeps; setting `count` back drops what was written past it.
    func testRoomEndAndCountMakeAFastPath() {
        var output = OutputBytes(capacity: 16)
        for value in 0..<100 as Range<UInt64> {
            output.room(for: 8)
            XCTAssertGreaterThanOrEqual(output.capacity - output.count, 8)
            UnsafeMutableRawPointer(output.end).storeBytes(of: (value << 8 | 0xAB).littleEndian, as: UInt64.self)
            output.count += 2
        }
        output.withBytes { bytes in
            XCTAssertEqual(bytes.count, 200)
            for value in 0..<100 {
                XCTAssertEqual(bytes[2 * value], 0xAB)
                XCTAssertEqual(bytes[2 * value + 1], UInt8(value))
            }
        }
        output.count = 3
        output.append(0xFF)
        output.withBytes { XCTAssertEqual(Array($0), [0xAB, 0, 0xAB, 0xFF]) }
    }

    /// An empty buffer appends nothing, whatever its base address.
    func testAnEmptyBufferAppendsNothing() {
        var output = OutputBytes(capacity: 0)
        output.append(UnsafeBufferPointer(start: nil, count: 0))
        XCTAssertEqual(output.count, 0)
        output.withBytes { XCTAssertTrue($0.isEmpty) }
    }
}
