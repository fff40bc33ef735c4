import XCTest

@testable import ArchiveCodec

final class ByteStringTableTests: XCTestCase {
    /// `bytesEqual` compares whole words and then an overlapping last one: for every length
    /// up to past three words, equal bytes compare equal, and a difference at any single
    /// position is found, with the bytes placed at every alignment and each buffer ending
    /// right after them.
    func testBytesEqualFindsADifferenceAtEveryPosition() {
        for count in 0...27 {
            for alignment in 0..<8 {
                let first = UnsafeMutableRawPointer.allocate(byteCount: count + alignment, alignment: 8)
                let second = UnsafeMutableRawPointer.allocate(byteCount: count + alignment, alignment: 8)
                defer {
                    first.deallocate()
                    second.deallocate()
                }
                for index in 0..<count {
                    first.storeBytes(of: UInt8(truncatingIfNeeded: 31 &* index &+ count), toByteOffset: alignment + index, as: UInt8.self)
                    second.storeBytes(of: UInt8(truncatingIfNeeded: 31 &* index &+ count), toByteOffset: alignment + index, as: UInt8.self)
                }
                XCTAssertTrue(ByteStringTable.bytesEqual(first + alignment, second + alignment, count: count), "\(count) bytes")
                for position in 0..<count {
                    let kept = second.load(fromByteOffset: alignment + position, as: UInt8.self)
                    second.storeBytes(of: kept ^ 0x40, toByteOffset: alignment + position, as: UInt8.self)
                    XCTAssertFalse(ByteStringTable.bytesEqual(first + alignment, second + alignment, count: count), "\(count) bytes, at \(position)")
                    second.storeBytes(of: kept, toByteOffset: alignment + position, as: UInt8.self)
                }
            }
        }
    }

    /// Texts found through the table are the ones inserted, whatever their lengths: asked
    /// again, each finds its own value and inserts nothing.
    func testFindsWhatWasInserted() {
        let texts = (0..<300).map { index in Array("key \(index) ".utf8) + [UInt8](repeating: UInt8(index % 7), count: index % 19) }
        var table = ByteStringTable()
        var inserted = 0
        func find(_ index: Int) -> UInt32 {
            texts[index].withUnsafeBufferPointer { buffer in
                table.findOrInsert(
                    hash: ByteStringTable.hash(buffer),
                    equals: { candidate in
                        texts[Int(candidate)].withUnsafeBufferPointer { $0.count == buffer.count && ByteStringTable.bytesEqual($0.baseAddress!, buffer.baseAddress!, count: buffer.count) }
                    },
                    newValue: {
                        inserted += 1
                        return UInt32(index)
                    })
            }
        }
        for index in texts.indices { XCTAssertEqual(find(index), UInt32(index)) }
        XCTAssertEqual(inserted, texts.count)
        for index in texts.indices { XCTAssertEqual(find(index), UInt32(index)) }
        XCTAssertEqual(inserted, texts.count, "a text found was inserted again")
        XCTAssertEqual(table.count, texts.count)
    }
}
