import ArchiveCodec
import ArchiveServer
import TestSupport
import XCTest

/// `POST /v1/decode?path=P` over real HTTP: only the value at `P` of the decoded JSON, found as
/// `archive-tool get` finds it, indented on request; a path that leads nowhere is a 422 naming
/// how far it got; the decoded text and its index are held within the memory budget.
final class ValuePathEndpointTests: ServerTestCase {
    private func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    func testTheValueAtAPath() throws {
        let archive = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
        let whole = try XCTUnwrap(try server.post("/v1/decode", archive).jsonObject)
        let root = try XCTUnwrap(whole as? [String: Any])
        let key = try XCTUnwrap(root.keys.sorted().first { !$0.hasPrefix("$") })
        let encodedKey = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        let reply = try server.post("/v1/decode?path=.%22\(encodedKey)%22", archive)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Content-Type"), "application/json")
        XCTAssertTrue(reply.text.hasSuffix("\n"))
        // The same value the whole document holds there.
        let value = try json(reply.text)
        XCTAssertTrue(
            try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])
                == JSONSerialization.data(withJSONObject: [root[key]!], options: [.sortedKeys]), reply.text)
        // The whole document, compact and indented, is the decode's own text.
        XCTAssertEqual(try server.post("/v1/decode?path=.", archive).body, try server.post("/v1/decode", archive).body)
        XCTAssertEqual(try server.post("/v1/decode?path=.&pretty=1", archive).body, try server.post("/v1/decode?pretty=1", archive).body)
    }

    /// Brackets sent as they are (curl -g) or percent-encoded read the same; `$ref`s are
    /// followed and wrappers gone through, as in `archive-tool get`.
    func testStepsThroughWrappersAndReferences() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        let raw = try server.post("/v1/decode?path=.%22$0%22.array[1]", archive)
        XCTAssertEqual(raw.status, 200, raw.text)
        XCTAssertEqual(raw.text, "\"Hello, World!\"\n")
        XCTAssertEqual(try server.post("/v1/decode?path=.%22$0%22.array%5B-1%5D", archive).text, "42\n")
        // With the array written in a `$table` and referred to from the top.
        XCTAssertEqual(try server.post("/v1/decode?path=.%22$0%22.array[2]&maxDepth=4", archive).text, "42\n")
        let pretty = try server.post("/v1/decode?path=.%22$0%22.array&pretty=1", archive)
        XCTAssertTrue(pretty.text.hasPrefix("{\n  \"$class\": \"NSMutableArray\""), pretty.text)
    }

    func testAPathThatLeadsNowhereOrIsMalformed() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        let missing = try server.post("/v1/decode?path=.%22$0%22.array[7]", archive)
        XCTAssertEqual(missing.status, 422, missing.text)
        XCTAssertEqual(missing.jsonObject?["type"] as? String, "urn:archive-service:problem:path-not-found")
        XCTAssertTrue((missing.jsonObject?["detail"] as? String)?.contains("array[7]") == true, missing.text)
        let malformed = try server.post("/v1/decode?path=teams", archive)
        XCTAssertEqual(malformed.status, 400, malformed.text)
        XCTAssertEqual(malformed.jsonObject?["type"] as? String, "urn:archive-service:problem:invalid-query")
        let summary = try server.post("/v1/decode?path=.array&view=summary", archive)
        XCTAssertEqual(summary.status, 400, summary.text)
    }

    /// The decoded text and its index count against the budget: a plist whose text is 9 MB
    /// decodes under a 16 MiB budget (its reply reserved as it is written), but the text held
    /// whole for its index does not fit beside it (the array that holds it doubles).
    func testTheIndexIsReservedBeforeItIsMade() throws {
        let small = try TestServer { $0.memoryBudget = 16 << 20 }
        defer { small.stop() }
        var writer = TestPlistBuilder()
        let text = writer.string(String(repeating: "x", count: 1_000))
        let top = writer.add(.array(Array(repeating: text, count: 9_000)))
        let plist = writer.binary(top: top, layout: .wide)
        let decode = try small.post("/v1/decode", plist)
        XCTAssertEqual(decode.status, 200, decode.text)
        XCTAssertGreaterThan(decode.body.count, 9_000_000)
        let value = try small.post("/v1/decode?path=.[0]", plist)
        XCTAssertEqual(value.status, 413, value.text)
        XCTAssertEqual(value.jsonObject?["type"] as? String, "urn:archive-service:problem:too-large-for-memory", value.text)
        // A budget with room for both answers.
        XCTAssertEqual(try server.post("/v1/decode?path=.[8999]", plist).text, "\"" + String(repeating: "x", count: 1_000) + "\"\n")
    }

    /// A keyed archive's value is found from the objects on the path alone: under a budget that
    /// admits the decode of an archive whose text is 9 MB but not that text held whole with its
    /// index (as the raw view's path needs), a path into it is answered (the array's body holds
    /// its 9,000 dictionaries as stubs).
    func testAKeyedArchiveIsAnsweredFromTheObjectsOnThePath() throws {
        let small = try TestServer { $0.memoryBudget = 48 << 20 }
        defer { small.stop() }
        let padding = String(repeating: "x", count: 1_000)
        let elements = (0..<9_000).map { #"{"$class":"NSDictionary","s":"\#($0)\#(padding)"}"# }
        let json = #"{"$top":{"root":{"$class":"NSArray","$array":["# + elements.joined(separator: ",") + "]}}}"
        let archive = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let decode = try small.post("/v1/decode", archive)
        XCTAssertEqual(decode.status, 200, decode.text)
        XCTAssertGreaterThan(decode.body.count, 9_000_000)
        let value = try small.post("/v1/decode?path=.[4500].s", archive)
        XCTAssertEqual(value.status, 200, value.text)
        XCTAssertEqual(value.text, "\"4500" + padding + "\"\n")
        let pretty = try small.post("/v1/decode?path=.[-1]&pretty=1", archive)
        XCTAssertEqual(pretty.text, "{\n  \"$class\": \"NSDictionary\",\n  \"s\": \"8999" + padding + "\"\n}\n")
        let whole = try small.post("/v1/decode?path=.$objects&view=raw", archive)
        XCTAssertEqual(whole.status, 413, whole.text)
        XCTAssertEqual(whole.jsonObject?["type"] as? String, "urn:archive-service:problem:too-large-for-memory", whole.text)
    }

    /// A path that goes round a `$ref` through a large array (the array's last element refers
    /// back to it) would look through the whole array at every step: refused as over a limit
    /// once it has looked through a few times the document's values; a path that goes round
    /// twice is answered.
    func testAPathGoingRoundReferencesIsRefused() throws {
        let count = 20_000
        var json = #"{"$top":{"root":{"$class":"NSArray","$id":1,"$array":["#
        json += String(repeating: "0,", count: count - 1) + #"{"$class":"NSDictionary","back":{"$ref":1}}]}}}"#
        let archive = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let round = "[\(count - 1)].back"
        let twice = try server.post("/v1/decode?path=" + String(repeating: round, count: 2) + "[0]", archive)
        XCTAssertEqual(twice.status, 200, twice.text)
        XCTAssertEqual(twice.text, "0\n")
        let looping = try server.post("/v1/decode?path=" + String(repeating: round, count: 500), archive)
        XCTAssertEqual(looping.status, 413, looping.text)
        XCTAssertTrue(looping.text.contains("goes round $refs"), looping.text)
    }
}
