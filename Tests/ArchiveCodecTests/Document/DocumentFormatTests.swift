import XCTest

@testable import ArchiveCodec

/// Every format answers the contract, and the two surfaces dispatch to the right one.
final class DocumentFormatTests: XCTestCase {
    /// Each format's JSON is told by its root: the marked formats before the keyed archive,
    /// which takes any other document.
    func testJSONDocumentsAreToldByTheirRoot() throws {
        let cases: [(String, any DocumentFormat.Type)] = [
            (#"{"$typedstream": [{"i": 7}]}"#, TypedStreamDocument.self),
            (#"{"$typedstream": [], "$byteOrder": "big"}"#, TypedStreamDocument.self),
            (#"{"$propertyList": {"n": 5}}"#, PlainPropertyList.self),
            (#"{"$class": "Box", "name": "x"}"#, KeyedArchive.self),
            (#"["a", 1]"#, KeyedArchive.self),
            (#"{"$propertyList": 1, "other": 2}"#, KeyedArchive.self)
        ]
        for (json, format) in cases {
            let body = try JSONDocument(parsing: Array(json.utf8)).body
            XCTAssertTrue(body.format == format, "\(json) read as \(body.format.kindName)")
        }
        XCTAssertTrue(DocumentFormats.all.last == KeyedArchive.self, "the format that takes any document is asked last")
    }

    /// Bytes are read as the format they are, and each keeps its facts.
    func testBytesAreReadAsTheirFormat() throws {
        let stream = try JSONDocument(parsing: Array(#"{"$typedstream": [{"i": 7}]}"#.utf8)).archive(format: .binary)
        let plain = try JSONDocument(parsing: Array(#"{"$propertyList": {"n": 5}}"#.utf8)).archive(format: .xml)
        let keyed = try JSONDocument(parsing: Array(#"{"$class": "Box", "name": "x"}"#.utf8)).archive(format: .binary)
        let read = try [stream, plain, keyed].map { try Archive(parsing: $0) }
        XCTAssertEqual(read.map(\.kindName), ["a typedstream", "a plain property list", "a keyed archive"])
        XCTAssertEqual(read.map(\.sourceFormat), [.binary, .xml, .binary])
        XCTAssertEqual(read.map(\.isTypedStream), [true, false, false])
        XCTAssertEqual(read.map { $0.keyedArchive != nil }, [false, false, true])
        // The raw view reads an archive's property list as it is.
        XCTAssertTrue(try Archive(parsing: keyed, view: .raw).document is PlainPropertyList)
    }

    /// The marks of nested payloads are distinct, one format each, and only a format that is
    /// no property list fixes its byte arrays' lengths.
    func testPayloadMarksAreDistinct() {
        let keys = DocumentFormats.all.map { String(describing: $0.payloadKey) }
        XCTAssertEqual(Set(keys).count, keys.count)
        XCTAssertEqual(keys.sorted(), ["$keyedArchive", "$propertyList", "$typedstream"])
        for format in DocumentFormats.all {
            XCTAssertTrue(DocumentFormats.marked(by: { String(describing: $0) == String(describing: format.payloadKey) }) == format)
            XCTAssertEqual(format.fixesByteArrayLengths, !format.isPropertyList, format.kindName)
        }
        XCTAssertEqual(DocumentFormats.all.filter { $0.payloadIsWrapped }.map { $0.kindName }, ["a keyed archive"])
    }

    /// Documents of two formats differ at their root, naming both.
    func testDocumentsOfTwoFormatsDifferAtTheRoot() throws {
        let plain = try Archive(parsing: JSONDocument(parsing: Array(#"{"$propertyList": [1]}"#.utf8)).archive(format: .binary))
        let keyed = try Archive(parsing: JSONDocument(parsing: Array(#"[1]"#.utf8)).archive(format: .binary))
        XCTAssertEqual(plain.difference(from: keyed), ".: a plain property list ≠ a keyed archive")
        XCTAssertNil(keyed.difference(from: keyed))
    }

    /// An encode's working memory is its format's per value.
    func testEncodingWorkingBytesFollowTheFormat() throws {
        let stream = try JSONDocument(parsing: Array(#"{"$typedstream": [{"i": 7}]}"#.utf8))
        let plain = try JSONDocument(parsing: Array(#"{"$propertyList": [1, 2]}"#.utf8))
        XCTAssertEqual(stream.encodingWorkingBytes, stream.valueCount * TypedStreamDocument.encodingBytesPerValue)
        XCTAssertEqual(plain.encodingWorkingBytes, plain.valueCount * PlainPropertyList.encodingBytesPerValue)
        XCTAssertGreaterThan(TypedStreamDocument.encodingBytesPerValue, KeyedArchive.encodingBytesPerValue)
    }
}
