import XCTest

@testable import ArchiveCodec

/// A payload's document taken from the outer document's index is the document its text
/// parses to, field for field.
final class PayloadDocumentTests: XCTestCase {
    private func assertSameAsParsed(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let outer = try JSONDocument(parsing: Array(json.utf8))
        XCTAssertFalse(outer.nestedPayloads.isEmpty, file: file, line: line)
        for value in outer.nestedPayloads {
            let start = Int(value.offset)
            let end = Int(outer.containers[value.container].end)
            let parsed = try JSONDocument(parsing: Array(outer.source[start..<end]), payloadNesting: 3)
            let taken = outer.payloadDocument(value, payloadNesting: 3)
            XCTAssertEqual(taken.source, parsed.source, file: file, line: line)
            XCTAssertEqual(taken.containers.map { [$0.end, $0.count, $0.descendants] }, parsed.containers.map { [$0.end, $0.count, $0.descendants] }, file: file, line: line)
            XCTAssertEqual(taken.depth, parsed.depth, "depth", file: file, line: line)
            XCTAssertEqual(taken.valueCount, parsed.valueCount, "value count", file: file, line: line)
            XCTAssertEqual(Array(taken.mappingKeySpans), Array(parsed.mappingKeySpans), file: file, line: line)
            XCTAssertEqual(taken.scalarEnds, parsed.scalarEnds, "scalar ends", file: file, line: line)
            XCTAssertEqual(taken.notedMembers.map(\.object), parsed.notedMembers.map(\.object), file: file, line: line)
            XCTAssertEqual(taken.notedMembers.map(\.value), parsed.notedMembers.map(\.value), file: file, line: line)
            XCTAssertEqual(taken.nestedPayloads, parsed.nestedPayloads, file: file, line: line)
            XCTAssertEqual(taken.payloadNesting, parsed.payloadNesting, file: file, line: line)
        }
    }

    func testPayloadsOfEveryShape() throws {
        try assertSameAsParsed(
            #"""
            {"$class": "Pair", "a": {"$id": 1, "$class": "Box"}, "b": {"$ref": 1}, "list": [[], {}, [[1, [2]]]],
             "blob": {"$data": {"$keyedArchive": {"$class": "Pair", "$id": 4, "a": {"$id": 1, "$class": "Inner", "deep": [[[[{"x": []}]]]]},
               "b": {"$ref": 1}, "s": "t\"e\\x\u00e9", "n": [1.5, -2, true, null],
               "inner": {"$bytes": {"$propertyList": {"k": {"$data": {"$typedstream": [{"i": 7}]}}}, "$format": "xml"}}}}},
             "after": {"$id": 9, "v": {"$data": "AAEC"}}, "last": {"$data": {"$propertyList": [{"$id": 2}]}}}
            """#)
    }

    func testPayloadThatIsTheOnlyValue() throws {
        try assertSameAsParsed(#"{"$data":{"$propertyList":{}}}"#)
        try assertSameAsParsed(#"[{"$data":{"$typedstream":[]}}, {"$bytes": {"$id": 3}}]"#)
    }
}
