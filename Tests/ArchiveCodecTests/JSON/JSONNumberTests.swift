import TestSupport
import XCTest

@testable import ArchiveCodec

final class JSONNumberTests: XCTestCase {
    /// `readDigits` reads eight bytes at a time where eight remain: for runs of every length
    /// up to past three words, ended by every kind of byte that is no digit (and by the end
    /// of the text), at every distance from the end, it finds where the run ends and its
    /// value as a digit-at-a-time loop does.
    func testReadDigitsMatchesADigitAtATimeRead() {
        // Bytes next to the digits in ASCII and past it, and those whose high nibble is 3.
        let enders: [UInt8?] = [nil, 0x2F, 0x3A, 0x3F, 0x2E, 0x65, 0x20, 0x00, 0x7D, 0x80, 0xF9, 0xFA, 0xFF, 0x13]
        for count in 0...27 {
            for ender in enders {
                for trailing in 0..<10 {
                    let digits = (0..<count).map { UInt8(0x30 + (7 &* $0 &+ count) % 10) }
                    var text: [UInt8] = [UInt8(ascii: "[")] + digits
                    if let ender { text.append(ender) }
                    text += [UInt8](repeating: UInt8(ascii: "9"), count: ender == nil ? 0 : trailing)
                    var expected: UInt64 = 0
                    for digit in digits { expected = expected &* 10 &+ UInt64(digit - 0x30) }
                    var value: UInt64 = 0
                    let end = text.withUnsafeBufferPointer { JSONNumber.readDigits($0, from: 1, into: &value) }
                    XCTAssertEqual(end, 1 + count, "\(count) digits, ender \(String(describing: ender)), \(trailing) after")
                    XCTAssertEqual(value, expected, "\(count) digits, ender \(String(describing: ender)), \(trailing) after")
                }
            }
        }
    }

    /// Digits add to the value already read (a fraction's to its integer's).
    func testReadDigitsContinuesTheValueGiven() {
        let text = Array("123456789012;".utf8)
        var value: UInt64 = 42
        let end = text.withUnsafeBufferPointer { JSONNumber.readDigits($0, from: 0, into: &value) }
        XCTAssertEqual(end, 12)
        XCTAssertEqual(value, 42_123_456_789_012)
    }

    /// Numbers of every length read as Swift's own parsers read them, in a document or at its
    /// end: integers signed and unsigned, decimals, exponents; refusals stay refusals.
    func testReadMatchesSwiftsParsers() throws {
        var texts: [String] = []
        for length in 1...22 {
            // No leading zero: the first digit is 1 to 9.
            let digits = (0..<length).map { String($0 == 0 ? 1 + length % 9 : (3 &* $0 &+ length) % 10) }.joined()
            texts += [digits, "-" + digits, digits + ".5", "-0." + digits, digits + "e3", digits + "." + digits]
        }
        texts += ["0", "-0", "0.0", "18446744073709551615", "9223372036854775807", "-9223372036854775808", "12345678.25", "1.5E-3"]
        for text in texts {
            for suffix in ["", ",", "]", " "] {
                let bytes = Array((text + suffix).utf8)
                let isInteger = !text.contains(".") && !text.contains("e") && !text.contains("E")
                if isInteger, Int64(text) == nil, UInt64(text) == nil {
                    XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { (source) throws(CodecError) in try JSONNumber.read(source, at: 0) }, text)
                    continue
                }
                let read = try bytes.withUnsafeBufferPointer { (source) throws(CodecError) in try JSONNumber.read(source, at: 0) }
                XCTAssertEqual(read.end, text.utf8.count, text)
                if isInteger, let signed = Int64(text) {
                    XCTAssertEqual(read.number, .signed(signed), text)
                } else if isInteger, let unsigned = UInt64(text) {
                    XCTAssertEqual(read.number, .unsigned(unsigned), text)
                } else {
                    XCTAssertEqual(read.number, .real(Double(text)!), text)
                }
            }
        }
        // A leading zero ends the number: what follows is the parser's to refuse.
        let zero = try Array("01".utf8).withUnsafeBufferPointer { (source) throws(CodecError) in try JSONNumber.read(source, at: 0) }
        XCTAssertEqual(zero.number, .signed(0))
        XCTAssertEqual(zero.end, 1)
        for refused in ["-", "-a", "1.", "1.e5", "1e", "1e+", "18446744073709551616", "-9223372036854775809", "1e400"] {
            let bytes = Array(refused.utf8)
            XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { (source) throws(CodecError) in try JSONNumber.read(source, at: 0) }, refused)
        }
    }
    /// `end` ends every number where `read` does and refuses what `read` refuses, the long
    /// decimals it checks without converting among them (a 309-digit integer part can pass a
    /// double's range).
    func testEndAgreesWithRead() {
        var texts = ["0", "-0", "0.5", "-0.25", "00.5", "01", "1.", "-.5", "1.e5", "1.5e3", "1.5E-3", "1e400", "-", "1.5.5"]
        for length in [1, 15, 16, 17, 18, 19, 25, 300, 307, 308, 309, 310] {
            let nines = String(repeating: "9", count: length)
            let one = "1" + String(repeating: "0", count: length - 1)
            texts += [nines + ".5", "-" + nines + ".5", one + ".5", "0." + nines, "1." + nines, nines + "." + nines + "e-2", nines]
        }
        for text in texts {
            for suffix in ["", ",", "]", " ", "e", "x"] {
                let bytes = Array((text + suffix).utf8)
                bytes.withUnsafeBufferPointer { source in
                    let read = Result { () throws(CodecError) in try JSONNumber.read(source, at: 0) }
                    let end = Result { () throws(CodecError) in try JSONNumber.end(source, at: 0) }
                    switch (read, end) {
                    case (.success(let read), .success(let end)): XCTAssertEqual(read.end, end, text + suffix)
                    case (.failure(let read), .failure(let end)): XCTAssertEqual(read.message, end.message, text + suffix)
                    default: XCTFail("\(text + suffix): read \(read), end \(end)")
                    }
                }
            }
        }
    }
    /// Decimals of 16 to 19 digits without exponent read as `Double(String)` reads them: random
    /// digits with the point anywhere, leading zeros after it, and ties between two doubles
    /// (an odd integer past 2^53, a half past 2^52), which go to the even one.
    func testLongDecimalsReadAsSwiftReadsThem() throws {
        var generator = TestRandom(for: self)
        var texts: [String] = []
        for _ in 0..<60_000 {
            let count = Int.random(in: 16...19, using: &generator)
            var digits = (0..<count).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            if Bool.random(using: &generator) { digits = String(repeating: "0", count: Int.random(in: 1...6, using: &generator)) + digits.dropFirst(6) }
            let point = Int.random(in: 1..<digits.count, using: &generator)
            var integer = String(digits.prefix(point))
            while integer.count > 1, integer.first == "0" { integer.removeFirst() }
            texts.append(integer + "." + digits.dropFirst(point))
        }
        for odd in stride(from: UInt64(1) << 53 + 1, to: UInt64(1) << 53 + 400, by: 2) { texts += ["\(odd).0", "\(odd).00", "\(odd - 2).9"] }
        for whole in stride(from: UInt64(1) << 52, to: UInt64(1) << 52 + 200, by: 1) { texts += ["\(whole).5", "\(whole).50", "\(whole).49"] }
        texts += ["0.0000000000000000", "0.1000000000000000001", "9999999999999999999.9", "0.9999999999999999999", "1.0000000000000000001"]
        for text in texts {
            for sign in ["", "-"] {
                let bytes = Array((sign + text).utf8)
                let read = try bytes.withUnsafeBufferPointer { (source) throws(CodecError) in try JSONNumber.read(source, at: 0) }
                XCTAssertEqual(read.end, bytes.count, sign + text)
                guard case .real(let value) = read.number else { return XCTFail("\(sign + text): \(read.number)") }
                XCTAssertEqual(value.bitPattern, Double(sign + text)!.bitPattern, sign + text)
            }
        }
    }

    /// `exactDecimal` against `Double(String)` for mantissas of every bit length and every
    /// power of ten it divides by.
    func testExactDecimalOverEveryDivisor() {
        var generator = TestRandom(for: self)
        for fractionDigits in 1...19 {
            for _ in 0..<2_000 {
                let mantissa = generator.next() >> UInt64.random(in: 0...63, using: &generator)
                let value = JSONNumber.exactDecimal(mantissa: mantissa, fractionDigits: fractionDigits)
                var digits = String(mantissa)
                if digits.count <= fractionDigits { digits = String(repeating: "0", count: fractionDigits - digits.count + 1) + digits }
                digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fractionDigits))
                XCTAssertEqual(value.bitPattern, Double(digits)!.bitPattern, "\(mantissa) / 10^\(fractionDigits)")
            }
        }
    }
}
