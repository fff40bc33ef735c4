import ArchiveCodec
import ArchiveServer
import TestSupport
import XCTest

/// `POST /v1/decode?view=summary` over real HTTP: the summary's JSON, indented on request,
/// counting inside nested payloads with `nested=1`, refused where a decode would be.
final class SummaryEndpointTests: ServerTestCase {
    func testSummaryOfAnArchive() throws {
        let archive = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
        let reply = try server.post("/v1/decode?view=summary", archive)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Content-Type"), "application/json")
        XCTAssertTrue(reply.text.hasSuffix("}\n"))
        // The same text the codec writes for the archive.
        let expected = try Archive(parsing: archive).summary().json(pretty: false) + [UInt8(ascii: "\n")]
        XCTAssertEqual(reply.body, expected)
        let summary = try XCTUnwrap(reply.jsonObject)
        XCTAssertEqual(summary["format"] as? String, "keyedArchive")
        XCTAssertEqual(summary["objects"] as? Int, 22)
        XCTAssertEqual((summary["nesting"] as? [String: Int])?["readable"], 3)
        let classes = try XCTUnwrap(summary["classes"] as? [[String: Any]])
        XCTAssertEqual(classes.first?["class"] as? String, "NSDictionary")
        let pretty = try server.post("/v1/decode?view=summary&pretty=1", archive)
        XCTAssertEqual(pretty.status, 200)
        XCTAssertTrue(pretty.text.hasPrefix("{\n  \"format\": \"keyedArchive\","), pretty.text)
    }

    func testNestedCountsInsidePayloads() throws {
        let theme = try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let outer = try XCTUnwrap(try server.post("/v1/decode?view=summary", theme).jsonObject)
        let nested = try XCTUnwrap(try server.post("/v1/decode?view=summary&nested=1", theme).jsonObject)
        XCTAssertEqual(outer["format"] as? String, "propertyList")
        XCTAssertEqual((outer["classes"] as? [Any])?.count, 0)
        XCTAssertEqual((nested["classes"] as? [[String: Any]])?.first?["class"] as? String, "NSColor")
        XCTAssertEqual((nested["nestedPayloads"] as? [[String: Any]])?.first?["count"] as? Int, 15)
    }

    func testReadableViewParametersAreRefused() throws {
        let reply = try server.post("/v1/decode?view=summary&exactNumbers=1", try Fixtures.bytes("goios_dict.bin"))
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:invalid-query")
    }

    func testTypedStreamAndBrokenInput() throws {
        let stream = try server.post("/v1/decode?view=summary", try Fixtures.typedStream("python-typedstream_Emacs.clr"))
        XCTAssertEqual(stream.jsonObject?["format"] as? String, "typedStream")
        XCTAssertEqual(stream.jsonObject?["objects"] as? Int, 1_494)
        XCTAssertEqual(try server.post("/v1/decode?view=summary", Array("not a plist".utf8)).status, 400)
    }

    /// Deeper than the workers' stack admits to write: the decode is 413, the summary (which
    /// does not recurse) is answered and says how deep the readable view would nest.
    func testTooDeepToDecodeIsSummarised() throws {
        let limit = server.server.depthLimit
        let deep = TestArchives.linkedList(count: 2 * limit)
        let decode = try server.post("/v1/decode", deep)
        let summary = try server.post("/v1/decode?view=summary", deep)
        XCTAssertEqual(decode.status, 413)
        XCTAssertEqual(summary.status, 200, summary.text)
        let nesting = summary.jsonObject?["nesting"] as? [String: Any]
        XCTAssertEqual(nesting?["readable"] as? Int, decode.jsonObject?["depth"] as? Int)
    }

    /// Admitted by the archive's counts as a decode is: entries that could never fit the
    /// budget are refused before they are read, for the summary as for the decode.
    func testSummaryIsAdmittedAsADecode() throws {
        let small = try TestServer { $0.memoryBudget = 16 << 20 }
        defer { small.stop() }
        let archive = TestArchives.sharedEntries(count: 400_000)
        let decode = try small.post("/v1/decode", archive)
        let summary = try small.post("/v1/decode?view=summary", archive)
        XCTAssertEqual(summary.status, decode.status, summary.text)
        XCTAssertEqual(summary.jsonObject?["type"] as? String, "urn:archive-service:problem:too-large-for-memory", summary.text)
    }
}
