import Foundation
import HTTPCore
import Logging
import TestSupport
import XCTest

@testable import ArchiveServer

/// Every reply carries `X-Request-Id` (the client's when usable, else a new one), and the access
/// line names it with the client's address, the query and the problem's type.
final class RequestIDTests: XCTestCase {
    func testAClientsIdIsKeptWhenUsable() {
        XCTAssertEqual(RequestID.accepted("abc-123"), "abc-123")
        XCTAssertEqual(RequestID.accepted(String(repeating: "a", count: 64)), String(repeating: "a", count: 64))
        for kept in ["0f8e2c1a-7d4b-4c39-9a51-3e2f1b0c9d88", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "q1+/Zw==", "web@1:2.3_4"] {
            XCTAssertEqual(RequestID.accepted(kept), kept)
        }
        let refused = [
            nil, "", "two words", "quote\"d", "back\\slash", String(repeating: "a", count: 65), "caf\u{E9}", "tab\there",
            "<script>alert(1)</script>", "a<b", "x'y", "a&b", "a;b", "a%0d%0ab", "\u{1B}[31mred", "a\u{202E}b", "{$}"
        ]
        for bad in refused {
            XCTAssertNil(RequestID.accepted(bad), String(describing: bad))
        }
    }

    func testGeneratedIdsAreDistinct() {
        var first = RequestIDGenerator(loop: 0)
        var second = RequestIDGenerator(loop: 1)
        let ids = (0..<1_000).flatMap { _ in [first.next(), second.next()] }
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertTrue(ids.allSatisfy { RequestID.accepted($0) == $0 })
    }

    func testGeneratedIdsAreTheProcessLoopAndCountInHex() {
        var generator = RequestIDGenerator(loop: 7)
        let ids = (0..<5_000).map { _ in generator.next() }
        let prefix = String(ids[0].prefix(12))
        XCTAssertTrue(prefix.allSatisfy { "0123456789abcdef".contains($0) }, prefix)
        for (index, id) in ids.enumerated() {
            XCTAssertEqual(id, "\(prefix)-7-\(String(index + 1, radix: 16))")
        }
    }

    func testRepliesCarryTheIdAndAccessLinesNameIt() throws {
        let log = CapturedLog()
        let server = try TestServer(logger: Logger(label: "test") { _ in log.handler }) { $0.maxBodySize = 1 << 20 }
        defer { server.stop() }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")

        let kept = try TestHTTPClient.request(
            port: server.port, method: "POST", path: "/v1/decode?pretty=1",
            headers: ["X-Request-Id": "trace-42"], body: archive)
        XCTAssertEqual(kept.status, 200)
        XCTAssertEqual(kept.header("X-Request-Id"), "trace-42")

        let made = try server.post("/v1/decode", Array("{}".utf8))
        let madeID = try XCTUnwrap(made.header("X-Request-Id"))
        XCTAssertNotEqual(madeID, "trace-42")
        XCTAssertNotNil(try server.get("/healthz").header("X-Request-Id"))

        // Markup is never echoed: the id is replaced by one made here.
        let hostile = try TestHTTPClient.request(
            port: server.port, method: "POST", path: "/v1/decode",
            headers: ["X-Request-Id": "<script>alert(1)</script>"], body: archive)
        XCTAssertEqual(hostile.status, 200)
        let replaced = try XCTUnwrap(hostile.header("X-Request-Id"))
        XCTAssertFalse(replaced.contains("<"), replaced)
        XCTAssertEqual(RequestID.accepted(replaced), replaced)

        // Refused from the head, before libevent reads the request: the id still comes back.
        let refused = try TestHTTPClient.request(
            port: server.port, method: "POST", path: "/v1/decode",
            headers: ["X-Request-Id": "big-1", "Content-Length": "99999999999"])
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(refused.header("X-Request-Id"), "big-1")

        // Every reply, whoever writes it (evhttp or the connection guard), forbids sniffing.
        for reply in [kept, made, hostile, refused, try server.get("/healthz"), try server.get("/nowhere")] {
            XCTAssertEqual(reply.header("X-Content-Type-Options"), "nosniff", "\(reply.status)")
        }

        var lines: [[String: String]] = []
        for _ in 0..<100 where lines.count < 3 {
            lines = log.lines(containing: "/v1/decode")
            usleep(10_000)
        }
        let byID = Dictionary(lines.compactMap { line in line["request_id"].map { ($0, line) } }, uniquingKeysWith: { $1 })
        let first = try XCTUnwrap(byID["trace-42"], "\(lines)")
        XCTAssertEqual(first["query"], "pretty=1")
        XCTAssertEqual(first["status"], "200")
        XCTAssertNil(first["problem"])
        XCTAssertTrue(first["client"]?.hasPrefix("127.0.0.1:") == true, "\(first)")
        let failed = try XCTUnwrap(byID[madeID], "\(lines)")
        XCTAssertEqual(failed["problem"], "malformed-plist")
        XCTAssertEqual(byID["big-1"]?["problem"], "body-too-large")
        XCTAssertEqual(byID["big-1"]?["method"], "POST")
    }
}
