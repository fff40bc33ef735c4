import XCTest

@testable import ArchiveServer

/// Replies compressed piece by piece read back whole with the system's gzip.
final class ReplyCompressorTests: XCTestCase {
    let text: [UInt8] = Array((0..<20_000).map { "{\"$class\":\"Team\",\"id\":\($0)}," }.joined().utf8)

    private func compressed(_ bytes: [UInt8], _ coding: ContentCoding, pieces: Int) -> ([UInt8], ContentCoding) {
        let compressor = ReplyCompressor(coding: coding)
        var output: [UInt8] = []
        var starts = 0
        let size = max(1, bytes.count / pieces)
        for start in stride(from: 0, to: bytes.count, by: size) {
            bytes[start..<min(bytes.count, start + size)].withUnsafeBufferPointer { piece in
                compressor.write(
                    piece,
                    starting: {
                        starts += 1
                        return true
                    }, emit: { output.append(contentsOf: $0) })
            }
        }
        let used = compressor.finish { output.append(contentsOf: $0) }
        XCTAssertFalse(compressor.failed)
        XCTAssertEqual(starts, used == .identity ? 0 : 1)
        return (output, used)
    }

    func testPiecesOfAnySizeMakeOneStream() throws {
        for pieces in [1, 3, 1_000, text.count] {
            let (gzip, used) = compressed(text, .gzip, pieces: pieces)
            XCTAssertEqual(used, .gzip)
            XCTAssertLessThan(gzip.count, text.count / 3)
            XCTAssertEqual(try SystemGzip.decompress(gzip), text, "\(pieces) pieces")
            let (zlib, usedDeflate) = compressed(text, .deflate, pieces: pieces)
            XCTAssertEqual(usedDeflate, .deflate)
            XCTAssertEqual(try SystemGzip.zlibDecompress(zlib), text, "\(pieces) pieces")
        }
    }

    func testShortRepliesStayAsTheyAre() throws {
        let short = Array(text.prefix(ReplyCompressor.minimumSize - 1))
        let (output, used) = compressed(short, .gzip, pieces: 7)
        XCTAssertEqual(used, .identity)
        XCTAssertEqual(output, short)
        XCTAssertNil(ReplyCompressor.compress(short, in: .gzip))
        let exact = Array(text.prefix(ReplyCompressor.minimumSize))
        XCTAssertEqual(try SystemGzip.decompress(try XCTUnwrap(ReplyCompressor.compress(exact, in: .gzip))), exact)
        XCTAssertNil(ReplyCompressor.compress(text, in: .identity))
    }

    func testRefusedStartLeavesTheReplyUnusable() {
        let compressor = ReplyCompressor(coding: .gzip)
        var emitted = 0
        text.withUnsafeBufferPointer { compressor.write($0, starting: { false }, emit: { emitted += $0.count }) }
        XCTAssertTrue(compressor.failed)
        XCTAssertEqual(emitted, 0)
    }

    func testAStreamStartedAtOnceIsFlushedWholeAfterEachPiece() throws {
        let compressor = ReplyCompressor(coding: .gzip)
        XCTAssertTrue(compressor.startNow())
        var output: [UInt8] = []
        var flushedAt: [Int] = []
        for line in ["{\"a\":1}\n", "{\"b\":2}\n"] {
            Array(line.utf8).withUnsafeBufferPointer { piece in
                compressor.write(piece, starting: { false }, emit: { output += $0 })
            }
            XCTAssertFalse(compressor.failed, "started already: the start is not asked for again")
            compressor.flush { output += $0 }
            // A sync flush ends on an empty stored block: everything so far can be inflated.
            XCTAssertEqual(Array(output.suffix(4)), [0, 0, 0xFF, 0xFF])
            XCTAssertLessThanOrEqual(output.count - (flushedAt.last ?? 0), ReplyCompressor.bound(line.utf8.count))
            flushedAt.append(output.count)
        }
        XCTAssertEqual(compressor.finish { output += $0 }, .gzip, "a short stream started at once stays coded")
        XCTAssertEqual(try SystemGzip.decompress(output), Array("{\"a\":1}\n{\"b\":2}\n".utf8))
    }
}
