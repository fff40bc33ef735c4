import TestSupport
import XCTest

@testable import ArchiveCodec

final class VarintTests: XCTestCase {
    private func decode(_ bytes: [UInt8]) -> [UInt64]? {
        bytes.withUnsafeBufferPointer { Varint.decode($0) }
    }

    private func encode(_ values: [UInt64]) -> [UInt8] {
        var bytes: [UInt8] = []
        Varint.encode(values, into: &bytes)
        return bytes
    }

    /// NSIndexSet-ManyRanges' NSRangeData: (0, 50), (100, 50), (1000, 50), (Int.max − 50, 50).
    func testReadsFoundationsRangeData() {
        let bytes: [UInt8] = [0x00, 0x32, 0x64, 0x32, 0xE8, 0x07, 0x32, 0xCD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x32]
        XCTAssertEqual(decode(bytes), [0, 50, 100, 50, 1000, 50, UInt64(Int64.max) - 50, 50])
        XCTAssertEqual(encode([0, 50, 100, 50, 1000, 50, UInt64(Int64.max) - 50, 50]), bytes)
    }

    func testEdgesOfTheRange() {
        XCTAssertEqual(decode([]), [])
        XCTAssertEqual(decode([0x7F]), [127])
        XCTAssertEqual(decode([0x80, 0x01]), [128])
        let largest: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]
        XCTAssertEqual(decode(largest), [UInt64.max])
        XCTAssertEqual(encode([UInt64.max]), largest)
    }

    /// Bytes that are not the one encoding of their values are not read: a trailing zero
    /// group, a value past 2^64 − 1, an eleventh byte, bytes ending inside a value.
    func testRefusesWhatDoesNotEncodeBackTheSame() {
        XCTAssertNil(decode([0x80, 0x00]))
        XCTAssertNil(decode([0x81, 0x80, 0x00]))
        XCTAssertNil(decode(Array(repeating: 0xFF, count: 9) + [0x02]))
        XCTAssertNil(decode(Array(repeating: 0x80, count: 10) + [0x01]))
        XCTAssertNil(decode([0x32, 0x80]))
    }

    /// Any canonical bytes decode to values that encode to the same bytes, and any values
    /// encode to bytes that decode to them.
    func testRoundTripsBothWays() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let values = (0..<Int(random.next() % 6)).map { _ in random.next() >> (random.next() % 64) }
            let bytes = encode(values)
            XCTAssertEqual(decode(bytes), values)
            var mutated = bytes
            if !mutated.isEmpty { mutated[Int(random.next() % UInt64(mutated.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1) }
            if let again = decode(mutated) { XCTAssertEqual(encode(again), mutated) }
        }
    }
}
