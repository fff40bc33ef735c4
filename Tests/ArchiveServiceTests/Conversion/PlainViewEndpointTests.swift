import ArchiveCodec
import ArchiveServer
import TestSupport
import XCTest

/// `POST /v1/decode?view=plain` over real HTTP: the codec's plain view, indented on request,
/// nested payloads with `nested=1`; the lossless view's parameters refused, depth and memory
/// refused as a decode's.
final class PlainViewEndpointTests: ServerTestCase {
    func testPlainViewOfAnArchive() throws {
        let archive = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
        let reply = try server.post("/v1/decode?view=plain", archive)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Content-Type"), "application/json")
        XCTAssertEqual(reply.body, try Archive(parsing: archive).plainJSON(pretty: false) + [UInt8(ascii: "\n")])
        XCTAssertEqual((reply.jsonObject?["array"] as? [Any])?.count, 4)
        let pretty = try server.post("/v1/decode?view=PLAIN&pretty=1", archive)
        XCTAssertEqual(pretty.status, 200)
        XCTAssertEqual(pretty.body, try Archive(parsing: archive).plainJSON(pretty: true))
        XCTAssertTrue(pretty.text.hasPrefix("{\n  \"array\": [\n    null,"), pretty.text)
    }

    func testTypedStreamPlainListAndNestedPayloads() throws {
        let stream = try server.post("/v1/decode?view=plain", try Fixtures.typedStream("imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin"))
        XCTAssertEqual(stream.text, "\"Test 3\"\n")
        let list = try server.post("/v1/decode?view=plain", try Fixtures.publicFile("plain-plist/imessage-exporter_message_summary_info-Deleted.plist"))
        XCTAssertEqual(list.text, #"{"amc":0,"ust":true,"otr":{"0":{"lo":0,"le":13}},"rp":[0]}"# + "\n")
        let theme = try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let nested = try server.post("/v1/decode?view=plain&nested=1", theme)
        XCTAssertEqual(nested.status, 200, nested.text)
        let black = nested.jsonObject?["ANSIBlackColor"] as? [String: Any]
        XCTAssertEqual(black?["$class"] as? String, "NSColor")
        XCTAssertEqual((black?["NSRGB"] as? [Double])?.count, 3)
        let bytes = try server.post("/v1/decode?view=plain", theme)
        XCTAssertTrue((bytes.jsonObject?["ANSIBlackColor"] as? String)?.hasPrefix("YnBsaXN0MDD") == true, bytes.text)
    }

    func testLosslessViewParametersAreRefused() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        for query in ["maxDepth=8", "exactIntegers=1", "exactNumbers=yes", "maxDepth=8&exactIntegers=1"] {
            let reply = try server.post("/v1/decode?view=plain&" + query, archive)
            XCTAssertEqual(reply.status, 400, query)
            XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:invalid-query", query)
            XCTAssertTrue((reply.jsonObject?["detail"] as? String)?.contains("leave them out with view=plain") == true, reply.text)
        }
        XCTAssertEqual(try server.post("/v1/decode?view=plain&exactIntegers=0&nested=0", archive).status, 200)
        let unknown = try server.post("/v1/decode?view=plane", archive)
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(unknown.text.contains("readable, raw, plain or summary"), unknown.text)
    }

    /// Made from the lossless text, whose writer recurses: refused for depth as the decode is,
    /// with a fix that does not point to a parameter the plain view refuses.
    func testTooDeepIsRefusedAsADecode() throws {
        let deep = TestArchives.linkedList(count: 2 * server.server.depthLimit)
        let decode = try server.post("/v1/decode", deep)
        let plain = try server.post("/v1/decode?view=plain", deep)
        XCTAssertEqual(plain.status, 413, plain.text)
        XCTAssertEqual(plain.jsonObject?["depth"] as? Int, decode.jsonObject?["depth"] as? Int)
        XCTAssertTrue((plain.jsonObject?["detail"] as? String)?.contains("The plain view takes no maxDepth") == true, plain.text)
    }

    /// `?view=plain&path=`: the plain view of one value, whole in itself (what it refers to
    /// outside itself written in it); a path that leads nowhere is 422, as for the lossless views.
    func testOneValuesPlainView() throws {
        let json = #"{"$class":"NSMutableDictionary","$dict":{"a":{"$class":"NSMutableArray","$id":1,"$array":[1,{"$ref":2}]},"b":{"$class":"NSMutableArray","$id":2,"$array":[{"$ref":1},"x"]}}}"#
        let archive = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let value = try server.post("/v1/decode?view=plain&path=.b", archive)
        XCTAssertEqual(value.status, 200, value.text)
        XCTAssertEqual(value.header("Content-Type"), "application/json")
        XCTAssertEqual(value.text, #"{"$id":1,"$array":[{"$id":2,"$array":[1,{"$ref":1}]},"x"]}"# + "\n")
        XCTAssertEqual(try server.post("/v1/decode?view=plain&path=.a%5B0%5D", archive).text, "1\n")
        let pretty = try server.post("/v1/decode?view=plain&path=.b%5B1%5D&pretty=1", archive)
        XCTAssertEqual(pretty.text, "\"x\"\n")
        let whole = try server.post("/v1/decode?view=plain&path=.", archive)
        XCTAssertEqual(whole.body, try server.post("/v1/decode?view=plain", archive).body)
        let nowhere = try server.post("/v1/decode?view=plain&path=.c", archive)
        XCTAssertEqual(nowhere.status, 422, nowhere.text)
        XCTAssertEqual(nowhere.jsonObject?["type"] as? String, "urn:archive-service:problem:path-not-found")
    }

    /// The lossless text the plain view is made from is held in the budget: a small archive
    /// whose text repeats one long string is refused by a small budget, not held unaccounted.
    func testLosslessTextIsReservedInTheBudget() throws {
        let small = try TestServer { $0.memoryBudget = 16 << 20 }
        defer { small.stop() }
        let long = String(repeating: "x", count: 1 << 20)
        let json = "{\"items\":[" + Array(repeating: "\"\(long)\"", count: 24).joined(separator: ",") + "]}"
        let archive = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        XCTAssertLessThan(archive.count, 2 << 20)
        let plain = try small.post("/v1/decode?view=plain", archive)
        XCTAssertEqual(plain.jsonObject?["type"] as? String, "urn:archive-service:problem:too-large-for-memory", plain.text)
        // A budget that holds it answers.
        let large = try TestServer { $0.memoryBudget = 256 << 20 }
        defer { large.stop() }
        let answered = try large.post("/v1/decode?view=plain", archive)
        XCTAssertEqual(answered.status, 200)
        XCTAssertEqual((answered.jsonObject?["items"] as? [String])?.count, 24)
    }
}
