import XCTest

@testable import ASCIIText

final class StringProtocolASCIITests: XCTestCase {
    func testLowercasingMapsASCIILettersOnly() {
        XCTAssertEqual("Content-TYPE: gZip".asciiLowercased(), "content-type: gzip")
        // The Kelvin sign and other non-ASCII letters stay as they are.
        XCTAssertEqual("\u{212A}EEP-ALIVE".asciiLowercased(), "\u{212A}eep-alive")
        XCTAssertEqual("ÉCOLE".asciiLowercased(), "École")
        XCTAssertEqual("@[`{".asciiLowercased(), "@[`{")
    }

    func testTrimmingTakesASCIIWhitespaceOnly() {
        XCTAssertEqual(" \t gzip \r\n".trimmingASCIIWhitespace(), "gzip")
        XCTAssertEqual("max\n".trimmingASCIIWhitespace(), "max")
        XCTAssertEqual("a b".trimmingASCIIWhitespace(), "a b")
        XCTAssertEqual(" \u{0B}\u{0C} ".trimmingASCIIWhitespace(), "")
        XCTAssertEqual("".trimmingASCIIWhitespace(), "")
        // Unicode's whitespace outside ASCII is text, as a peer comparing bytes sees it.
        XCTAssertEqual("\u{A0}gzip\u{85}".trimmingASCIIWhitespace(), "\u{A0}gzip\u{85}")
        XCTAssertEqual(" gzip ; q=1".split(separator: ";")[0].trimmingASCIIWhitespace(), "gzip")
    }

    func testTrimmingAndLowercasingInOneAgreesWithTheTwo() {
        for text in [" Application/JSON ", "\tMultipart/Form-Data\r\n", "", "  ", "\u{A0}TEXT\u{85}", "a B c", "\u{212A}", " x"] {
            XCTAssertEqual(text.trimmingASCIIWhitespaceLowercased(), text.trimmingASCIIWhitespace().asciiLowercased(), text)
        }
        XCTAssertEqual(" Text/JSON; charset=UTF-8".split(separator: ";")[0].trimmingASCIIWhitespaceLowercased(), "text/json")
    }

    func testWhitespaceBytes() {
        let spaces = (0...255).map(UInt8.init).filter(\.isASCIIWhitespace)
        XCTAssertEqual(spaces, [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20])
    }

    func testPrefixesCompareASCIILettersInEitherCase() {
        XCTAssertTrue("HTTPS://example.com".utf8.startsWithIgnoringASCIICase("https://"))
        XCTAssertTrue("http://".utf8.startsWithIgnoringASCIICase("http://"))
        XCTAssertFalse("http:/".utf8.startsWithIgnoringASCIICase("http://"))
        XCTAssertFalse("ftp://x".utf8.startsWithIgnoringASCIICase("http://"))
        // Only letters fold: '@' (0x40) is not '`' (0x60), '[' not '{'.
        XCTAssertFalse("@".utf8.startsWithIgnoringASCIICase("`"))
        XCTAssertFalse("[".utf8.startsWithIgnoringASCIICase("{"))
        XCTAssertTrue(Array("ANYthing".utf8).startsWithIgnoringASCIICase(""))
    }
}
