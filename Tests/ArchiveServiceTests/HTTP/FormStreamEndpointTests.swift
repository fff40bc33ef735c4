import ArchiveServer
import Foundation
import HTTPCore
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A form's decode streamed over real sockets: each line is a chunk of its own, sent once made;
/// a client that reads slowly holds the worker at the stream's bound instead of the budget
/// holding every line; a client that leaves stops the decode at the next part; a coded stream
/// is one stream flushed per line; an HTTP/1.0 client gets the lines in one reply, unchunked.
final class FormStreamEndpointTests: ServerTestCase {
    private static let boundary = "------------------------a6b3c0f9e1d24d57"
    private static let contentType = "multipart/form-data; boundary=\(boundary)"

    /// A form as curl -F writes it, part n named fn.plist.
    private static func form(_ files: [[UInt8]]) -> [UInt8] {
        var body: [UInt8] = []
        for (index, file) in files.enumerated() {
            body += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\(index + 1).plist\"\r\n\r\n".utf8)
            body += file + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    /// The bytes of a POST of `body` to /v1/decode`query`.
    private func request(_ body: [UInt8], query: String = "", version: String = "HTTP/1.1", headers: [String: String] = [:]) -> [UInt8] {
        var head = "POST /v1/decode\(query) \(version)\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: \(Self.contentType)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Sends `bytes` on a new connection and reads the reply to its end: the parsed reply and
    /// the body as it came on the wire.
    private func exchange(_ bytes: [UInt8]) throws -> (reply: HTTPReply, wire: [UInt8]) {
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 60)
        defer { close(fd) }
        XCTAssertTrue(TestHTTPClient.sendAll(fd, bytes))
        let raw = try TestHTTPClient.readToEnd(fd)
        let reply = try TestHTTPClient.parse(raw, method: "POST")
        return (reply, Array(raw[(try headEnd(of: raw))...]))
    }

    private func headEnd(of raw: [UInt8]) throws -> Int {
        let end = try XCTUnwrap((0..<max(0, raw.count - 3)).first { raw[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) })
        return end + 4
    }

    private var files: [[UInt8]] {
        get throws {
            let dictionary = try Fixtures.bytes("goios_dict.bin")
            let complex = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
            return [dictionary, complex, dictionary, complex, dictionary]
        }
    }

    func testEachLineIsAChunkOfItsOwnInOrder() throws {
        let files = try files
        let (reply, wire) = try exchange(request(Self.form(files)))
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(reply.header("Content-Length"))
        XCTAssertEqual(reply.header("Content-Type"), "application/x-ndjson")
        let chunks = try TestHTTPClient.chunks(of: wire)
        XCTAssertEqual(chunks.count, files.count)
        for (index, chunk) in chunks.enumerated() {
            let text = String(decoding: chunk, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("{\"file\":\"f\(index + 1).plist\",\"document\":"), text)
            XCTAssertEqual(chunk.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one whole line per chunk")
            XCTAssertEqual(chunk.last, UInt8(ascii: "\n"))
            XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(chunk)))
        }
        // The access line and the metrics record the reply once, with the bytes sent.
        XCTAssertEqual(try TestServer.metricValue("archive_http_response_bytes_total", in: server.get("/metrics").text), reply.body.count)
    }

    func testAnHTTP10ClientGetsOneReplyNotChunked() throws {
        let files = try files
        let (reply, wire) = try exchange(request(Self.form(files), version: "HTTP/1.0"))
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertNil(reply.header("Transfer-Encoding"))
        // Framed as every reply to HTTP/1.0 is: by the connection's close.
        XCTAssertEqual(reply.body, wire)
        let streamed = try exchange(request(Self.form(files))).reply
        XCTAssertEqual(reply.body, streamed.body, "the same lines")
    }

    func testARefusalOfTheWholeBodyIsNotStreamed() throws {
        let (reply, _) = try exchange(request(Array("--\(Self.boundary)\r\nno headers end".utf8)))
        XCTAssertEqual(reply.status, 400, reply.text)
        XCTAssertNil(reply.header("Transfer-Encoding"))
        XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:malformed-multipart")
        let summary = try exchange(request(Self.form(try files), query: "?view=summary")).reply
        XCTAssertEqual(summary.status, 200, summary.text)
        XCTAssertNil(summary.header("Transfer-Encoding"), "the merged summary is one document, sent whole")
    }

    func testACodedStreamIsOneStreamFlushedAfterEveryLine() throws {
        let files = try files
        let plain = try exchange(request(Self.form(files))).reply
        for coding in ["gzip", "deflate"] {
            let (reply, wire) = try exchange(request(Self.form(files), headers: ["Accept-Encoding": coding]))
            XCTAssertEqual(reply.status, 200, reply.text)
            XCTAssertEqual(reply.header("Content-Encoding"), coding)
            XCTAssertEqual(reply.header("Transfer-Encoding"), "chunked")
            let chunks = try TestHTTPClient.chunks(of: wire)
            // A line per chunk, each ending on a sync flush (an empty stored block: 00 00 FF FF),
            // then the coding's trailer.
            XCTAssertEqual(chunks.count, files.count + 1, coding)
            for chunk in chunks.dropLast() { XCTAssertEqual(Array(chunk.suffix(4)), [0, 0, 0xFF, 0xFF], coding) }
            let inflated = coding == "gzip" ? try SystemGzip.decompress(reply.body) : try SystemGzip.zlibDecompress(reply.body)
            XCTAssertEqual(inflated, plain.body, coding)
        }
    }

    // MARK: Slow and vanishing clients

    /// A part whose line is six times its size and quick to make: a property list of one
    /// string of control characters, each written `\u0001` in JSON.
    private static let largePart: [UInt8] = {
        var writer = TestPlistBuilder()
        let top = writer.string(String(repeating: "\u{01}", count: 40_000))
        return writer.binary(top: top)
    }()

    /// The size of `largePart`'s line, from a decode of it alone.
    private func largeLineBytes() throws -> Int {
        let alone = try server.post("/v1/decode", Self.largePart)
        XCTAssertEqual(alone.status, 200, alone.text)
        XCTAssertGreaterThan(alone.body.count, 5 * Self.largePart.count)
        return alone.body.count
    }

    /// A connection whose receive window is small, so the server's writes wait on the client.
    private func slowConnection(port: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var size: Int32 = 4_096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port ?? server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(rc, 0)
        return fd
    }

    /// Reads from `fd` until `bytes` holds `marker` (or the stream ends), searching only
    /// what each read added.
    private func read(_ fd: Int32, until marker: [UInt8], into bytes: inout [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var searched = 0
        while true {
            if bytes.count >= marker.count,
                (searched...(bytes.count - marker.count)).contains(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) })
            {
                return
            }
            searched = max(0, bytes.count - marker.count + 1)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            bytes += buffer[..<n]
        }
    }

    /// Body bytes of the /metrics replies this test read (they count in the bytes sent too).
    private var metricsRead = 0

    private func metric(_ name: String) throws -> Int {
        let text = try server.get("/metrics").text
        metricsRead += text.utf8.count
        return try XCTUnwrap(TestServer.metricValue(name, in: text), name)
    }

    /// Polls `name` every 50 ms until it is `value`.
    private func waitFor(_ name: String, _ value: Int, seconds: Double = 30) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try metric(name) == value { return true }
            usleep(50_000)
        }
        return false
    }

    func testASlowReaderHoldsTheWorkerAtTheStreamsBoundNotEveryLine() throws {
        let lineBytes = try largeLineBytes()
        let parts = 60
        let body = Self.form(Array(repeating: Self.largePart, count: parts))
        let fd = try slowConnection()
        defer { close(fd) }
        XCTAssertTrue(TestHTTPClient.sendAll(fd, request(body)))
        var received: [UInt8] = []
        read(fd, until: Array("{\"file\":\"f1.plist\"".utf8), into: &received)
        // The client stops reading: the socket's buffers fill, then the stream's queue, and the
        // worker waits. What the request holds then is its body, the parts' table, the queue
        // and a line or two, not the reply.
        var held: [Int] = []
        for _ in 0..<20 {
            usleep(100_000)
            held.append(try metric("archive_memory_reserved_bytes"))
        }
        XCTAssertEqual(try metric("archive_workers_busy"), 1, "the worker waits for the client")
        let bound = body.count + (64 << 10) + ReplyStream.defaultQueueLimit + 3 * lineBytes
        XCTAssertLessThanOrEqual(held.max() ?? 0, bound, "held \(held), line \(lineBytes) bytes")
        XCTAssertGreaterThan(parts * lineBytes, 2 * bound, "the reply is far larger than what was held")
        // Read the rest: every line arrives, in order, and the budget is given back.
        read(fd, until: Array("\r\n0\r\n\r\n".utf8), into: &received)
        let reply = try TestHTTPClient.parse(received, method: "POST")
        let lines = reply.text.split(separator: "\n")
        XCTAssertEqual(lines.count, parts)
        for (index, line) in lines.enumerated() { XCTAssertTrue(line.hasPrefix("{\"file\":\"f\(index + 1).plist\",\"document\":")) }
        XCTAssertTrue(try server.waitForMetric("archive_memory_reserved_bytes", 0))
    }

    func testAClientThatLeavesStopsTheDecodeAtTheNextPart() throws {
        let lineBytes = try largeLineBytes()
        let before = try metric("archive_http_response_bytes_total")
        let parts = 60
        let fd = try slowConnection()
        XCTAssertTrue(TestHTTPClient.sendAll(fd, request(Self.form(Array(repeating: Self.largePart, count: parts)))))
        var received: [UInt8] = []
        read(fd, until: Array("{\"file\":\"f1.plist\"".utf8), into: &received)
        close(fd)
        // The worker stops at the next part, and everything is given back.
        metricsRead = 0
        XCTAssertTrue(try waitFor("archive_workers_busy", 0))
        XCTAssertTrue(try waitFor("archive_memory_reserved_bytes", 0))
        let read = metricsRead
        let sent = try metric("archive_http_response_bytes_total") - before - read
        XCTAssertLessThan(sent, parts * lineBytes / 2, "recorded once, with the bytes sent before the client left")
        XCTAssertGreaterThan(sent, 0)
    }

    /// The drain waits while the client keeps taking the stream, however slowly: under
    /// AddressSanitizer this test's own reading of 14 MB through a 4 KiB window takes seconds
    /// longer than the server's writing, and the kernel's send buffer holds megabytes, so the
    /// socket takes no write for more than the drain's one-second grace while the client reads.
    func testADrainWaitsForAStreamStillBeingSent() throws {
        // Time to read the whole stream through a small window before the drain gives up.
        let patient = try TestServer { $0.drainTimeout = 120 }
        let parts = 60
        let fd = try slowConnection(port: patient.port)
        defer { close(fd) }
        XCTAssertTrue(TestHTTPClient.sendAll(fd, request(Self.form(Array(repeating: Self.largePart, count: parts)))))
        var received: [UInt8] = []
        read(fd, until: Array("{\"file\":\"f1.plist\"".utf8), into: &received)
        patient.server.shutdown()
        // Megabytes of lines are still to be sent: far more than the sockets hold.
        XCTAssertFalse(patient.waitUntilStopped(seconds: 1), "the drain waits for the stream")
        read(fd, until: Array("\r\n0\r\n\r\n".utf8), into: &received)
        let reply = try TestHTTPClient.parse(received, method: "POST")
        XCTAssertEqual(reply.text.split(separator: "\n").count, parts, "every line, then the stream's end")
        XCTAssertTrue(patient.waitUntilStopped(seconds: 30), "the drain ends with the stream")
    }
}
