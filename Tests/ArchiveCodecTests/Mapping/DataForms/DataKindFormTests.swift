import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `$kind` in every format's readable view (`DataForm.readableKind`) and back through every
/// encoder: beside `$data` and `$bytes`, under `$class` and `$id`, in a typedstream's NSData;
/// not beside text, bookmarks or nested documents, not in the raw and plain views; checked
/// against the bytes on encode.
final class DataKindFormTests: XCTestCase {
    private static let webArchive = "webarchive/webarchivecodable_adele-for-vogue-in-2021.webarchive"

    private func decode(_ bytes: [UInt8], view: ArchiveView = .readable, maxDepth: Int? = nil, nested: Bool = false) throws -> (json: [UInt8], depth: Int) {
        let archive = try Archive(parsing: bytes)
        let policy = nested ? DecodePolicy(stackSize: 64 << 20) : nil
        let plan = try archive.plan(view: view, pretty: false, maxDepth: maxDepth, numbers: .nonFinite, nested: policy)
        var text: [UInt8] = []
        try archive.writeJSON(view: view, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
        return (text, plan.depth)
    }

    private func encode(_ json: [UInt8]) throws -> [UInt8] { try JSONDocument(parsing: json).archive(format: .binary) }

    private func encode(_ json: String) throws -> [UInt8] { try encode(Array(json.utf8)) }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private func assertSame(_ original: [UInt8], _ json: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
        let again = try Archive(parsing: encode(json))
        XCTAssertNil(try Archive(parsing: original).difference(from: again), file: file, line: line)
    }

    private func assertRefused(_ json: String, at path: String, saying words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try encode(json), file: file, line: line) { error in
            let error = error as! CodecError
            XCTAssertEqual(error.kind, .invalidDocument, file: file, line: line)
            XCTAssertEqual(error.jsonPath, path, file: file, line: line)
            XCTAssertTrue(error.message.contains(words), error.message, file: file, line: line)
        }
    }

    /// A tiny PNG header of 24 × 16 pixels, a PDF's first line, a GIF's header.
    private static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 24, 0, 0, 0, 16, 8, 6, 0, 0, 0]
    private static let pdf: [UInt8] = Array("%PDF-1.4\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
    private static let gif: [UInt8] = Array("GIF89a".utf8) + [2, 0, 3, 0, 0x80, 0, 0]
    private static let pngKind = #""$kind":{"name":"png","width":24,"height":16}"#

    /// The web archive's image reads with its kind and size; its response (a binary property
    /// list) and its HTML (text) without; the file comes back the same, byte for byte.
    func testTheWebArchivesImageSaysItIsAPNG() throws {
        let bytes = try Fixtures.publicFile(Self.webArchive)
        let (json, depth) = try decode(bytes)
        let document = try JSONSerialization.jsonObject(with: Data(json)) as! [String: Any]
        let list = document["$propertyList"] as! [String: Any]
        let image = (list["WebSubresources"] as! [[String: Any]])[0]
        let data = image["WebResourceData"] as! [String: Any]
        XCTAssertEqual(Set(data.keys), ["$data", "$kind"])
        let kind = data["$kind"] as! [String: Any]
        XCTAssertEqual(kind["name"] as? String, "png")
        XCTAssertEqual(kind["width"] as? Int, 413)
        XCTAssertEqual(kind["height"] as? Int, 562)
        XCTAssertNil((image["WebResourceResponse"] as! [String: Any])["$kind"], "a binary property list: a document --nested decodes")
        // The page's HTML begins with `<`, as an XML property list does: base64 for `--nested`
        // (`DataText`), and no signature.
        XCTAssertEqual(((list["WebMainResource"] as! [String: Any])["WebResourceData"] as? [String: Any])?.keys.sorted(), ["$data"])
        XCTAssertEqual(jsonNesting(json), depth)
        try assertSame(bytes, json)
        // The raw view keeps base64 alone; the nested view decodes the response, no kind beside it.
        XCTAssertFalse(text(try decode(bytes, view: .raw).json).contains("$kind"))
        let nested = text(try decode(bytes, nested: true).json)
        XCTAssertEqual(nested.components(separatedBy: "\"$kind\"").count, 2, "the image's only")
        XCTAssertTrue(nested.contains(#""WebResourceResponse":{"$data":{"$keyedArchive""#) || nested.contains(#""WebResourceResponse":{"$data":{"$propertyList""#))
        // The plain view has no `$` keys but `$class`, `$id`, `$ref`: the image is its base64.
        let plain = text(try Archive(parsing: bytes).plainJSON(pretty: false))
        XCTAssertFalse(plain.contains("$kind"))
        XCTAssertTrue(plain.contains(#""WebResourceData":"iVBORw0KGgo"#))
    }

    /// In a keyed archive: NSData, NSMutableData under `$class`, a shared NSData under `$id`,
    /// inline bytes; text and bytes without a signature have none. Depth counted, each read back.
    func testKindsInAKeyedArchive() throws {
        let bytes = try buildArchive([
            .object("Box", [("a", .uid(2)), ("b", .uid(2)), ("m", .uid(3)), ("inline", .data(Self.gif)), ("plain", .data([1, 2, 3])), ("note", .uid(4)), ("c", .uid(5))]),
            .data(Self.png),
            .object("NSMutableData", [("NS.data", .data(Self.pdf))]),
            .data(Array("hello".utf8)),
            .data(Self.png)
        ])
        let (json, depth) = try decode(bytes)
        let text = text(json)
        let png = Data(Self.png).base64EncodedString()
        XCTAssertTrue(text.contains(#","$data":"\#(png)",\#(Self.pngKind)}"#), text)
        XCTAssertTrue(text.contains(#""m":{"$class":"NSMutableData","$data":"\#(Data(Self.pdf).base64EncodedString())","$kind":{"name":"pdf"}}"#), text)
        XCTAssertTrue(text.contains(#""inline":{"$bytes":"R0lGODlhAgADAIAAAA==","$kind":{"name":"gif","width":2,"height":3}}"#), text)
        XCTAssertTrue(text.contains(#""plain":{"$bytes":"AQID"}"#), text)
        XCTAssertTrue(text.contains(#""note":{"$text":"hello"}"#), text)
        XCTAssertEqual(text.components(separatedBy: "\"$kind\"").count - 1, 5, text)
        XCTAssertEqual(jsonNesting(json), depth)
        try assertSame(bytes, json)
        // Without the kinds (what a person may delete): the same archive.
        try assertSame(bytes, Array(text.replacingOccurrences(of: #",\"\$kind\":\{[^}]*\}"#, with: "", options: .regularExpression).utf8))
    }

    /// A bound the kinds do not fit leaves them out first, as it does accounts.
    func testABoundTooSmallForTheKindsLeavesThemOut() throws {
        let bytes = try encode(#"{"$propertyList":[[{"$data":"\#(Data(Self.png).base64EncodedString())"}]]}"#)
        let (full, depth) = try decode(bytes)
        XCTAssertEqual(depth, 5)
        XCTAssertTrue(text(full).contains(Self.pngKind))
        let (bounded, planned) = try decode(bytes, maxDepth: 4)
        XCTAssertEqual(planned, 4)
        XCTAssertFalse(text(bounded).contains("$kind"))
        try assertSame(bytes, bounded)
    }

    /// A typedstream's NSData (readable form) and NSMutableData take `$kind` beside `$data`, as
    /// the other formats write it; the kind is checked on encode.
    func testKindsInATypedStream() throws {
        let png = Data(Self.png).base64EncodedString()
        let bytes = try encode(#"{"$typedstream":[{"@":{"$data":"\#(png)"}},{"@":{"$class":"NSMutableData","$data":"\#(Data(Self.pdf).base64EncodedString())"}}]}"#)
        let (json, depth) = try decode(bytes)
        XCTAssertEqual(
            text(json),
            #"{"$typedstream":[{"@":{"$data":"\#(png)",\#(Self.pngKind)}},{"@":{"$class":"NSMutableData","$data":"\#(Data(Self.pdf).base64EncodedString())","$kind":{"name":"pdf"}}}]}"#)
        XCTAssertEqual(jsonNesting(json), depth)
        XCTAssertEqual(try encode(json), bytes)
        assertRefused(
            #"{"$typedstream":[{"@":{"$data":"\#(png)","$kind":{"name":"png","width":25,"height":16}}}]}"#, at: #"$.$typedstream[0]["@"].$kind.width"#,
            saying: "$kind disagrees with the data's bytes here: the bytes say 24")
        assertRefused(#"{"$typedstream":[{"@":{"$text":"hi","$kind":{"name":"pdf"}}}]}"#, at: #"$.$typedstream[0]["@"].$kind"#, saying: "$kind goes with $data only")
    }

    /// A kind edited so that it disagrees with the bytes, or given beside bytes without a
    /// signature, is refused at its path; members reordered, it is accepted.
    func testAnEditedKindIsRefusedWhereItDiffers() throws {
        let png = Data(Self.png).base64EncodedString()
        assertRefused(
            #"{"$propertyList":{"i":{"$data":"\#(png)","$kind":{"name":"jpeg","width":24,"height":16}}}}"#, at: "$.$propertyList.i.$kind.name",
            saying: #"the bytes say "png""#)
        assertRefused(
            #"{"$propertyList":{"i":{"$data":"\#(png)","$kind":{"name":"png"}}}}"#, at: "$.$propertyList.i.$kind", saying: "an object with the keys name, width, height")
        assertRefused(#"{"$propertyList":{"i":{"$data":"AAEC","$kind":{"name":"png"}}}}"#, at: "$.$propertyList.i.$kind", saying: "begin with no signature this knows")
        assertRefused(#"{"$class":"A","x":{"$bytes":"AAEC","$kind":{"name":"png"}}}"#, at: "$.x.$kind", saying: "begin with no signature this knows")
        assertRefused(#"{"x":{"$string":"s","$kind":{"name":"png"}}}"#, at: "$.x.$kind", saying: "beside $data or $bytes")
        let reordered = try encode(#"{"$propertyList":{"i":{"$kind":{"height":16,"name":"png","width":24},"$data":"\#(png)"}}}"#)
        XCTAssertEqual(reordered, try encode(#"{"$propertyList":{"i":{"$data":"\#(png)"}}}"#))
        // A kind the readable view leaves out, written by hand and true, is accepted.
        XCTAssertNoThrow(try encode(#"{"$propertyList":{"i":{"$data":"YnBsaXN0MDDQCAAAAAAAAAEBAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAJ","$kind":{"name":"bplist"}}}}"#))
    }

    /// Text stays `$text`, never with a kind (a UTF-8 byte order mark and valid text after it
    /// is text, the mark named by `$bom`), and the depth counts no kind for it; bytes that are not text after their mark (a
    /// control character; markup, which begins as an XML property list would, for `--nested`)
    /// have the mark's kind.
    func testTextHasNoKind() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let values: [(String, [UInt8])] = [
            ("t", bom + Array("hello".utf8)), ("c", bom + [0x01]), ("h", bom + Array("<html></html>".utf8)), ("p", Array("%PDF-1.0 all text\n".utf8))
        ]
        let members = values.map { #""\#($0.0)":{"$data":"\#(Data($0.1).base64EncodedString())"}"# }.joined(separator: ",")
        let bytes = try encode("{\"$propertyList\":{\(members)}}")
        let (decoded, depth) = try decode(bytes)
        let json = text(decoded)
        XCTAssertEqual(jsonNesting(decoded), depth, "no kind counted for text")
        XCTAssertTrue(json.contains(#""p":{"$text":"%PDF-1.0 all text\n"}"#), json)
        XCTAssertTrue(json.contains(#""t":{"$text":"hello","$bom":"utf8"}"#), json)
        XCTAssertTrue(json.contains(#""c":{"$data":"77u/AQ==","$kind":{"name":"utf8"}}"#), json)
        XCTAssertTrue(json.contains(#""h":{"$data":"77u/PGh0bWw+PC9odG1sPg==","$kind":{"name":"utf8"}}"#), json)
        XCTAssertEqual(try encode(Array(json.utf8)), bytes)
    }
}
