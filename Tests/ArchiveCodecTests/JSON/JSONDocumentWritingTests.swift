import TestSupport
import XCTest

@testable import ArchiveCodec

/// A parsed document's value written out again (`JSONDocument.write(_:to:)`,
/// `writeValue(at:pretty:to:)`): the text the writers would have made, compact or indented.
final class JSONDocumentWritingTests: XCTestCase {
    private func written(_ document: JSONDocument, _ path: String, pretty: Bool) throws -> String {
        var text: [UInt8] = []
        try document.writeValue(at: ReadablePath(parsing: path), pretty: pretty) { text.append(contentsOf: $0) }
        return String(decoding: text, as: UTF8.self)
    }

    /// `.` of a decoded archive is the decode's own text, compact and indented: the copy
    /// indents as the writers do.
    func testWholeDocumentIsTheDecodersText() throws {
        for name in ["scl-NSKeyedUnarchiver-ComplexTest.plist", "goios_dict.bin", "goios_primitives.bin"] {
            let archive = try Archive(parsing: Fixtures.bytes(name))
            let compact = try archive.json(view: .readable, pretty: false)
            let pretty = try archive.json(view: .readable, pretty: true)
            let document = try JSONDocument(parsing: compact)
            XCTAssertEqual(try written(document, ".", pretty: false), String(decoding: compact, as: UTF8.self) + "\n", name)
            XCTAssertEqual(try written(document, ".", pretty: true), String(decoding: pretty, as: UTF8.self), name)
        }
    }

    func testAValueInsideIsWrittenAlone() throws {
        let document = try JSONDocument(parsing: Array(#"{"a":{"$class":"NSMutableArray","$array":[1,{"k":"x\"y","e":[]},{}]},"s":"t\u00e9"}"#.utf8))
        XCTAssertEqual(try written(document, ".a[1]", pretty: false), #"{"k":"x\"y","e":[]}"# + "\n")
        XCTAssertEqual(try written(document, ".a[1]", pretty: true), "{\n  \"k\": \"x\\\"y\",\n  \"e\": []\n}\n")
        XCTAssertEqual(try written(document, ".a[-1]", pretty: true), "{}\n")
        // Scalars as the source spells them, escapes included.
        XCTAssertEqual(try written(document, ".s", pretty: false), #""t\u00e9""# + "\n")
        XCTAssertEqual(try written(document, ".a[0]", pretty: true), "1\n")
        XCTAssertThrowsError(try written(document, ".a[3]", pretty: false))
    }

    /// Nesting far past any stack's recursion: the copy keeps its open containers on the heap.
    func testDeepNestingIsWrittenWithoutRecursion() throws {
        let depth = 200_000
        let text = String(repeating: "[", count: depth) + "7" + String(repeating: "]", count: depth)
        let document = try JSONDocument(parsing: Array(text.utf8))
        XCTAssertEqual(try written(document, ".", pretty: false), text + "\n")
    }
}
