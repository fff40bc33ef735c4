import ArchiveServer
import TestSupport
import XCTest

/// Every error status, each as an RFC 9457 problem document, and the server still serving after each.
final class ErrorTests: ServerTestCase {

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.maxBodySize = 4096
    }

    /// Checks the problem members and returns the document.
    @discardableResult
    private func assertProblem(
        _ reply: HTTPReply, status: Int, slug: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> [String: Any] {
        XCTAssertEqual(reply.status, status, reply.text, file: file, line: line)
        XCTAssertEqual(reply.header("Content-Type"), "application/problem+json", file: file, line: line)
        let problem = reply.jsonObject ?? [:]
        XCTAssertEqual(problem["type"] as? String, "urn:archive-service:problem:\(slug)", reply.text, file: file, line: line)
        XCTAssertEqual(problem["status"] as? Int, status, file: file, line: line)
        XCTAssertFalse((problem["title"] as? String ?? "").isEmpty, file: file, line: line)
        XCTAssertFalse((problem["detail"] as? String ?? "").isEmpty, file: file, line: line)
        XCTAssertEqual(try? server.get("/healthz").status, 200, "server stopped serving", file: file, line: line)
        return problem
    }

    func test404UnknownPath() throws {
        let problem = assertProblem(try server.get("/v2/decode"), status: 404, slug: "not-found")
        XCTAssertEqual(problem["instance"] as? String, "/v2/decode")
        assertProblem(try server.get("/ui/"), status: 404, slug: "not-found")
    }

    func test405CarriesAllow() throws {
        let get = try server.get("/v1/decode")
        assertProblem(get, status: 405, slug: "method-not-allowed")
        XCTAssertEqual(get.header("Allow"), "POST")
        let delete = try TestHTTPClient.request(port: server.port, method: "DELETE", path: "/healthz")
        assertProblem(delete, status: 405, slug: "method-not-allowed")
        XCTAssertEqual(delete.header("Allow"), "GET, HEAD")
        let patch = try TestHTTPClient.request(port: server.port, method: "PATCH", path: "/v1/encode", body: Array("{}".utf8))
        assertProblem(patch, status: 405, slug: "method-not-allowed")
        XCTAssertEqual(patch.header("Allow"), "POST")
    }

    func test405ForMethodsLibeventDoesNotKnow() throws {
        for (method, path, allow) in [("QUERY", "/healthz", "GET, HEAD"), ("PROPFIND", "/v1/decode", "POST"), ("QUERY", "/v1/encode", "POST")] {
            let reply = try TestHTTPClient.request(
                port: server.port, method: method, path: path,
                body: path == "/healthz" ? nil : Array("{}".utf8))
            assertProblem(reply, status: 405, slug: "method-not-allowed")
            XCTAssertEqual(reply.header("Allow"), allow, method)
        }
        assertProblem(try TestHTTPClient.request(port: server.port, method: "QUERY", path: "/nowhere"), status: 404, slug: "not-found")
    }

    func test400EmptyBody() throws {
        assertProblem(try server.post("/v1/decode", []), status: 400, slug: "empty-body")
        assertProblem(try server.post("/v1/encode", [], contentType: "application/json"), status: 400, slug: "empty-body")
        assertProblem(try TestHTTPClient.request(port: server.port, method: "POST", path: "/v1/decode"), status: 400, slug: "empty-body")
    }

    func test400NotAPropertyList() throws {
        assertProblem(try server.post("/v1/decode", Array("hello, world".utf8)), status: 400, slug: "malformed-plist")
    }

    func test400TruncatedArchiveSaysWhere() throws {
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        for length in [8, 20, archive.count / 2, archive.count - 1] {
            let problem = assertProblem(try server.post("/v1/decode", Array(archive.prefix(length))), status: 400, slug: "malformed-plist")
            if let offset = problem["offset"] as? Int {
                XCTAssertTrue((0...archive.count).contains(offset), "offset \(offset) outside the input")
            }
        }
    }

    func test400ProtocolFrameThatOnlyContainsAnArchive() throws {
        let frame = try Fixtures.bytes("not-archives/goios_dtx_nsnull.bin")
        let reply = try server.post("/v1/decode", frame)
        XCTAssertTrue([400, 422].contains(reply.status), reply.text)
        assertProblem(reply, status: reply.status, slug: reply.status == 400 ? "malformed-plist" : "not-keyed-archive")
    }

    func test400MalformedJSON() throws {
        assertProblem(
            try server.post("/v1/encode", Array("{\"a\": [1, 2".utf8), contentType: "application/json"),
            status: 400, slug: "malformed-json")
        assertProblem(try server.post("/v1/encode", Array("not json".utf8)), status: 400, slug: "malformed-json")
    }

    func test400BadQueryParameters() throws {
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        assertProblem(try server.post("/v1/decode?view=fancy", archive), status: 400, slug: "invalid-query")
        assertProblem(try server.post("/v1/decode?pretty=maybe", archive), status: 400, slug: "invalid-query")
        assertProblem(try server.post("/v1/encode?format=json", Array("{}".utf8)), status: 400, slug: "invalid-query")
    }

    /// A plain plist decodes as itself; a root with an archive's keys but not a whole archive is 422.
    func testPlainPlistDecodesAndAHalfArchiveIs422() throws {
        let plain = try server.post("/v1/decode", TestArchives.plainPlist())
        XCTAssertEqual(plain.status, 200, plain.text)
        XCTAssertEqual(plain.text, "{\"$propertyList\":{\"name\":\"plain\",\"count\":3}}\n")
        let encoded = try server.post("/v1/encode", Array(plain.text.utf8), contentType: "application/json")
        XCTAssertEqual(encoded.status, 200, encoded.text)
        XCTAssertEqual(try server.post("/v1/decode", encoded.body).text, plain.text)
        assertProblem(try server.post("/v1/decode", TestArchives.halfArchive()), status: 422, slug: "not-keyed-archive")
        // The raw view shows any property list as it is, a broken archive too.
        let raw = try server.post("/v1/decode?view=raw", TestArchives.halfArchive())
        XCTAssertEqual(raw.status, 200, raw.text)
        XCTAssertEqual(raw.text, "{\"$top\":{},\"name\":\"plain\"}\n")
    }

    func test422ArchiveWithDanglingUID() throws {
        let archive = TestArchives.linkedList(count: 3, tail: .dangling)
        assertProblem(try server.post("/v1/decode", archive), status: 422, slug: "invalid-archive")
    }

    func test422DocumentThatDoesNotFollowTheMapping() throws {
        let problem = assertProblem(
            try server.post("/v1/encode", Array("{\"$class\":42}".utf8), contentType: "application/json"),
            status: 422, slug: "invalid-document")
        if let path = problem["jsonPath"] as? String {
            XCTAssertTrue(path.hasPrefix("$"), path)
        }
    }

    func test413BodyOverTheLimit() throws {
        let reply = try server.post("/v1/decode", [UInt8](repeating: 0x41, count: 16 * 1024))
        XCTAssertEqual(reply.status, 413)
        XCTAssertEqual(try server.get("/healthz").status, 200)
        // At the limit the body is read and judged on its content.
        assertProblem(try server.post("/v1/decode", [UInt8](repeating: 0x41, count: 4096)), status: 400, slug: "malformed-plist")
    }

    func test415EncodeWithNonJSONContentType() throws {
        let problem = assertProblem(
            try server.post("/v1/encode", Array("{}".utf8), contentType: "application/xml"),
            status: 415, slug: "unsupported-media-type")
        XCTAssertTrue((problem["detail"] as? String ?? "").contains("application/xml"))
        assertProblem(try server.post("/v1/encode", Array("{}".utf8), contentType: "text/plain"), status: 415, slug: "unsupported-media-type")
        for accepted in ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/problem+json", "text/json"] {
            XCTAssertNotEqual(try server.post("/v1/encode", Array("{\"a\":1}".utf8), contentType: accepted).status, 415, accepted)
        }
    }

    /// A corrupted Apple fixture (bytes changed at random, seed 1, round 147 of scripts' fuzzing) that once
    /// made the codec trap on an out-of-range read instead of reporting malformed input.
    func testCorruptedArchiveFoundByFuzzingGets4xx() throws {
        let reply = try server.post("/v1/decode", Fixtures.corrupt("corrupt-ComplexTest-147.plist"))
        XCTAssertTrue((400..<500).contains(reply.status), "\(reply.status) \(reply.text)")
    }

    func testGarbageOfManyShapesNeverKillsTheServer() throws {
        var generator = SplitMix64(seed: 0x5EED)
        let archive = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
        for round in 0..<60 {
            var body = archive
            for _ in 0..<(1 + round % 8) {
                body[Int.random(in: 8..<body.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let reply = try server.post(round % 3 == 0 ? "/v1/encode" : "/v1/decode", body)
            XCTAssertTrue(reply.status == 200 || (400..<500).contains(reply.status), "round \(round): \(reply.status) \(reply.text)")
        }
        XCTAssertEqual(try server.get("/healthz").status, 200)
    }

    func testMalformedHTTPIsRefusedAndServerKeepsServing() throws {
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        TestHTTPClient.sendAll(fd, Array("THIS IS NOT HTTP\r\n\r\n".utf8))
        let raw = (try? TestHTTPClient.readToEnd(fd)) ?? []
        close(fd)
        let text = String(decoding: raw, as: UTF8.self)
        // The connection guard answers, not libevent: one 400 problem document with a request id.
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 "), text)
        XCTAssertTrue(text.contains("Content-Type: application/problem+json"), text)
        XCTAssertTrue(text.contains("X-Request-Id: "), text)
        XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 ").count, 2, "exactly one reply: \(text)")
        XCTAssertEqual(try server.get("/healthz").status, 200)
    }
}
