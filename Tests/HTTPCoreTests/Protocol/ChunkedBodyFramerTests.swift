import HTTPCore
import XCTest

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
            let used = try piece.withUnsafeBytes {
                try framer.consume($0) {
                    sizes.append($0)
                    return true
                }
            }
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

    /// Trailer lines are header lines as libevent reads them, or the body is refused (libevent
    /// would answer a malformed trailer with its own HTML 413).
    func testTrailerLinesAreHeadersLibeventAccepts() throws {
        for good in ["0\r\n\r\n", "0\r\nX: y\r\n\r\n", "0\r\nX: y\r\n z\r\n\r\n", "0\r\nX:\r\n\r\n", "0\nX: y\n\tz\n\n"] {
            XCTAssertTrue(try frame(good, step: 3).done, good)
        }
        for bad in [
            "0\r\nNo colon\r\n\r\n", "0\r\n continued first\r\n\r\n", "0\r\nX: a\rb\r\n\r\n", "0\r\n\rX: y\r\n\r\n", "0\r\nX: a\u{0}b\r\n\r\n",
            "0\r\n" + String(repeating: "X: \(String(repeating: "a", count: 4000))\r\n", count: 5) + "\r\n"
        ] {
            XCTAssertThrowsError(try frame(bad, step: 7), bad.debugDescription)
        }
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
