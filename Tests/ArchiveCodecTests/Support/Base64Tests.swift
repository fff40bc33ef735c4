import TestSupport
import XCTest

@testable import ArchiveCodec

/// `Base64` is strict: one text per byte string. Decoding must give back every encoded length
/// and refuse, at the right offset, anything the encoder would not have written.
final class Base64Tests: XCTestCase {
    private func encoded(_ bytes: [UInt8]) -> [UInt8] {
        var text: [UInt8] = []
        bytes.withUnsafeBufferPointer { Base64.encode($0, into: &text) }
        return text
    }

    private func decoded(_ text: [UInt8]) -> (bytes: [UInt8], bad: Int?) {
        text.withUnsafeBufferPointer { Base64.decode($0) }
    }

    func testEveryLengthRoundTrips() {
        var generator = TestRandom(for: self)
        // Up to 200 bytes, and about the size from which the decoded bytes are allocated
        // uninitialized (`Array.init(count:placeholder:writing:)`: 4,096).
        for length in Array(0...200) + Array(3_068...3_075) + Array(4_093...4_099) + [9_000, 9_001, 9_002] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = encoded(bytes)
            XCTAssertEqual(text.count, Base64.encodedCount(length))
            let (back, bad) = decoded(text)
            XCTAssertNil(bad, "length \(length)")
            XCTAssertEqual(back, bytes, "length \(length)")
        }
        // Foundation agrees on the text.
        let sample: [UInt8] = Array(0...255)
        XCTAssertEqual(String(decoding: encoded(sample), as: UTF8.self), Data(sample).base64EncodedString())
    }

    func testBadTextIsRefusedWhereItBreaks() {
        let valid = Array("SGVsbG8sIHdvcmxkIQ==".utf8)  // "Hello, world!"
        XCTAssertEqual(decoded(valid).bytes, Array("Hello, world!".utf8))
        // A character outside the alphabet at every position (padding positions included).
        for position in valid.indices {
            for bad in [UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "_"), 0x00, 0x80, 0xFF] {
                var text = valid
                text[position] = bad
                // With the last `=` replaced, the one before it is a padding character that
                // does not end the text: the first bad character.
                let expected = position == valid.count - 1 ? position - 1 : position
                XCTAssertEqual(decoded(text).bad, expected, "byte \(bad) at \(position)")
            }
        }
        let cases: [(String, Int)] = [
            ("SGVsbG8", 7),  // not a multiple of four
            ("SGVsbG8=x", 9),
            ("S===", 1),  // three padding characters
            ("SG=v", 2),  // padding before the end
            ("=GVs", 0),
            ("SGVsbG9=", 6),  // bits under one padding character not zero ("Hel" + 'o' + 1 bit)
            ("SGVsbG==", 5)  // bits under two padding characters not zero
        ]
        for (text, offset) in cases {
            XCTAssertEqual(decoded(Array(text.utf8)).bad, offset, text)
        }
        XCTAssertEqual(decoded([]).bytes, [])
        XCTAssertNil(decoded([]).bad)
    }

    func testDocumentDataErrorsNameTheValue() {
        let json = #"{"$top":{"root":{"$class":"T","blob":{"$bytes":"SGVsbG8=="}}}}"#
        XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)) { error in
            let error = error as! CodecError
            XCTAssertTrue(error.message.contains("invalid base64"), "\(error)")
            XCTAssertEqual(error.jsonPath, "$.$top.root.blob.$bytes", "\(error)")
        }
    }
}
