import ArchiveCodec
import Foundation
import XCTest

/// The project's one JSON string escaper: what it escapes, and that JSON readers get the text back.
final class JSONStringTests: XCTestCase {
    func testEscapesWhatJSONRequires() {
        XCTAssertEqual(JSONString.quoted(""), "\"\"")
        XCTAssertEqual(JSONString.quoted("plain /v1/decode 200"), "\"plain /v1/decode 200\"")
        XCTAssertEqual(JSONString.quoted("say \"hi\" \\ back"), #""say \"hi\" \\ back""#)
        XCTAssertEqual(JSONString.quoted("a\nb\rc\td\u{8}e\u{C}f"), #""a\nb\rc\td\be\ff""#)
        XCTAssertEqual(JSONString.quoted("\u{0}\u{1F}\u{7F}"), "\"\\u0000\\u001f\u{7F}\"")
        XCTAssertEqual(JSONString.quoted("é ☃ 𝄞"), "\"é ☃ 𝄞\"")
    }

    func testReadersGetTheTextBack() throws {
        let texts = [
            "", "x", "ctrl \u{1}\u{2}\u{1B}", "quote \" backslash \\ slash /", "emoji 🎉 and U+2028 \u{2028}",
            String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) })
        ]
        for text in texts {
            let json = "[" + JSONString.quoted(text) + "]"
            let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
            XCTAssertEqual(parsed, [text], json)
        }
    }
}
