import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `DecimalText`: an NSDecimal's words, exponent and sign as exact decimal text and back.
final class DecimalTextTests: XCTestCase {
    private func decimal(_ mantissa: UInt64, _ exponent: Int8, negative: Bool = false) -> DecimalText {
        DecimalText(words: (0..<8).map { $0 < 4 ? UInt16(truncatingIfNeeded: mantissa >> (16 * UInt64($0))) : 0 }, exponent: exponent, negative: negative)
    }

    func testText() {
        XCTAssertEqual(decimal(12345, -2, negative: true).text, "-123.45")
        XCTAssertEqual(decimal(0, 0).text, "0")
        XCTAssertEqual(decimal(0, -2).text, "0.00")
        XCTAssertEqual(decimal(0, 3).text, "0E3")
        XCTAssertEqual(decimal(15, -1).text, "1.5")
        XCTAssertEqual(decimal(150, -2).text, "1.50")
        XCTAssertEqual(decimal(12, 5).text, "12E5")
        XCTAssertEqual(decimal(5, -3, negative: true).text, "-0.005")
        XCTAssertEqual(decimal(1, -128).text, "0." + String(repeating: "0", count: 127) + "1")
        XCTAssertEqual(DecimalText.notANumber.text, "NaN")
        let largest = DecimalText(words: [UInt16](repeating: 0xFFFF, count: 8), exponent: 127, negative: false)
        XCTAssertEqual(largest.text, "340282366920938463463374607431768211455E127")
        XCTAssertEqual(largest.length, 8)
        XCTAssertEqual(decimal(0x1_0000, 0).length, 2)
        XCTAssertEqual(decimal(0, 0).length, 0)
    }

    func testTextReadsBack() {
        for value in [
            decimal(12345, -2, negative: true), decimal(0, 0), decimal(0, -7), decimal(0, 9), decimal(12, 5), decimal(1, -128), decimal(.max, 127),
            DecimalText.notANumber, DecimalText(words: [UInt16](repeating: 0xFFFF, count: 8), exponent: -128, negative: true)
        ] {
            XCTAssertEqual(DecimalText(text: Array(value.text.utf8)), value, value.text)
        }
        var random = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let words = (0..<8).map { _ in random.next() % 3 == 0 ? 0 : UInt16(truncatingIfNeeded: random.next()) }
            let value = DecimalText(words: words, exponent: Int8(truncatingIfNeeded: random.next()), negative: random.next() & 1 == 0)
            guard !(value.negative && value.length == 0) else { continue }
            XCTAssertEqual(DecimalText(text: Array(value.text.utf8)), value, value.text)
        }
    }

    /// Other spellings of the same value are read as what they say.
    func testOtherSpellings() {
        XCTAssertEqual(DecimalText(text: Array("1.2e3".utf8)), decimal(12, 2))
        XCTAssertEqual(DecimalText(text: Array("12E+5".utf8)), decimal(12, 5))
        XCTAssertEqual(DecimalText(text: Array("007".utf8)), decimal(7, 0))
        XCTAssertEqual(DecimalText(text: Array("5E-3".utf8)), decimal(5, -3))
    }

    func testRefused() {
        for text in [
            "", "-", "-0", "-0.00", "1.", ".5", "1e", "1e+", "abc", "1,5", " 1", "1 ", "+1", "nan", "Infinity", "0x10",
            "340282366920938463463374607431768211456", "1E128", "1E-129", "0." + String(repeating: "0", count: 128) + "1",
            String(repeating: "1", count: 201), "1E" + String(repeating: "9", count: 30)
        ] {
            XCTAssertNil(DecimalText(text: Array(text.utf8)), text)
        }
    }

    func testMantissaBytes() {
        let value = decimal(0x0102_0304, 0)
        XCTAssertEqual(value.mantissaBytes, [4, 3, 2, 1] + [UInt8](repeating: 0, count: 12))
        XCTAssertEqual(value.mantissaBytes.withUnsafeBufferPointer { DecimalText.words(ofMantissa: $0) }, value.words)
        XCTAssertNil([UInt8](repeating: 0, count: 15).withUnsafeBufferPointer { DecimalText.words(ofMantissa: $0) })
    }

    /// Foundation's own decimals (swift-corelibs-foundation's `Decimal`, its fields as
    /// NSDecimalNumber archives them) read as text that Foundation reads back as the same value.
    func testFoundationsDecimals() throws {
        for text in ["-123.45", "0", "1.5", "123456789012345678901234567890123456789", "0.001", "-7", "65536", "18446744073709551616"] {
            let value = try XCTUnwrap(Decimal(string: text))
            let fields = try ValueObjectFormsTests.fields(of: value)
            let ours = DecimalText(words: fields.words, exponent: Int8(fields.exponent), negative: fields.negative)
            XCTAssertEqual(Decimal(string: ours.text), value, text)
            XCTAssertEqual(ours.length, fields.length, text)
        }
    }
}
