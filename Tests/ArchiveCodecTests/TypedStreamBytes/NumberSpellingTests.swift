import XCTest

@testable import ArchiveCodec

final class NumberSpellingTests: XCTestCase {
    /// `value` spelled in `form`, the bytes written and no more.
    private func spelled(_ value: Int64, _ form: NumberForm, bigEndian: Bool) -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: 16)
        let count = out.withUnsafeMutableBufferPointer { NumberSpelling.writeInteger(value, form: form, bigEndian: bigEndian, to: $0.baseAddress!) }
        return Array(out[..<count])
    }

    private func readBack(_ bytes: [UInt8], bigEndian: Bool) -> (value: Int64, count: Int) {
        // Read from an exact-size buffer: a reader must not look past the spelling.
        bytes.withUnsafeBufferPointer { ($0.baseAddress.map { NumberSpelling.readInteger(at: $0, bigEndian: bigEndian) } ?? 0, NumberSpelling.count(at: $0.baseAddress!)) }
    }

    func testIntegerSpellingsAreApplesBytes() {
        XCTAssertEqual(spelled(5, .byte, bigEndian: false), [0x05])
        XCTAssertEqual(spelled(-110, .byte, bigEndian: false), [0x92])
        XCTAssertEqual(spelled(300, .int16, bigEndian: false), [0x81, 0x2C, 0x01])
        XCTAssertEqual(spelled(300, .int16, bigEndian: true), [0x81, 0x01, 0x2C])
        XCTAssertEqual(spelled(-2, .int32, bigEndian: false), [0x82, 0xFE, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(spelled(1 << 40, .int64, bigEndian: true), [0x87, 0, 0, 0x01, 0, 0, 0, 0, 0])
    }

    /// Every spelling of values at the edges of each width reads back as the value, in its
    /// own count of bytes, in both byte orders.
    func testSpellingsReadBack() {
        let values: [Int64] = [0, 1, -1, 127, -110, 128, -111, 32767, -32767, -32768, 32768, Int64(Int32.max), Int64(Int32.min), 1 << 40, .max, .min]
        for bigEndian in [false, true] {
            for value in values {
                for form in [NumberForm.byte, .int16, .int32, .int64] where form.holds(value) {
                    let bytes = spelled(value, form, bigEndian: bigEndian)
                    let back = readBack(bytes, bigEndian: bigEndian)
                    XCTAssertEqual(back.value, value, "\(value) as \(form), big-endian \(bigEndian)")
                    XCTAssertEqual(back.count, bytes.count, "\(value) as \(form)")
                }
            }
        }
    }

    func testRealsReadBackAsThemselvesOrFromAnInteger() {
        for bigEndian in [false, true] {
            for real in [0.1, -0.0, .infinity, Double.nan, 1e300] {
                var out = [UInt8](repeating: 0, count: 16)
                let count = out.withUnsafeMutableBufferPointer { NumberSpelling.writeReal(bits: real.bitPattern, size: 8, bigEndian: bigEndian, to: $0.baseAddress!) }
                XCTAssertEqual(count, 9)
                let bytes = Array(out[..<count])
                let bits = bytes.withUnsafeBufferPointer { NumberSpelling.readReal(at: $0.baseAddress!, size: 8, bigEndian: bigEndian) }
                XCTAssertEqual(bits, real.bitPattern, "\(real)")
                XCTAssertEqual(bytes.withUnsafeBufferPointer { NumberSpelling.count(at: $0.baseAddress!) }, 9)
            }
            let whole = spelled(-3, .byte, bigEndian: bigEndian)
            XCTAssertEqual(whole.withUnsafeBufferPointer { NumberSpelling.readReal(at: $0.baseAddress!, size: 8, bigEndian: bigEndian) }, (-3.0).bitPattern)
            XCTAssertEqual(whole.withUnsafeBufferPointer { NumberSpelling.readReal(at: $0.baseAddress!, size: 4, bigEndian: bigEndian) }, UInt64(Float(-3).bitPattern))
        }
    }
}
