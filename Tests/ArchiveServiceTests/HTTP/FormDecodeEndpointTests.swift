import ArchiveCodec
import ArchiveServer
import TestSupport
import XCTest

/// `POST /v1/decode` with a `multipart/form-data` body over real HTTP (`curl -F file=@a.plist
/// -F file=@b.plist`): one NDJSON line per part, in order, each the document a decode of that
/// file alone answers or its problem; the merged summary; the limits, each naming the part.
final class FormDecodeEndpointTests: ServerTestCase {
    private static let boundary = "------------------------d74496d66958873e"
    private static let contentType = "multipart/form-data; boundary=\(boundary)"

    /// A form as curl -F writes it: each file a part named "file" with its file name.
    private static func form(_ files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for file in files {
            body += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            body += file.bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    private func postForm(_ files: [(name: String, bytes: [UInt8])], query: String = "", to server: TestServer? = nil) throws -> HTTPReply {
        try (server ?? self.server).post("/v1/decode\(query)", Self.form(files), contentType: Self.contentType)
    }

    /// The reply's lines, each parsed.
    private func lines(_ reply: HTTPReply, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        XCTAssertTrue(reply.text.hasSuffix("\n"), reply.text, file: file, line: line)
        return try reply.text.split(separator: "\n").map { text in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], String(text), file: file, line: line)
        }
    }

    private func compactJSON(_ value: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    }

    private var fixtures: [(name: String, bytes: [UInt8])] {
        get throws {
            [
                ("goios_dict.bin", try Fixtures.bytes("goios_dict.bin")),
                ("scl-NSKeyedUnarchiver-ComplexTest.plist", try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")),
                ("apple-ii.clr", try Fixtures.typedStream("ColorPaletteCodable_apple-ii.clr")),
                ("recentapps.sfl2", try Fixtures.publicFile("keyed-archive/fq_recentapps.sfl2"))
            ]
        }
    }

    func testEveryPartIsALineWithTheDocumentItsFileDecodesTo() throws {
        let files = try fixtures
        for query in ["", "?view=raw", "?view=plain", "?nested=1&exactIntegers=1"] {
            let reply = try postForm(files, query: query)
            XCTAssertEqual(reply.status, 200, reply.text)
            XCTAssertEqual(reply.header("Content-Type"), "application/x-ndjson")
            let lines = try lines(reply)
            XCTAssertEqual(lines.map { $0["file"] as? String }, files.map(\.name), query)
            for (line, file) in zip(lines, files) {
                let alone = try server.post("/v1/decode\(query)", file.bytes)
                XCTAssertEqual(alone.status, 200, alone.text)
                let document = try XCTUnwrap(line["document"], "\(file.name)\(query)")
                XCTAssertEqual(try compactJSON(document), try compactJSON(try JSONSerialization.jsonObject(with: Data(alone.body), options: [.fragmentsAllowed])))
            }
        }
    }

    func testABrokenPartIsItsOwnLineAndTheOthersDecode() throws {
        let files = try fixtures
        let broken = ("broken.plist", Array("bplist00 this is not a property list".utf8))
        let reply = try postForm([files[0], broken, files[1]])
        XCTAssertEqual(reply.status, 200, reply.text)
        let lines = try lines(reply)
        XCTAssertEqual(lines.count, 3)
        XCTAssertNotNil(lines[0]["document"])
        XCTAssertNotNil(lines[2]["document"])
        XCTAssertEqual(lines[1]["file"] as? String, "broken.plist")
        // The same problem document a decode of the file alone is answered with.
        let alone = try server.post("/v1/decode", broken.1)
        XCTAssertEqual(try compactJSON(try XCTUnwrap(lines[1]["error"])), try compactJSON(try XCTUnwrap(alone.jsonObject)))
    }

    func testAPartWithoutAFileIsNamedByItsField() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        let body =
            Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"save\"\r\n\r\n".utf8) + archive
            + Array("\r\n--\(Self.boundary)--\r\n".utf8)
        let reply = try server.post("/v1/decode", body, contentType: Self.contentType)
        XCTAssertEqual(try lines(reply).first?["file"] as? String, "save")
    }

    func testTheSummaryIsMerged() throws {
        let files = try fixtures
        let reply = try postForm(files, query: "?view=summary")
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Content-Type"), "application/json")
        let summary = try XCTUnwrap(reply.jsonObject)
        var objects = 0
        var bytes = 0
        for file in files {
            let alone = try XCTUnwrap(try server.post("/v1/decode?view=summary", file.bytes).jsonObject)
            objects += try XCTUnwrap(alone["objects"] as? Int)
            bytes += try XCTUnwrap(alone["bytes"] as? Int)
        }
        XCTAssertEqual(summary["files"] as? Int, files.count, reply.text)
        XCTAssertEqual(summary["objects"] as? Int, objects, reply.text)
        XCTAssertEqual(summary["bytes"] as? Int, bytes, reply.text)
        XCTAssertEqual(summary["format"] as? String, "mixed", reply.text)
        // A part that cannot be summarised fails the summary, naming the part.
        let broken = try postForm([files[0], ("broken.plist", Array("not an archive".utf8))], query: "?view=summary")
        XCTAssertEqual(broken.status / 100, 4, broken.text)
        XCTAssertEqual((broken.jsonObject?["detail"] as? String)?.hasPrefix("Part 2 (broken.plist): "), true, broken.text)
    }

    func testPrettyIsRefusedButNotForTheSummary() throws {
        let files = try fixtures
        let pretty = try postForm(files, query: "?pretty=1")
        XCTAssertEqual(pretty.status, 400, pretty.text)
        XCTAssertEqual(pretty.jsonObject?["type"] as? String, "urn:archive-service:problem:invalid-query")
        XCTAssertEqual(try postForm(files, query: "?view=summary&pretty=1").status, 200)
    }

    func testAMalformedBodyNamesThePart() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        var body = Self.form([("a.plist", archive)])
        body.removeLast("--\(Self.boundary)--\r\n".utf8.count)
        body += Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.plist\"\r\n\r\nno end".utf8)
        let reply = try server.post("/v1/decode", body, contentType: Self.contentType)
        XCTAssertEqual(reply.status, 400, reply.text)
        XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:malformed-multipart")
        XCTAssertEqual((reply.jsonObject?["detail"] as? String)?.contains("part 2 (b.plist)"), true, reply.text)
        let noBoundary = try server.post("/v1/decode", body, contentType: "multipart/form-data")
        XCTAssertEqual(noBoundary.status, 400, noBoundary.text)
        XCTAssertEqual(noBoundary.jsonObject?["type"] as? String, "urn:archive-service:problem:malformed-multipart")
    }

    func testAPathAppliesToEveryPart() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        let reply = try postForm([("a.bin", archive), ("b.bin", archive)], query: "?path=.%22$0%22.array[1]")
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.text, "{\"file\":\"a.bin\",\"document\":\"Hello, World!\"}\n{\"file\":\"b.bin\",\"document\":\"Hello, World!\"}\n")
    }

    /// One deadline for the whole form: the part that runs past it is stopped, and every part
    /// after it is a conversion-timeout line without being started.
    func testOneConversionTimeoutBoundsTheWholeForm() throws {
        let quick = try TestServer.timingOut()
        defer { quick.stop() }
        let slow = TestArchives.pastTheTimeout
        let small = TestArchives.linkedList(count: 3)
        let reply = try postForm([("slow.plist", slow), ("small.plist", small), ("small2.plist", small)], to: quick)
        XCTAssertEqual(reply.status, 200, reply.text)
        let lines = try lines(reply)
        XCTAssertEqual(lines.map { $0["file"] as? String }, ["slow.plist", "small.plist", "small2.plist"])
        for line in lines {
            let error = try XCTUnwrap(line["error"] as? [String: Any], "\(line)")
            XCTAssertEqual(error["type"] as? String, "urn:archive-service:problem:conversion-timeout")
        }
        // Alone, the small one decodes.
        XCTAssertEqual(try quick.post("/v1/decode", small).status, 200)
    }

    func testEncodeStillRefusesAForm() throws {
        let reply = try server.post("/v1/encode", Self.form([("a.json", Array("{}".utf8))]), contentType: Self.contentType)
        XCTAssertEqual(reply.status, 415, reply.text)
    }

    func testAGzippedFormIsInflatedFirst() throws {
        let files = try fixtures
        let reply = try TestHTTPClient.request(
            port: server.port, method: "POST", path: "/v1/decode",
            headers: ["Content-Type": Self.contentType, "Content-Encoding": "gzip", "Accept-Encoding": "gzip"], body: try SystemGzip.compress(Self.form(files)))
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Content-Encoding"), "gzip")
        let text = String(decoding: try SystemGzip.decompress(reply.body), as: UTF8.self)
        XCTAssertEqual(text.split(separator: "\n").count, files.count, text)
    }
}

/// The limits of a form, each naming the part: `--max-parts`, `--max-part-size`, and the memory
/// budget, against which each part is admitted on its own.
final class FormDecodeLimitTests: ServerTestCase {
    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.maxParts = 3
        configuration.maxPartSize = 64 << 10
        configuration.memoryBudget = 16 << 20
    }

    private static let boundary = "XyZ"

    private static func form(_ parts: [[UInt8]]) -> [UInt8] {
        var body: [UInt8] = []
        for (index, bytes) in parts.enumerated() {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=file; filename=\"f\(index + 1).plist\"\r\n\r\n".utf8) + bytes + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    private func post(_ parts: [[UInt8]]) throws -> HTTPReply {
        try server.post("/v1/decode", Self.form(parts), contentType: "multipart/form-data; boundary=\(Self.boundary)")
    }

    func testTooManyParts() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        XCTAssertEqual(try post(Array(repeating: archive, count: 3)).status, 200)
        let reply = try post(Array(repeating: archive, count: 4))
        XCTAssertEqual(reply.status, 413, reply.text)
        XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:too-many-parts")
        XCTAssertEqual(reply.jsonObject?["found"] as? Int, 4)
        XCTAssertEqual(reply.jsonObject?["limit"] as? Int, 3)
        XCTAssertEqual((reply.jsonObject?["detail"] as? String)?.contains("Part 4"), true, reply.text)
    }

    func testAPartTooLarge() throws {
        let archive = try Fixtures.bytes("goios_dict.bin")
        let large = [UInt8](repeating: 0x41, count: (64 << 10) + 1)
        let reply = try post([archive, large])
        XCTAssertEqual(reply.status, 413, reply.text)
        XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:part-too-large")
        XCTAssertEqual((reply.jsonObject?["detail"] as? String)?.contains("Part 2 (f2.plist)"), true, reply.text)
    }

    func testAPartTooLargeForTheBudgetIsItsOwnLine() throws {
        // The parts' size is not the limit here: the budget (16 MiB) is.
        let roomy = try TestServer { $0.memoryBudget = 16 << 20 }
        defer { roomy.stop() }
        let archive = try Fixtures.bytes("goios_dict.bin")
        // About 25 MB of a decode's tables from 1.6 MB of references: admitted as a body, not as a decode.
        let entries = TestArchives.sharedEntries(count: 400_000)
        let reply = try roomy.post("/v1/decode", Self.form([archive, entries, archive]), contentType: "multipart/form-data; boundary=\(Self.boundary)")
        XCTAssertEqual(reply.status, 200, reply.text)
        let lines = reply.text.split(separator: "\n").map { String($0) }
        XCTAssertEqual(lines.count, 3, reply.text)
        XCTAssertTrue(lines[0].hasPrefix("{\"file\":\"f1.plist\",\"document\":"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("{\"file\":\"f2.plist\",\"error\":"), lines[1])
        XCTAssertTrue(lines[1].contains("urn:archive-service:problem:too-large-for-memory"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("{\"file\":\"f3.plist\",\"document\":"), lines[2])
        // The summary cannot leave the part out: it fails, naming the part.
        let summary = try roomy.post(
            "/v1/decode?view=summary", Self.form([archive, entries, archive]), contentType: "multipart/form-data; boundary=\(Self.boundary)")
        XCTAssertEqual(summary.status, 413, summary.text)
        XCTAssertEqual(summary.jsonObject?["type"] as? String, "urn:archive-service:problem:too-large-for-memory")
        XCTAssertEqual((summary.jsonObject?["detail"] as? String)?.hasPrefix("Part 2 (f2.plist): "), true, summary.text)
        // Everything the requests reserved is given back.
        XCTAssertTrue(try roomy.waitForMetric("archive_memory_reserved_bytes", 0))
    }
}
