import XCTest

@testable import ArchiveCodec

/// Data that are nested payloads compare by their documents, not their bytes.
final class NestedPayloadEquivalenceTests: XCTestCase {
    private func encode(_ json: String, format: PlistFormat = .binary) throws -> [UInt8] {
        try JSONDocument(parsing: Array(json.utf8)).archive(format: format)
    }

    private func holding(_ payload: [UInt8]) throws -> Archive {
        var base64: [UInt8] = []
        payload.withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
        return try Archive(parsing: encode(#"{"$propertyList": {"blob": {"$data": ""# + String(decoding: base64, as: UTF8.self) + #""}}}"#))
    }

    func testEquivalentPayloadsWithOtherBytesAreEqual() throws {
        // The same graph with its objects in another order: other bytes, one graph.
        let a = try encode(#"{"$class": "Pair", "x": {"$class": "A"}, "y": {"$class": "B"}}"#)
        let b = try encode(#"{"$class": "Pair", "y": {"$class": "B"}, "x": {"$class": "A"}}"#)
        XCTAssertNotEqual(a, b)
        XCTAssertNil(try holding(a).difference(from: holding(b)))
        XCTAssertTrue(NestedPayload.equivalent(a, b, nesting: 0))
    }

    func testDifferentPayloadsDiffer() throws {
        let a = try encode(#"{"$class": "Pair", "x": 1}"#)
        let b = try encode(#"{"$class": "Pair", "x": 2}"#)
        XCTAssertNotNil(try holding(a).difference(from: holding(b)))
        // One graph in another format is another payload: it would not write back the same.
        let xml = try encode(#"{"$class": "Pair", "x": 1}"#, format: .xml)
        XCTAssertNotNil(try holding(a).difference(from: holding(xml)))
    }

    func testTypedStreamsCompareByGraph() throws {
        let a = try encode(#"{"$typedstream": [{"i": 1}, {"@": {"$class": "Box", "$classes": [["Box", 3], ["NSObject", 0]], "$groups": [{"+": "x"}]}}]}"#)
        let b = try encode(#"{"$typedstream": [{"i": 1}, {"@": {"$class": "Box", "$classes": [["Box", 4], ["NSObject", 0]], "$groups": [{"+": "x"}]}}]}"#)
        XCTAssertNil(try Archive(parsing: a).difference(from: Archive(parsing: a)))
        XCTAssertNotNil(try Archive(parsing: a).difference(from: Archive(parsing: b)))
    }
}
