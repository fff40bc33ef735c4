import XCTest

@testable import ArchiveCodec

/// Messages quote at most a few hundred bytes of the input, cut between scalars.
final class TextExcerptTests: XCTestCase {
    func testShortTextIsKeptWhole() {
        XCTAssertEqual(TextExcerpt.of("a short message"), "a short message")
        XCTAssertEqual(TextExcerpt.quote("key"), "key")
        let exact = String(repeating: "x", count: TextExcerpt.maximumBytes)
        XCTAssertEqual(TextExcerpt.of(exact), exact)
    }

    func testLongTextKeepsItsStartAndEnd() {
        let text = "unknown element <" + String(repeating: "n", count: 1_000_000) + "> in the plist"
        let excerpt = TextExcerpt.of(text)
        XCTAssertLessThanOrEqual(excerpt.utf8.count, TextExcerpt.headBytes + TextExcerpt.tailBytes + 3)
        XCTAssertTrue(excerpt.hasPrefix("unknown element <nnn"))
        XCTAssertTrue(excerpt.hasSuffix("nnn> in the plist"))
        XCTAssertTrue(excerpt.contains("…"))
    }

    func testCutsFallBetweenScalars() {
        // Four-byte scalars at every offset: no cut may split one.
        for shift in 0..<4 {
            let text = String(repeating: "a", count: shift) + String(repeating: "😀", count: 400)
            for excerpt in [TextExcerpt.of(text), TextExcerpt.quote(text)] {
                XCTAssertEqual(String(validating: Array(excerpt.utf8), as: UTF8.self), excerpt)
                XCTAssertFalse(excerpt.unicodeScalars.contains("\u{FFFD}"), "shift \(shift)")
            }
            XCTAssertLessThanOrEqual(TextExcerpt.quote(text).utf8.count, TextExcerpt.quoteBytes + 3)
        }
    }

    /// The codec's messages and paths for input with a huge name stay small.
    func testErrorsQuoteLittleOfAHugeName() throws {
        let name = String(repeating: "k", count: 2_000_000)
        let xml = Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><\(name)/></plist>".utf8)
        XCTAssertThrowsError(try Archive(parsing: xml)) { error in
            let error = error as! CodecError
            XCTAssertLessThanOrEqual(error.message.utf8.count, TextExcerpt.maximumBytes + 3, error.message)
            XCTAssertTrue(error.message.hasPrefix("unknown element <kkk"), error.message)
        }
        let json = Array("{\"$propertyList\":{\"a\":{\"$\(name)\":1}}}".utf8)
        XCTAssertThrowsError(try JSONDocument(parsing: json).archive(format: .binary)) { error in
            let error = error as! CodecError
            XCTAssertLessThanOrEqual(error.message.utf8.count, TextExcerpt.maximumBytes + 3, error.message)
            XCTAssertLessThanOrEqual(error.jsonPath?.utf8.count ?? 0, TextExcerpt.maximumBytes + 3)
        }
    }
}
