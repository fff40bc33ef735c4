import XCTest

@testable import ArchiveServer

/// gzip and deflate on the wire, both ways, against the real server: coded bodies convert as
/// their plain form does, replies come back in the coding asked for and read with the system's
/// gzip, and a small body that inflates past the limit is refused.
final class ContentEncodingTests: ServerTestCase {
    /// An archive whose readable JSON is some kilobytes, so its reply is worth compressing.
    let archive = TestArchives.linkedList(count: 300)

    override func configure(_ configuration: inout ServerConfiguration) {
        configuration.maxBodySize = 1 << 20
    }

    private func post(_ path: String, _ body: [UInt8], _ headers: [String: String]) throws -> HTTPReply {
        try TestHTTPClient.request(port: server.port, method: "POST", path: path, headers: headers, body: body)
    }

    func testCodedBodiesConvertAsTheirPlainForm() throws {
        let plain = try server.post("/v1/decode", archive)
        XCTAssertEqual(plain.status, 200)
        XCTAssertGreaterThan(plain.body.count, 4 * ReplyCompressor.minimumSize)
        XCTAssertNil(plain.header("Content-Encoding"))
        XCTAssertEqual(plain.header("Vary"), "Accept-Encoding")
        let member = try SystemGzip.compress(archive)
        let forms: [(String, [UInt8])] = [
            ("gzip", member), ("x-gzip", member), ("deflate", try SystemGzip.zlibCompress(archive)),
            ("deflate", SystemGzip.deflateData(ofMember: member))
        ]
        for (coding, body) in forms {
            let reply = try post("/v1/decode", body, ["Content-Encoding": coding])
            XCTAssertEqual(reply.status, 200, "\(coding): \(reply.text)")
            XCTAssertEqual(reply.body, plain.body, coding)
        }
        let json = plain.body
        let encoded = try server.post("/v1/encode", json, contentType: "application/json")
        XCTAssertEqual(encoded.status, 200)
        let coded = try post("/v1/encode", try SystemGzip.compress(json), ["Content-Encoding": "gzip", "Content-Type": "application/json"])
        XCTAssertEqual(coded.status, 200, coded.text)
        XCTAssertEqual(coded.body, encoded.body)
    }

    func testRepliesComeInTheAcceptedCoding() throws {
        let plain = try server.post("/v1/decode", archive).body
        let gzip = try post("/v1/decode", archive, ["Accept-Encoding": "gzip, deflate"])
        XCTAssertEqual(gzip.status, 200)
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip")
        XCTAssertEqual(gzip.header("Vary"), "Accept-Encoding")
        XCTAssertEqual(gzip.header("Content-Length"), String(gzip.body.count))
        XCTAssertLessThan(gzip.body.count, plain.count / 3)
        XCTAssertEqual(try SystemGzip.decompress(gzip.body), plain)
        let deflate = try post("/v1/decode", archive, ["Accept-Encoding": "deflate"])
        XCTAssertEqual(deflate.header("Content-Encoding"), "deflate")
        XCTAssertEqual(try SystemGzip.zlibDecompress(deflate.body), plain)
        // Both ways at once, and on /v1/encode in both formats.
        let both = try post("/v1/decode", try SystemGzip.compress(archive), ["Content-Encoding": "gzip", "Accept-Encoding": "gzip"])
        XCTAssertEqual(try SystemGzip.decompress(both.body), plain)
        for format in ["binary", "xml"] {
            let uncompressed = try post("/v1/encode?format=\(format)", plain, ["Content-Type": "application/json"])
            XCTAssertEqual(uncompressed.header("Content-Disposition"), "attachment; filename=\"archive.plist\"", format)
            let expected = uncompressed.body
            let reply = try post(
                "/v1/encode?format=\(format)", try SystemGzip.compress(plain),
                ["Content-Type": "application/json", "Content-Encoding": "gzip", "Accept-Encoding": "gzip"])
            XCTAssertEqual(reply.status, 200, format)
            XCTAssertEqual(reply.header("Content-Encoding"), "gzip", format)
            XCTAssertEqual(reply.header("Content-Disposition"), "attachment; filename=\"archive.plist\"", format)
            XCTAssertEqual(try SystemGzip.decompress(reply.body), expected, format)
        }
        // Refused codings and problem documents are sent as they are.
        XCTAssertNil(try post("/v1/decode", archive, ["Accept-Encoding": "gzip;q=0, br"]).header("Content-Encoding"))
        let problem = try post("/v1/decode", [UInt8](repeating: 0x41, count: 4_000), ["Accept-Encoding": "gzip"])
        XCTAssertEqual(problem.status, 400)
        XCTAssertNil(problem.header("Content-Encoding"))
    }

    func testShortRepliesAreNotCompressed() throws {
        let reply = try post("/v1/decode", TestArchives.linkedList(count: 1), ["Accept-Encoding": "gzip"])
        XCTAssertEqual(reply.status, 200)
        XCTAssertLessThan(reply.body.count, ReplyCompressor.minimumSize)
        XCTAssertNil(reply.header("Content-Encoding"))
        XCTAssertEqual(reply.header("Vary"), "Accept-Encoding")
        XCTAssertNotNil(reply.jsonObject)
    }

    func testSmallBodyInflatingPastTheLimitIs413() throws {
        let bomb = try SystemGzip.compress([UInt8](repeating: 0, count: 2 << 20), level: 9)
        XCTAssertLessThanOrEqual(bomb.count, 3_000)
        for path in ["/v1/decode", "/v1/encode"] {
            let reply = try post(path, bomb, ["Content-Encoding": "gzip", "Content-Type": "application/json"])
            XCTAssertEqual(reply.status, 413, reply.text)
            XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:body-too-large")
            XCTAssertEqual(reply.jsonObject?["limit"] as? Int, 1 << 20)
            XCTAssertTrue((reply.jsonObject?["detail"] as? String ?? "").contains("inflates past"), reply.text)
        }
        // About a kilobyte of deflate that inflates past the limit.
        let kilobyte = try SystemGzip.zlibCompress([UInt8](repeating: 0x20, count: 1_100_000))
        XCTAssertLessThanOrEqual(kilobyte.count, 1_200)
        let deflate = try post("/v1/decode", kilobyte, ["Content-Encoding": "deflate"])
        XCTAssertEqual(deflate.status, 413, deflate.text)
        XCTAssertTrue(try server.waitForMetric("archive_rejections_total{reason=\"body_too_large\"}", 3))
    }

    func testInflationIsHeldToTheMemoryBudget() throws {
        let small = try TestServer {
            $0.maxBodySize = 64 << 20
            $0.memoryBudget = 16 << 20
        }
        defer { small.stop() }
        // gzip states its inflated size, which is refused at once; a zlib stream does not, and
        // is refused as it grows.
        let zeros = [UInt8](repeating: 0, count: 40 << 20)
        for (coding, bomb) in [("gzip", try SystemGzip.compress(zeros, level: 9)), ("deflate", try SystemGzip.zlibCompress(zeros))] {
            let reply = try TestHTTPClient.request(
                port: small.port, method: "POST", path: "/v1/decode",
                headers: ["Content-Encoding": coding], body: bomb)
            XCTAssertEqual(reply.status, 413, reply.text)
            // More than the whole budget: never servable, so 413 rather than 503.
            XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:too-large-for-memory", coding)
        }
        // The budget is whole again afterwards.
        XCTAssertEqual(
            try TestHTTPClient.request(
                port: small.port, method: "POST", path: "/v1/decode",
                headers: ["Content-Encoding": "gzip"], body: try SystemGzip.compress(archive)
            ).status, 200)
    }

    func testUnreadableCodingsNameTheFix() throws {
        let unsupported = try post("/v1/decode", archive, ["Content-Encoding": "br"])
        XCTAssertEqual(unsupported.status, 415)
        XCTAssertEqual(unsupported.jsonObject?["type"] as? String, "urn:archive-service:problem:unsupported-content-encoding")
        XCTAssertEqual(unsupported.header("Accept-Encoding"), "gzip, deflate")
        let mislabelled = try post("/v1/decode", archive, ["Content-Encoding": "gzip"])
        XCTAssertEqual(mislabelled.status, 400)
        XCTAssertEqual(mislabelled.jsonObject?["type"] as? String, "urn:archive-service:problem:malformed-content-encoding")
        XCTAssertTrue((mislabelled.jsonObject?["detail"] as? String ?? "").contains("without Content-Encoding"), mislabelled.text)
        let cut = try post("/v1/decode", Array(try SystemGzip.compress(archive).dropLast(9)), ["Content-Encoding": "gzip"])
        XCTAssertEqual(cut.status, 400)
        XCTAssertTrue((cut.jsonObject?["detail"] as? String ?? "").contains("ends early"), cut.text)
    }

    func testMetricsCompressWhenAsked() throws {
        let reply = try TestHTTPClient.request(port: server.port, method: "GET", path: "/metrics", headers: ["Accept-Encoding": "gzip"])
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.header("Content-Encoding"), "gzip")
        XCTAssertTrue(String(decoding: try SystemGzip.decompress(reply.body), as: UTF8.self).contains("archive_http_requests_total"))
        XCTAssertNil(try server.get("/metrics").header("Content-Encoding"))
    }
}
