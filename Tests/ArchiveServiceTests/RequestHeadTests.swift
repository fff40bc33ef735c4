@testable import ArchiveServer
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

    func testRefusals() {
        func kind(_ text: String) -> RequestHead.Refusal.Kind? {
            do { _ = try parse(text); return nil } catch { return error.kind }
        }
        XCTAssertEqual(kind("GET /\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/2.0\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET  / HTTP/1.1\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/1.1\r\nNo colon here\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/1.1\r\nBad Name: 1\r\n\r\n"), .malformed)
        XCTAssertEqual(kind("GET / HTTP/1.1\r\n continued\r\n\r\n"), .malformed)
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

final class ChunkedBodyFramerTests: XCTestCase {
    /// Feeds `text` in pieces of `step` bytes; returns the bytes consumed and the sizes announced.
    private func frame(_ text: String, step: Int) throws -> (consumed: Int, sizes: [Int], done: Bool) {
        var framer = ChunkedBodyFramer()
        let bytes = Array(text.utf8)
        var consumed = 0
        var sizes: [Int] = []
        var offset = 0
        while offset < bytes.count, framer.state != .done {
            let piece = Array(bytes[offset..<min(bytes.count, offset + step)])
            let used = try piece.withUnsafeBytes { try framer.consume($0) { sizes.append($0); return true } }
            consumed += used
            offset += step
            if used < piece.count { break }
        }
        return (consumed, sizes, framer.state == .done)
    }

    func testFindsTheEndWhateverThePieces() throws {
        let body = "4\r\nWiki\r\n5 ext\r\npedia\r\n\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: x\r\n\r\n"
        for step in [1, 2, 3, 7, 1000] {
            let result = try frame(body + "GET / HTTP/1.1\r\n\r\n", step: step)
            XCTAssertTrue(result.done, "step \(step)")
            XCTAssertEqual(result.consumed, body.utf8.count, "step \(step)")
            XCTAssertEqual(result.sizes, [4, 5, 14, 0], "step \(step)")
        }
    }

    func testMalformedSizesAreRefused() {
        XCTAssertThrowsError(try frame("zz\r\n", step: 10))
        XCTAssertThrowsError(try frame("5;ext\r\nhello\r\n", step: 100))
        XCTAssertThrowsError(try frame("1000000000000000\r\n", step: 100))
        XCTAssertThrowsError(try frame(String(repeating: "1", count: 5000), step: 100))
    }

    func testRefusedChunkStopsBeforeItsData() throws {
        var framer = ChunkedBodyFramer()
        let bytes = Array("3\r\nabc\r\n100\r\n".utf8)
        let used = try bytes.withUnsafeBytes { try framer.consume($0) { $0 < 100 } }
        XCTAssertEqual(used, bytes.count)
        XCTAssertEqual(framer.state, .sizeLine)
        XCTAssertEqual(framer.announcedBytes, 3)
    }
}

final class MemoryBudgetTests: XCTestCase {
    func testReservationsGrowShrinkAndReleaseOnFree() {
        let budget = MemoryBudget(capacity: 100)
        var first: Reservation? = budget.reserve(60)
        XCTAssertNotNil(first)
        XCTAssertNil(budget.reserve(41))
        let second = budget.reserve(40)
        XCTAssertNotNil(second)
        XCTAssertFalse(second!.grow(by: 1))
        XCTAssertEqual(second!.bytes, 40)
        first!.shrink(to: 10)
        XCTAssertEqual(budget.snapshot.reserved, 50)
        XCTAssertTrue(second!.grow(by: 30))
        XCTAssertEqual(second!.grow(upTo: 50), 20)
        XCTAssertEqual(budget.snapshot.reserved, 100)
        first = nil
        XCTAssertEqual(budget.snapshot.reserved, 90)
        XCTAssertEqual(budget.snapshot.highWater, 100)
    }

    func testConcurrentReservationsNeverPassTheCapacity() {
        let budget = MemoryBudget(capacity: 1_000)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for size in 1...2_000 {
                if let reservation = budget.reserve(size % 300) {
                    XCTAssertLessThanOrEqual(budget.snapshot.reserved, 1_000)
                    _ = reservation.grow(by: size % 7)
                }
            }
        }
        XCTAssertEqual(budget.snapshot.reserved, 0)
        XCTAssertLessThanOrEqual(budget.snapshot.highWater, 1_000)
    }
}
