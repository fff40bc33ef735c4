import XCTest

@testable import ArchiveCodec

/// The encoders write a nested payload's document back as bytes of its kind and format.
final class NestedPayloadEncodingTests: XCTestCase {
    private func encode(_ json: String, format: PlistFormat = .binary) throws -> [UInt8] {
        try JSONDocument(parsing: Array(json.utf8)).archive(format: format)
    }

    /// The data of a plain plist, written from each kind of payload, reads back as that document.
    func testEveryKindAndFormatWritesBack() throws {
        let json = #"""
            {"$propertyList": {
              "keyed": {"$data": {"$keyedArchive": {"$class": "Box", "name": "inner"}}},
              "keyedXML": {"$data": {"$keyedArchive": ["a", 1], "$format": "xml"}},
              "plain": {"$data": {"$propertyList": {"n": 5}}},
              "plainXML": {"$data": {"$propertyList": [true], "$format": "xml"}},
              "stream": {"$data": {"$typedstream": [{"i": 7}]}}
            }}
            """#
        let outer = try Archive(parsing: encode(json))
        guard let list = outer.document as? PlainPropertyList else { return XCTFail("not a plain list") }
        var data: [String: [UInt8]] = [:]
        list.plist.withView { view in
            let root = view.header(of: list.plist.topObject)
            for index in 0..<root.count {
                let key = String(decoding: view.payload(view.header(of: view.childRef(root, index))), as: UTF8.self)
                data[key] = Array(view.payload(view.header(of: view.childRef(root, root.count + index))))
            }
        }
        XCTAssertEqual(data.count, 5)
        XCTAssertEqual(NestedPayload.document(data["keyed"]!)?.kind, NestedPayload.Kind(format: KeyedArchive.self, byteForm: .binary))
        XCTAssertEqual(NestedPayload.document(data["keyedXML"]!)?.kind, NestedPayload.Kind(format: KeyedArchive.self, byteForm: .xml))
        XCTAssertEqual(NestedPayload.document(data["plain"]!)?.kind, NestedPayload.Kind(format: PlainPropertyList.self, byteForm: .binary))
        XCTAssertEqual(NestedPayload.document(data["plainXML"]!)?.kind, NestedPayload.Kind(format: PlainPropertyList.self, byteForm: .xml))
        XCTAssertEqual(NestedPayload.document(data["stream"]!)?.kind, NestedPayload.Kind(format: TypedStreamDocument.self, byteForm: .binary))
        let inner = try XCTUnwrap(NestedPayload.document(data["keyed"]!)?.archive)
        XCTAssertEqual(String(decoding: try inner.json(view: .readable, pretty: false), as: UTF8.self), #"{"$class":"Box","name":"inner"}"#)
    }

    /// A payload numbers its objects for itself: the same `$id` inside and outside is no clash,
    /// and a `$ref` inside points at the payload's own object.
    func testPayloadIDsAreThePayloadsOwn() throws {
        let json = #"""
            {"$class": "Pair", "a": {"$id": 1, "$class": "Box"}, "b": {"$ref": 1},
             "blob": {"$data": {"$keyedArchive": {"$class": "Pair", "a": {"$id": 1, "$class": "Inner"}, "b": {"$ref": 1}}}}}
            """#
        let archive = try Archive(parsing: encode(json))
        let text = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(text.contains(#""b":{"$ref":"#), text)
        let plan = try archive.plan(view: .readable, pretty: false, nested: DecodePolicy(depthLimit: 1_000))
        var nested: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { nested += $0 }
        let nestedText = String(decoding: nested, as: UTF8.self)
        XCTAssertTrue(nestedText.contains(#""$keyedArchive":{"$class":"Pair","a":{"$class":"Inner","$id":"#), nestedText)
    }

    /// Wrong payload shapes are refused where they stand, with the path into the payload.
    func testMalformedPayloadsAreRefusedWithTheirPath() {
        let cases: [(String, String)] = [
            (#"{"$propertyList": {"x": {"$data": {"$nonsense": 1}}}}"#, "$.$propertyList.x.$data.$nonsense"),
            (#"{"$propertyList": {"x": {"$data": {"$propertyList": 1, "$keyedArchive": 2}}}}"#, "$.$propertyList.x.$data.$keyedArchive"),
            (#"{"$propertyList": {"x": {"$data": {"$typedstream": [], "$format": "xml"}}}}"#, "$.$propertyList.x.$data"),
            (#"{"$propertyList": {"x": {"$data": {"$propertyList": 1, "$format": "yaml"}}}}"#, "$.$propertyList.x.$data.$format"),
            (#"{"$propertyList": {"x": {"$data": {"$propertyList": {"y": null}}}}}"#, "$.$propertyList.x.$data.$propertyList.y")
        ]
        for (json, path) in cases {
            XCTAssertThrowsError(try encode(json), json) { error in
                let error = error as? CodecError
                XCTAssertEqual(error?.kind, .invalidDocument, json)
                XCTAssertEqual(error?.jsonPath, path, json)
            }
        }
    }

    /// Payloads nest at most `NestedPayload.maximumNesting` levels.
    func testNestingIsBounded() throws {
        func nested(_ levels: Int) -> String {
            levels == 0 ? "1" : #"{"$data": {"$propertyList": "# + nested(levels - 1) + "}}"
        }
        XCTAssertNoThrow(try encode(#"{"$propertyList": "# + nested(NestedPayload.maximumNesting) + "}"))
        XCTAssertThrowsError(try encode(#"{"$propertyList": "# + nested(NestedPayload.maximumNesting + 1) + "}")) { error in
            XCTAssertTrue((error as? CodecError)?.message.contains("nest more than") ?? false, "\(error)")
        }
    }
}
