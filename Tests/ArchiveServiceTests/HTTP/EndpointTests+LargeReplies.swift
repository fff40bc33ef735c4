import ArchiveCodec
import TestSupport
import XCTest

/// Conversions of bodies from `Conversion.bufferedReplyThreshold` (1 MiB) on write their reply
/// into a libevent buffer as the codec produces it; the bytes must be what the codec makes.
/// (The endpoint tests' server, set up per test.)
extension EndpointTests {

    /// About 2.4 MB of JSON: an array of distinct strings, with a shared object and a cycle.
    private func largeDocument() -> [UInt8] {
        let items = (0..<60_000).map { "\"item \($0) of a reply too large for one array\"" }.joined(separator: ",")
        return Array(#"{"$top":{"list":[\#(items)],"me":{"$class":"Node","$id":1,"next":{"$ref":1}}}}"#.utf8)
    }

    func testLargeEncodeAndDecodeAreTheCodecsBytes() throws {
        let json = largeDocument()
        XCTAssertGreaterThan(json.count, 1 << 20)
        let document = try JSONDocument(parsing: json)
        var streamed: [UInt8] = []
        try document.writeArchive { streamed.append(contentsOf: $0) }

        let encoded = try server.post("/v1/encode", json, contentType: "application/json")
        XCTAssertEqual(encoded.status, 200, encoded.text)
        XCTAssertEqual(encoded.header("Content-Type"), "application/x-bplist")
        XCTAssertEqual(encoded.header("Content-Length"), String(streamed.count))
        XCTAssertEqual(encoded.body, streamed)

        XCTAssertGreaterThan(encoded.body.count, 1 << 20)
        let archive = try KeyedArchive(parsing: encoded.body)
        for (path, view, pretty) in [("/v1/decode", ArchiveView.readable, false), ("/v1/decode?view=raw&pretty=1", .raw, true)] {
            let decoded = try server.post(path, encoded.body)
            XCTAssertEqual(decoded.status, 200, path)
            // Compact JSON gets the newline indented JSON ends with.
            XCTAssertEqual(decoded.body, try archive.json(view: view, pretty: pretty) + (pretty ? [] : [0x0A]), path)
        }
        // XML output stays an array reply.
        let xml = try server.post("/v1/encode?format=xml", json, contentType: "application/json")
        XCTAssertEqual(xml.status, 200)
        XCTAssertEqual(xml.body, try document.archive(format: .xml))
    }

    /// A size refusal found after part of the JSON was buffered is still a clean 413.
    func testSizeRefusalAfterPartOfTheReplyIsA413() throws {
        // One 1 MB string shared by 100,000 array elements: its JSON would be 100 GB.
        var writer = TestPlistBuilder()
        let top = writer.reserve()
        var objectRefs = [writer.string("$null")]
        objectRefs.append(writer.string(String(repeating: "x", count: 1 << 20)))
        let sharedRef = writer.uid(1)
        let list = writer.add(.array(Array(repeating: sharedRef, count: 100_000)))
        let classRef = writer.uid(3)
        objectRefs.append(writer.add(.dict([(writer.string("NS.objects"), list), (writer.string("$class"), classRef)])))
        let name = writer.string("NSArray")
        let classes = writer.add(.array([name, writer.string("NSObject")]))
        objectRefs.append(writer.add(.dict([(writer.string("$classname"), name), (writer.string("$classes"), classes)])))
        let objects = writer.add(.array(objectRefs))
        let topDict = writer.add(.dict([(writer.string("root"), writer.uid(2))]))
        writer.set(
            top,
            .dict([
                (writer.string("$archiver"), writer.string("NSKeyedArchiver")), (writer.string("$version"), writer.add(.integer(100_000))),
                (writer.string("$top"), topDict), (writer.string("$objects"), objects)
            ]))
        let archive = writer.binary(top: top, layout: .wide)
        XCTAssertGreaterThan(archive.count, 1 << 20)
        let reply = try server.post("/v1/decode", archive)
        XCTAssertEqual(reply.status, 413, reply.text)
        XCTAssertEqual(reply.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(try server.get("/healthz").status, 200)
    }
}
