import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Text after UTF-8's byte order mark (`DataText.markedText`): `{"$text": "…", "$bom": "utf8"}`
/// in every format's readable view, written back byte for byte by every encoder; the mark alone,
/// text that is not text after it, and UTF-16 keep base64.
final class MarkedTextTests: XCTestCase {
    private static let mark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private func decode(_ bytes: [UInt8]) throws -> String {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false, maxDepth: nil, numbers: .nonFinite, nested: nil)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
        XCTAssertEqual(jsonNesting(text), plan.depth)
        return String(decoding: text, as: UTF8.self)
    }

    private func encode(_ json: String) throws -> [UInt8] { try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary) }

    private func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    func testTheRule() {
        func marked(_ bytes: [UInt8]) -> String? {
            bytes.withUnsafeBufferPointer { DataText.markedText($0).map { String(decoding: $0.text, as: UTF8.self) } }
        }
        XCTAssertEqual(marked(Self.mark + Array("héllo\n".utf8)), "héllo\n")
        XCTAssertNil(marked(Self.mark), "the mark alone")
        XCTAssertNil(marked(Self.mark + [0x01]), "a control character")
        XCTAssertNil(marked(Self.mark + [0xC3]), "not UTF-8")
        XCTAssertNil(marked(Self.mark + Array("<?xml version=\"1.0\"?><plist/>".utf8)), "a document --nested decodes")
        XCTAssertNil(marked([0xFE, 0xFF, 0x00, 0x41]), "UTF-16 keeps base64")
        XCTAssertNil(marked(Array("hello".utf8)), "no mark")
        // What is text is unchanged: marked text was text before, with U+FEFF as its first character.
        for value in [Self.mark + Array("hi".utf8), Self.mark, Self.mark + [0x01], [0xFF, 0xFE, 0x41, 0x00]] {
            let plain = value.withUnsafeBufferPointer(DataText.isPlainText)
            XCTAssertEqual(value.withUnsafeBufferPointer(DataText.isText), plain, "\(value)")
        }
    }

    /// A plain property list, a keyed archive (NSData, NSMutableData, a shared NSData with `$id`,
    /// inline bytes) and a typedstream: each reads `$text` with `$bom` and comes back the same.
    func testEveryFormatWritesTheMarkAndReadsItBack() throws {
        let html = Self.mark + Array("<html>é".utf8)
        let text = Self.mark + Array("Grüße\n".utf8)
        let plain = try encode(#"{"$propertyList":{"t":{"$data":"\#(base64(text))"},"h":{"$data":"\#(base64(html))"}}}"#)
        let plainJSON = try decode(plain)
        XCTAssertTrue(plainJSON.contains(#""t":{"$text":"Grüße\n","$bom":"utf8"}"#), plainJSON)
        XCTAssertTrue(plainJSON.contains(#""h":{"$data":"\#(base64(html))","$kind":{"name":"utf8"}}"#), plainJSON)
        XCTAssertEqual(try encode(plainJSON), plain)

        let keyed = try buildArchive([
            .object("Box", [("a", .uid(2)), ("m", .uid(3)), ("inline", .data(text)), ("b", .uid(2))]),
            .data(text),
            .object("NSMutableData", [("NS.data", .data(text))])
        ])
        let keyedJSON = try decode(keyed)
        XCTAssertTrue(keyedJSON.contains(#""inline":{"$bytesText":"Grüße\n","$bom":"utf8"}"#), keyedJSON)
        XCTAssertTrue(keyedJSON.contains(#""m":{"$class":"NSMutableData","$text":"Grüße\n","$bom":"utf8"}"#), keyedJSON)
        XCTAssertEqual(keyedJSON.components(separatedBy: #""$bom":"utf8""#).count - 1, 4, keyedJSON)
        let again = try Archive(parsing: JSONDocument(parsing: Array(keyedJSON.utf8)).archive(format: .binary))
        XCTAssertNil(try Archive(parsing: keyed).difference(from: again))

        let stream = try encode(#"{"$typedstream":[{"@":{"$data":"\#(base64(text))"}},{"@":{"$class":"NSMutableData","$data":"\#(base64(text))"}}]}"#)
        let streamJSON = try decode(stream)
        XCTAssertEqual(
            streamJSON, #"{"$typedstream":[{"@":{"$text":"Grüße\n","$bom":"utf8"}},{"@":{"$class":"NSMutableData","$text":"Grüße\n","$bom":"utf8"}}]}"#)
        XCTAssertEqual(try encode(streamJSON), stream)
        // The plain view: the text alone.
        XCTAssertTrue(String(decoding: try Archive(parsing: plain).plainJSON(pretty: false), as: UTF8.self).contains(#""t":"Grüße\n""#))
    }

    func testAMarkThatIsNotOneIsRefused() {
        for (json, words) in [
            (#"{"$propertyList":{"t":{"$text":"x","$bom":"utf16"}}}"#, "$bom names the byte order mark"),
            (#"{"$propertyList":{"t":{"$text":"x","$bom":true}}}"#, "$bom names the byte order mark"),
            (#"{"x":{"$class":"NSMutableData","$data":"AAEC","$bom":"utf8"}}"#, "$bom stands beside $text or $bytesText"),
            (#"{"$typedstream":[{"@":{"$data":"AAEC","$bom":"utf8"}}]}"#, "$bom goes with $text only")
        ] {
            XCTAssertThrowsError(try encode(json), json) { error in
                XCTAssertTrue((error as! CodecError).message.contains(words), "\(json): \((error as! CodecError).message)")
            }
        }
    }
}
