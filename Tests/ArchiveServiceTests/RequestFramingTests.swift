import ArchiveServer
import XCTest

/// No byte of one request is ever read as another: a body the server does not read closes the
/// connection after the reply, ambiguous framing is a 400, and every reply states its length.
final class RequestFramingTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws { server = try TestServer() }
    override func tearDown() { server.stop() }

    /// Sends `raw` on one connection and reads until the server closes it.
    private func exchange(_ raw: String) throws -> String {
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(fd) }
        XCTAssertTrue(TestHTTPClient.sendAll(fd, Array(raw.utf8)))
        return String(decoding: try TestHTTPClient.readToEnd(fd), as: UTF8.self)
    }

    /// The body of a HEAD or TRACE request, or of an unknown method, hides a second request:
    /// the server answers the first and closes, so the hidden one is never served.
    func testBodyOfHeadTraceOrUnknownMethodIsNeverParsedAsARequest() throws {
        let hidden = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        for method in ["HEAD", "TRACE", "PROPFIND"] {
            let text = try exchange("\(method) /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: \(hidden.utf8.count)\r\n\r\n\(hidden)")
            XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 ").count - 1, 1, "\(method): \(text)")
            XCTAssertTrue(text.lowercased().contains("connection: close"), "\(method): \(text)")
            XCTAssertFalse(text.contains("# HELP"), "\(method): the body was served as a request")
        }
    }

    /// Without a body the same methods keep the connection open for the next request.
    func testHeadWithoutBodyKeepsTheConnection() throws {
        let text = try exchange("HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1, 2, text)
        XCTAssertTrue(text.contains("Content-Length: 15"), text)
    }

    func testConflictingContentLengthsAre400AndClose() throws {
        let text = try exchange("POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\nbplist00")
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 400 "), text)
        XCTAssertTrue(text.contains("bad-framing"), text)
        XCTAssertTrue(text.lowercased().contains("connection: close"), text)
    }

    /// Chunked and a length at once: answered by the chunks, then closed (RFC 9112 §6.1).
    func testChunkedBodyWithAContentLengthClosesAfterTheReply() throws {
        let text = try exchange("POST /v1/decode HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(text.components(separatedBy: "HTTP/1.1 ").count - 1, 1, text)
        XCTAssertTrue(text.lowercased().contains("connection: close"), text)
    }

    /// CONNECT is refused (404 or 405) with a stated length, so the reply ends where it says and the
    /// next request on the connection is read as one.
    func testConnectReplyIsDelimited() throws {
        let text = try exchange("CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let replies = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
        XCTAssertEqual(replies.count, 2, text)
        guard let connect = replies.first, let head = connect.range(of: "\r\n\r\n") else { return XCTFail(text) }
        XCTAssertTrue(connect.hasPrefix("404 ") || connect.hasPrefix("405 "), text)
        XCTAssertTrue(connect.contains("Content-Length: \(connect[head.upperBound...].utf8.count)\r\n"), text)
        XCTAssertTrue(replies.last?.hasPrefix("200 ") == true, text)
    }
}
