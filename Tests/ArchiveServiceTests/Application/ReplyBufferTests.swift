import HTTPCore
import XCTest

@testable import ArchiveServer

/// A reply built piece by piece, every piece reserved before it is kept; another reply's buffer
/// moved in (`append(first:of:)`); bytes reserved ahead for pieces that belong together.
final class ReplyBufferTests: XCTestCase {
    private func events(_ pieces: [String]) -> EventBuffer {
        let buffer = EventBuffer()!
        for piece in pieces { _ = Array(piece.utf8).withUnsafeBufferPointer { buffer.append($0) } }
        return buffer
    }

    private func text(_ buffer: EventBuffer) -> String {
        var bytes: [UInt8] = []
        buffer.forEachPiece(upTo: buffer.count) { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func append(_ text: String, to reply: ReplyBuffer) {
        Array(text.utf8).withUnsafeBufferPointer { reply.append($0) }
    }

    func testAnotherBufferIsMovedInUpToALength() throws {
        let budget = MemoryBudget(capacity: 1_000)
        let reply = try XCTUnwrap(ReplyBuffer(reservation: budget.reserve(0)))
        let document = events(["{\"a\":", "1}", "\n"])
        XCTAssertEqual(document.lastByte, UInt8(ascii: "\n"))
        append("[", to: reply)
        reply.append(first: document.count - 1, of: document)
        append("]", to: reply)
        XCTAssertEqual(text(reply.events), "[{\"a\":1}]")
        XCTAssertEqual(reply.count, 9)
        XCTAssertEqual(budget.snapshot.reserved, 9)
        // What was moved is gone from the other buffer; what was left stays.
        XCTAssertEqual(text(document), "\n")
        XCTAssertNil(EventBuffer()!.lastByte)
    }

    func testReservingAheadIsUsedByThePiecesThatFollow() throws {
        let budget = MemoryBudget(capacity: 10)
        let reply = try XCTUnwrap(ReplyBuffer(reservation: budget.reserve(0)))
        XCTAssertTrue(reply.reserveAhead(6))
        XCTAssertFalse(reply.reserveAhead(5), "past the capacity")
        XCTAssertEqual(budget.snapshot.reserved, 6)
        append("abc", to: reply)
        append("def", to: reply)
        // The six bytes were paid for ahead: nothing more was reserved for them.
        XCTAssertEqual(budget.snapshot.reserved, 6)
        append("ghij", to: reply)
        XCTAssertEqual(budget.snapshot.reserved, 10)
        XCTAssertFalse(reply.overBudget)
        append("k", to: reply)
        XCTAssertTrue(reply.overBudget)
    }

    func testAMovedBufferIsReservedAndRefusedPastTheBudget() throws {
        let budget = MemoryBudget(capacity: 4)
        let reply = try XCTUnwrap(ReplyBuffer(reservation: budget.reserve(0)))
        let document = events(["12345"])
        reply.append(first: 5, of: document)
        XCTAssertTrue(reply.overBudget)
        XCTAssertEqual(reply.refusedAt, 5)
        XCTAssertEqual(reply.events.count, 0)
    }

    func testACodedReplyCompressesWhatIsMovedIn() throws {
        let reply = try XCTUnwrap(ReplyBuffer(reservation: nil, coding: .gzip))
        let document = events([String(repeating: "x", count: 4_000), "\n"])
        reply.append(first: 4_000, of: document)
        reply.finish()
        XCTAssertEqual(reply.coding, .gzip)
        XCTAssertLessThan(reply.count, 200)
        var compressed: [UInt8] = []
        reply.events.forEachPiece(upTo: reply.count) { compressed += $0 }
        XCTAssertEqual(try SystemGzip.decompress(compressed), Array(String(repeating: "x", count: 4_000).utf8))
    }

    func testACompanionReservationIsInTheSameBudget() throws {
        let budget = MemoryBudget(capacity: 100)
        let form = try XCTUnwrap(budget.reserve(60))
        var part = form.companion()
        XCTAssertEqual(part?.bytes, 0)
        XCTAssertEqual(part?.grow(to: 41), false)
        XCTAssertEqual(part?.grow(to: 40), true)
        XCTAssertEqual(budget.snapshot.reserved, 100)
        part = nil
        XCTAssertEqual(budget.snapshot.reserved, 60)
    }

    func testLinesSharingACompressorMakeOneStreamAndTakeNoInputPastWhatWasReserved() throws {
        let budget = MemoryBudget(capacity: 4_096)
        let compressor = ReplyCompressor(coding: .gzip)
        XCTAssertTrue(compressor.startNow())
        var stream: [UInt8] = []
        for line in ["{\"a\":1}\n", "{\"b\":2}\n"] {
            let reservation = try XCTUnwrap(budget.reserve(0))
            let piece = try XCTUnwrap(ReplyBuffer(reservation: reservation, sharing: compressor))
            XCTAssertTrue(piece.reserveAhead(line.utf8.count))
            XCTAssertEqual(reservation.bytes, ReplyCompressor.bound(line.utf8.count))
            append(line, to: piece)
            piece.finish()
            XCTAssertFalse(piece.overBudget)
            XCTAssertEqual(reservation.bytes, piece.count, "what was reserved ahead and not used is given back")
            piece.events.forEachPiece(upTo: piece.count) { stream += $0 }
        }
        // Input past what was reserved is refused before the compressor sees it.
        let unreserved = try XCTUnwrap(ReplyBuffer(reservation: budget.reserve(0), sharing: compressor))
        append("{\"c\":3}\n", to: unreserved)
        XCTAssertTrue(unreserved.overBudget)
        XCTAssertEqual(unreserved.count, 0)
        let trailer = try XCTUnwrap(ReplyBuffer(reservation: budget.reserve(0), sharing: compressor))
        XCTAssertTrue(trailer.reserveAhead(1))
        trailer.finishSharedStream()
        trailer.events.forEachPiece(upTo: trailer.count) { stream += $0 }
        XCTAssertEqual(try SystemGzip.decompress(stream), Array("{\"a\":1}\n{\"b\":2}\n".utf8))
        XCTAssertEqual(trailer.coding, .gzip)
    }
}
