import HTTPCore
import XCTest

final class RequestHeadTests: XCTestCase {
    private func parse(_ text: String) throws(RequestHead.Refusal) -> RequestHead {
        let bytes = Array(text.utf8)
        let result: Result<RequestHead, RequestHead.Refusal> = bytes.withUnsafeBytes { buffer in
            do throws(RequestHead.Refusal) { return .success(try RequestHead.parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func end(_ text: String, from: Int = 0) -> Int? {
        Array(text.utf8).withUnsafeBytes { RequestHead.endOfHead(in: $0, from: from) }
    }

    func testEndOfHeadTakesLFOrCRLFAndResumes() {
        XCTAssertEqual(end("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody"), 27)
        XCTAssertEqual(end("GET / HTTP/1.1\nHost: x\n\nbody"), 24)
        XCTAssertEqual(end("GET / HTTP/1.1\r\nHost: x\n\r\n"), 26)
        XCTAssertNil(end("GET / HTTP/1.1\r\nHost: x\r\n"))
        let text = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        // Resuming two bytes before what was searched finds a terminator split across reads.
        XCTAssertEqual(end(text, from: RequestHead.resumePoint(afterSearching: 26)), 27)
    }

    func testRequestLineAndFraming() throws {
        let head = try parse("POST /v1/decode?pretty=1 HTTP/1.1\r\nHost: x\r\ncontent-length:  42 \r\n\r\n")
        XCTAssertEqual(head.method, .post)
        XCTAssertEqual(head.path, "/v1/decode")
        XCTAssertEqual(head.target, "/v1/decode?pretty=1")
        XCTAssertEqual(head.body, .length(42))
        XCTAssertEqual(try parse("GET / HTTP/1.0\r\nContent-Length: 0\r\n\r\n").body, .none)
        XCTAssertEqual(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n").body, .chunked)
        XCTAssertEqual(try parse("POST / HTTP/1.1\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n").body, .length(7))
        XCTAssertEqual(try parse("QUERY / HTTP/1.1\r\n\r\n").method, .unknown)
        // A folded line continues the header before it, as libevent reads it.
        XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nContent-Length: 4\r\n 2\r\n\r\n"))
    }

    /// A target in absolute form or with a fragment is admitted by the path libevent routes.
    func testOnlyAnHTTP11RequestReadsChunkedReplies() throws {
        XCTAssertTrue(try parse("POST /v1/decode HTTP/1.1\r\nHost: x\r\n\r\n").readsChunkedReplies)
        XCTAssertFalse(try parse("POST /v1/decode HTTP/1.0\r\n\r\n").readsChunkedReplies)
    }

    func testPathOfEveryTargetForm() {
        XCTAssertEqual(RequestHead.path(ofTarget: "/v1/decode?pretty=1"), "/v1/decode")
        XCTAssertEqual(RequestHead.path(ofTarget: "/v1/decode#top"), "/v1/decode")
        XCTAssertEqual(RequestHead.path(ofTarget: "http://localhost:8080/v1/decode?x=1"), "/v1/decode")
        XCTAssertEqual(RequestHead.path(ofTarget: "HTTPS://example.com/v1/encode"), "/v1/encode")
        XCTAssertEqual(RequestHead.path(ofTarget: "http://example.com"), "")
        XCTAssertEqual(RequestHead.path(ofTarget: "*"), "*")
        XCTAssertEqual(RequestHead.path(ofTarget: "/http://x/v1/decode"), "/http://x/v1/decode")
    }

    func testRefusals() {
        func kind(_ text: String) -> RequestHead.Refusal.Kind? {
            do {
                _ = try parse(text)
                return nil
            } catch { return error.kind }
        }
        XCTAssertEqual(kind("GET /\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/2.0\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET  / HTTP/1.1\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/1.1\r\nNo colon here\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/1.1\r\nBad Name: 1\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/1.1\r\n continued\r\n\r\n"), .malformed)
        // Targets libevent's URI parser refuses (it would answer them with its own HTML 400).
        for target in ["http://[bad/healthz", "http://host:abc/healthz", "http://%zz/healthz", "h@ttp://x/healthz"] {
            XCTAssertEqual(kind("GET \(target) HTTP/1.1\r\n\r\n"), .malformed, target)
        }
        XCTAssertNil(kind("GET http://x:8080/healthz?a=1 HTTP/1.1\r\n\r\n"))
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), .ambiguousFraming)
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), .ambiguousFraming)
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), .unsupportedCoding)
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"), .unsupportedCoding)
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"), .lengthTooLarge)
        XCTAssertEqual(kind("POST / HTTP/1.1\r\nContent-Length: 4294967296\r\n\r\n"), .lengthTooLarge)
    }

    func testBodiesLibeventLeavesUnread() {
        XCTAssertTrue(HTTPMethod.post.bodyIsReadByLibevent)
        XCTAssertTrue(HTTPMethod.get.bodyIsReadByLibevent)
        XCTAssertFalse(HTTPMethod.head.bodyIsReadByLibevent)
        XCTAssertFalse(HTTPMethod.trace.bodyIsReadByLibevent)
        XCTAssertFalse(HTTPMethod.unknown.bodyIsReadByLibevent)
    }
}
