import ArchiveServer
import Foundation
import TestSupport
import XCTest

/// The connection guard, through real sockets: no byte of one request is ever read as another,
/// requests are refused by their head before their body is read, deadlines hold for the whole
/// head and body, and every refusal is a problem document.
final class ConnectionGuardTests: XCTestCase {
    /// Sends `raw` on one connection and reads until the server closes it.
    private func exchange(_ port: Int, _ raw: String) throws -> String {
        let fd = try TestHTTPClient.connect(port: port, timeoutSeconds: 10)
        defer { close(fd) }
        XCTAssertTrue(TestHTTPClient.sendAll(fd, Array(raw.utf8)))
        return String(decoding: try TestHTTPClient.readToEnd(fd), as: UTF8.self)
    }

    private func statuses(_ text: String) -> [String] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
    }

    /// The body of a HEAD or TRACE request, or of an unknown method, hides a request: the guard
    /// drops it, so the hidden one is never served and the next real request is.
    func testBodyOfHeadTraceOrUnknownMethodIsDroppedNotServed() throws {
        let server = try TestServer()
        defer { server.stop() }
        let hidden = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        for method in ["HEAD", "TRACE", "PROPFIND"] {
            let text = try exchange(
                server.port,
                "\(method) /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: \(hidden.utf8.count)\r\n\r\n\(hidden)"
                    + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            XCTAssertEqual(statuses(text).count, 2, "\(method): \(text)")
            XCTAssertEqual(statuses(text).last, "200", "\(method): \(text)")
            XCTAssertFalse(text.contains("# HELP"), "\(method): the body was served as a request")
        }
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        defer { server.stop() }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let decode = "POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: \(archive.count)\r\n\r\n"
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(fd) }
        let raw =
            Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n\(decode)".utf8) + archive
            + Array("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        XCTAssertTrue(TestHTTPClient.sendAll(fd, raw))
        let text = String(decoding: try TestHTTPClient.readToEnd(fd), as: UTF8.self)
        XCTAssertEqual(statuses(text), ["200", "200", "404", "200"], text)
    }

    func testChunkedBodyIsReadToItsEnd() throws {
        let server = try TestServer()
        defer { server.stop() }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let half = archive.count / 2
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(fd) }
        var raw = Array("POST /v1/decode HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        raw += Array("\(String(half, radix: 16))\r\n".utf8) + archive[..<half] + Array("\r\n".utf8)
        raw += Array("\(String(archive.count - half, radix: 16)) ext\r\n".utf8) + archive[half...] + Array("\r\n0\r\nX-Trailer: 1\r\n\r\n".utf8)
        raw += Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        XCTAssertTrue(TestHTTPClient.sendAll(fd, raw))
        let text = String(decoding: try TestHTTPClient.readToEnd(fd), as: UTF8.self)
        XCTAssertEqual(statuses(text), ["200", "200"], text)
        XCTAssertTrue(text.contains("\"$uuid\""), text)
    }

    func testAmbiguousOrUnsupportedFramingIsRefusedAsAProblem() throws {
        let server = try TestServer()
        defer { server.stop() }
        let cases: [(String, String, String)] = [
            ("Content-Length: 5\r\nContent-Length: 50", "400", "bad-framing"),
            ("Transfer-Encoding: chunked\r\nContent-Length: 3", "400", "bad-framing"),
            ("Transfer-Encoding: gzip", "501", "not-implemented"),
            ("Content-Length: 9223372036854775808", "413", "body-too-large"),
            ("Content-Length: -1", "400", "bad-request")
        ]
        for (headers, status, slug) in cases {
            let text = try exchange(server.port, "POST /v1/decode HTTP/1.1\r\nHost: x\r\n\(headers)\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\n\r\n")
            XCTAssertEqual(statuses(text), [status], "\(headers): \(text)")
            XCTAssertTrue(text.contains("application/problem+json") && text.contains(slug), "\(headers): \(text)")
            XCTAssertTrue(text.lowercased().contains("connection: close"), text)
        }
        let garbage = try exchange(server.port, "THIS IS NOT HTTP\r\n\r\n")
        XCTAssertEqual(statuses(garbage), ["400"], garbage)
        let metrics = try server.get("/metrics").text
        XCTAssertEqual(TestServer.metricValue("archive_rejections_total{reason=\"bad_request\"}", in: metrics), 5, metrics)
    }

    /// Framing written with look-alikes of ASCII letters (the Kelvin sign, the long s, dotless and
    /// dotted i) or whitespace libevent keeps is refused with one problem document, and the
    /// "chunks" behind it are never read as requests.
    func testLookAlikeFramingIsRefusedNotSmuggled() throws {
        let server = try TestServer()
        defer { server.stop() }
        let smuggled = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        let chunks = "5\r\nhello\r\n0\r\n\r\n"
        for framing in [
            "Transfer-Encoding: chun\u{212A}ed", "Transfer-Encoding: ch\u{0131}nked", "Transfer-Encoding: chunked\u{0130}",
            "Tran\u{017F}fer-Encoding: chunked", "Transfer-Encoding:\tchunked", "Transfer-Encoding:\r\n chunked",
            "Transfer-Encoding: chunked\u{0}", "Content-Length: \u{0665}"
        ] {
            let text = try exchange(server.port, "POST /v1/decode HTTP/1.1\r\nHost: x\r\n\(framing)\r\n\r\n\(chunks)\(smuggled)")
            XCTAssertEqual(statuses(text), ["400"], "\(framing.debugDescription): \(text)")
            XCTAssertTrue(text.contains("application/problem+json") && text.contains("X-Request-Id: "), text)
            XCTAssertFalse(text.contains("# HELP"), "\(framing.debugDescription): a smuggled request was served")
        }
    }

    /// `Connection: close` in any Connection header or list member ends the connection after the
    /// reply (libevent alone reads only the first header, and only the exact value).
    func testConnectionCloseInAnyHeaderClosesAfterTheReply() throws {
        let server = try TestServer()
        defer { server.stop() }
        for connection in ["Connection: keep-alive\r\nConnection: close", "Connection: TE, close", "Connection: CLOSE"] {
            let text = try exchange(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\(connection)\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(statuses(text), ["200"], "\(connection): \(text)")
            XCTAssertTrue(text.contains("Connection: close"), text)
        }
    }

    /// An expectation other than 100-continue gets the service's 417 problem, not libevent's page.
    func testUnknownExpectationIsAProblem() throws {
        let server = try TestServer()
        defer { server.stop() }
        let text = try exchange(server.port, "POST /v1/decode HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 5\r\n\r\nhello")
        XCTAssertEqual(statuses(text), ["417"], text)
        XCTAssertTrue(text.contains("application/problem+json") && text.contains("expectation-failed") && text.contains("X-Request-Id: "), text)
    }

    /// CONNECT is refused (404 or 405) with a stated length, so the reply ends where it says and the
    /// next request on the connection is read as one.
    func testConnectReplyIsDelimited() throws {
        let server = try TestServer()
        defer { server.stop() }
        let text = try exchange(server.port, "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let replies = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
        XCTAssertEqual(replies.count, 2, text)
        guard let connect = replies.first, let head = connect.range(of: "\r\n\r\n") else { return XCTFail(text) }
        XCTAssertTrue(connect.hasPrefix("404 ") || connect.hasPrefix("405 "), text)
        XCTAssertTrue(connect.contains("Content-Length: \(connect[head.upperBound...].utf8.count)\r\n"), text)
        XCTAssertTrue(replies.last?.hasPrefix("200 ") == true, text)
    }

    /// A body over the limit is refused from its Content-Length, before a byte of it is sent: a
    /// client waiting for 100-continue gets the 413 at once.
    /// A chunk announced past --max-body-size, a malformed trailer and a target libevent's URI
    /// parser refuses each get one reply, ours (a problem document with X-Request-Id), never
    /// libevent's HTML one as well or instead.
    func testLibeventNeverAnswersARefusalItself() throws {
        let server = try TestServer { $0.maxBodySize = 1 << 20 }
        defer { server.stop() }
        let chunked = "POST /v1/decode HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        var cases = Array(repeating: (chunked + "FFFFFFF\r\n", "413"), count: 10)
        cases += [
            (chunked + "0\r\nNo colon\r\n\r\n", "400"), (chunked + "0\r\n folded\r\n\r\n", "400"),
            ("GET http://[bad/healthz HTTP/1.1\r\nHost: x\r\n\r\n", "400"), ("GET http://host:abc/healthz HTTP/1.1\r\nHost: x\r\n\r\n", "400")
        ]
        for (request, status) in cases {
            let text = try exchange(server.port, request)
            XCTAssertEqual(statuses(text), [status], text)
            XCTAssertTrue(text.contains("application/problem+json") && text.contains("X-Request-Id"), text)
        }
    }

    func testOversizedBodyIsRefusedFromItsHead() throws {
        let server = try TestServer { $0.maxBodySize = 1 << 20 }
        defer { server.stop() }
        let started = Date()
        let text = try exchange(server.port, "POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(statuses(text), ["413"], text)
        XCTAssertTrue(text.contains("body-too-large") && text.contains("\"limit\":1048576"), text)
        XCTAssertFalse(text.contains("100 Continue"), text)
    }

    /// The memory budget admits by Content-Length: 503 with Retry-After while other requests hold
    /// it, 413 for a body that could never fit; the reservation is released after each request.
    func testMemoryBudgetRefusesByContentLength() throws {
        let gate = Gate()
        let server = try TestServer(hooks: ServerHooks(beforeConversion: { gate.wait() })) {
            $0.memoryBudget = 16 << 20
            $0.workers = 1
        }
        defer { server.stop() }
        // About 2.5 MiB of body reserves more than half the budget while it converts.
        let big = try Fixtures.bytes("goios_nsuuid.bin") + [UInt8](repeating: 0, count: 5 << 19)
        let port = server.port
        let first = ConcurrentResults()
        let thread = Thread { first.append((try? TestHTTPClient.post(port, "/v1/decode", big))?.status ?? -1) }
        thread.start()
        while gate.arrivals < 1 { usleep(2_000) }
        let second = try server.post("/v1/decode", big)
        XCTAssertEqual(second.status, 503, second.text)
        XCTAssertEqual(second.header("Retry-After"), "1")
        XCTAssertTrue(second.text.contains("memory-budget-full"), second.text)
        XCTAssertEqual(try server.get("/healthz").status, 200)
        gate.openGate()
        while first.values.isEmpty { usleep(2_000) }
        let never = try exchange(port, "POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: \(8 << 20)\r\n\r\n")
        XCTAssertEqual(statuses(never), ["413"], never)
        XCTAssertTrue(never.contains("too-large-for-memory"), never)
        XCTAssertTrue(try server.waitForMetric("archive_memory_reserved_bytes", 0))
    }

    /// Bodies being received hold the budget (as their bytes arrive) and make the service not
    /// ready until they go.
    func testReadinessFollowsTheMemoryBudget() throws {
        let server = try TestServer { $0.memoryBudget = 16 << 20 }
        defer { server.stop() }
        XCTAssertEqual(try server.get("/readyz").status, 200)
        // 3 MiB of a 3.5 MiB decode body received reserve 14 MiB of the 16.
        let holder = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        XCTAssertTrue(TestHTTPClient.sendAll(holder, Array("POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: \(7 << 19)\r\n\r\n".utf8)))
        XCTAssertTrue(TestHTTPClient.sendAll(holder, [UInt8](repeating: 0, count: 3 << 20)))
        var ready = try server.get("/readyz")
        for _ in 0..<100 where ready.status == 200 {
            usleep(10_000)
            ready = try server.get("/readyz")
        }
        XCTAssertEqual(ready.status, 503, ready.text)
        XCTAssertTrue(ready.text.contains("memory budget"), ready.text)
        close(holder)
        XCTAssertTrue(try server.waitForMetric("archive_memory_reserved_bytes", 0))
        XCTAssertEqual(try server.get("/readyz").status, 200)
    }

    /// A decode reserves by what its tables will hold, counted before it parses: an archive of a
    /// few bytes per entry that fits the budget by its size is refused when its entries do not.
    func testDecodeReservesByEntriesNotBytes() throws {
        let server = try TestServer { $0.memoryBudget = 16 << 20 }
        defer { server.stop() }
        let small = TestArchives.sharedEntries(count: 50_000)
        let answer = try server.post("/v1/decode", small)
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertTrue(answer.text.hasPrefix("[]"), answer.text)
        let dense = TestArchives.sharedEntries(count: 300_000)
        XCTAssertLessThan(dense.count * 4, 16 << 20)
        let refused = try server.post("/v1/decode", dense)
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertTrue(refused.text.contains("too-large-for-memory"), refused.text)
        XCTAssertTrue(try server.waitForMetric("archive_memory_reserved_bytes", 0))
    }

    /// A head that trickles in is cut off at its deadline, with a 408 problem, however steadily
    /// its bytes come.
    func testSlowHeadIsCutOffAtItsDeadline() throws {
        let server = try TestServer { $0.headerTimeout = 1 }
        defer { server.stop() }
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(fd) }
        let started = Date()
        var answer = ""
        for byte in "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8 {
            guard TestHTTPClient.sendAll(fd, [byte]) else { break }
            usleep(100_000)
            if Date().timeIntervalSince(started) > 4 { break }
        }
        answer = String(decoding: (try? TestHTTPClient.readToEnd(fd)) ?? [], as: UTF8.self)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 408 "), answer)
        XCTAssertTrue(answer.contains("header-timeout"), answer)
    }

    func testHeadOverTheSizeLimitIs431() throws {
        let server = try TestServer()
        defer { server.stop() }
        let text = try exchange(server.port, "GET /healthz HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n")
        XCTAssertEqual(statuses(text), ["431"], text)
        XCTAssertTrue(text.contains("headers-too-large"), text)
    }

    /// A server limited to 8 connections on one loop, and `count` connections that each sent
    /// `bytes` (a moment apart, so each reaches the server before the next), after `first` ran.
    private func floodedServer(
        sending bytes: String, count: Int = 24, first: (TestServer) throws -> Void = { _ in }
    ) throws -> (server: TestServer, flood: [Int32]) {
        let server = try TestServer {
            $0.maxConnections = 8
            $0.eventLoops = 1
        }
        try first(server)
        var flood: [Int32] = []
        for _ in 0..<count {
            let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
            TestHTTPClient.sendAll(fd, Array(bytes.utf8))
            flood.append(fd)
            usleep(20_000)
        }
        return (server, flood)
    }

    /// At the connection limit, connections still sending their headers make room for new ones,
    /// so the probes are answered while the service is flooded.
    func testConnectionLimitKeepsHealthAnswered() throws {
        let (server, flood) = try floodedServer(sending: "GET /healthz HTTP/1.1\r\nHo")
        defer {
            flood.forEach { close($0) }
            server.stop()
        }
        for _ in 0..<5 {
            let started = Date()
            XCTAssertEqual(try server.get("/healthz").status, 200)
            XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        }
        let metrics = try server.get("/metrics").text
        XCTAssertLessThanOrEqual(TestServer.metricValue("archive_connections", in: metrics) ?? 99, 8, metrics)
        XCTAssertGreaterThan(TestServer.metricValue("archive_rejections_total{reason=\"connection_limit\"}", in: metrics) ?? 0, 0, metrics)
    }

    /// At the connection limit, connections whose bodies trickle in make room too (slowest
    /// first): a flood of heads each followed by one byte of a two-byte body cannot keep the
    /// probes out.
    func testSlowBodiesMakeRoomAtTheConnectionLimit() throws {
        let (server, flood) = try floodedServer(sending: "POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nb")
        defer {
            flood.forEach { close($0) }
            server.stop()
        }
        for path in ["/healthz", "/readyz", "/metrics"] {
            let started = Date()
            XCTAssertEqual(try server.get(path).status, 200, path)
            XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        }
        // The evicted are told why.
        let answer = String(decoding: (try? TestHTTPClient.readToEnd(flood[0])) ?? [], as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 503 ") && answer.contains("connection-limit"), answer)
    }

    /// A connection that has just opened and not yet sent (a probe a moment after connecting)
    /// makes room last: a flood of slow bodies closes its own members first.
    func testJustOpenedConnectionsMakeRoomLast() throws {
        var probe: Int32 = -1
        let (server, flood) = try floodedServer(
            sending: "POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nb", count: 16,
            first: { probe = try TestHTTPClient.connect(port: $0.port, timeoutSeconds: 10) })
        defer {
            close(probe)
            flood.forEach { close($0) }
            server.stop()
        }
        XCTAssertTrue(TestHTTPClient.sendAll(probe, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)))
        let answer = String(decoding: (try? TestHTTPClient.readToEnd(probe)) ?? [], as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 "), answer)
    }
}
