import XCTest

@testable import ArchiveCodec

/// `BinaryPlistWriter`'s text: ASCII as it stands, anything else as big-endian UTF-16.
final class BinaryPlistWriterTests: XCTestCase {
    private func utf16BigEndian(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0xAA]  // what the output held before is kept
        Array(text.utf8).withUnsafeBufferPointer { BinaryPlistWriter.appendUTF16BigEndian($0, to: &out) }
        return out
    }

    func testTextOfEveryUTF8LengthBecomesItsUTF16Units() {
        for text in ["", "a", "café", "€uro", "東京 大阪", "😀", "a😀b", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", String(repeating: "é日😀", count: 40)] {
            let expected: [UInt8] = [0xAA] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }
            XCTAssertEqual(utf16BigEndian(text), expected, text)
        }
    }

    func testAStringIsWrittenASCIIOrUTF16() {
        func string(_ text: String) -> [UInt8] {
            var out: [UInt8] = []
            Array(text.utf8).withUnsafeBufferPointer { BinaryPlistWriter.appendString($0, to: &out) }
            return out
        }
        XCTAssertEqual(string("abc"), [0x53, 0x61, 0x62, 0x63])
        XCTAssertEqual(string("é"), [0x61, 0x00, 0xE9])
        // Fifteen units and more: the count follows the marker as an integer object.
        XCTAssertEqual(Array(string(String(repeating: "é", count: 15)).prefix(3)), [0x6F, 0x10, 15])
        XCTAssertEqual(string(String(repeating: "é", count: 15)).count, 3 + 30)
    }
}
