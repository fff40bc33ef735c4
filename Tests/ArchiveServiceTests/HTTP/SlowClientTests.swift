import ArchiveServer
import TestSupport
import XCTest

/// Slow or silent clients are cut off by the connection timeout and cost the others nothing.
final class SlowClientTests: XCTestCase {
    func testStalledUploadAndIdleConnectionAreClosedAfterTheTimeout() throws {
        let server = try TestServer {
            $0.timeout = 1
            $0.headerTimeout = 1
        }
        defer { server.stop() }

        let stalled = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(stalled) }
        TestHTTPClient.sendAll(stalled, Array("POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nbplist00".utf8))
        let idle = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(idle) }
        let halfHeader = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(halfHeader) }
        TestHTTPClient.sendAll(halfHeader, Array("GET /healthz HTTP/1.1\r\nHo".utf8))

        // Meanwhile everybody else is served.
        XCTAssertEqual(try server.get("/healthz").status, 200)
        XCTAssertEqual(try server.post("/v1/decode", Fixtures.bytes("goios_nsuuid.bin")).status, 200)

        let started = Date()
        for fd in [stalled, idle, halfHeader] {
            let leftover = try? TestHTTPClient.readToEnd(fd)  // returns at EOF, throws on reset
            XCTAssertFalse(String(decoding: leftover ?? [], as: UTF8.self).contains(" 200 "))
        }
        let waited = Date().timeIntervalSince(started)
        XCTAssertLessThan(waited, 5, "connections were not closed by their 1-second deadlines")
        XCTAssertEqual(try server.get("/healthz").status, 200)
    }
}
