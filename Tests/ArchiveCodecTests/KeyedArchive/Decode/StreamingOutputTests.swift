import TestSupport
import XCTest

@testable import ArchiveCodec

/// `KeyedArchive.writeJSON` hands the text over in pieces; joined, they are exactly what
/// `json(view:pretty:)` returns, and the size limit still holds (after part of the text).
final class StreamingOutputTests: XCTestCase {
    private func streamed(_ archive: KeyedArchive, view: ArchiveView, pretty: Bool) throws -> (text: [UInt8], pieces: Int) {
        var text: [UInt8] = []
        var pieces = 0
        try archive.writeJSON(view: view, pretty: pretty) { piece in
            text.append(contentsOf: piece)
            pieces += 1
        }
        return (text, pieces)
    }

    func testPiecesJoinToTheWholeText() throws {
        // A fixture (one piece) and a wide archive of distinct strings (several pieces).
        let wide = try buildArchive(
            [.object("NSArray", [("NS.objects", .array((0..<60_000).map { .uid(2 + $0) }))])]
                + (0..<60_000).map { .string("item number \($0) of a wide array") })
        for bytes in [try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist"), wide] {
            let archive = try KeyedArchive(parsing: bytes)
            for (view, pretty) in [(ArchiveView.readable, false), (.readable, true), (.raw, false)] {
                let whole = try archive.json(view: view, pretty: pretty)
                let (text, pieces) = try streamed(archive, view: view, pretty: pretty)
                XCTAssertEqual(text, whole, "\(view) pretty=\(pretty)")
                XCTAssertEqual(pieces, max(1, (whole.count + JSONOutput.drainSize - 1) / JSONOutput.drainSize), accuracy: 1)
            }
        }
    }

    func testTheSizeLimitHoldsWhileStreaming() throws {
        let long = String(repeating: "y", count: 100_000)
        let bytes = try buildArchive([.object("NSArray", [("NS.objects", .array(Array(repeating: .uid(2), count: 1_000)))]), .string(long)])
        let archive = try KeyedArchive(parsing: bytes)
        var received = 0
        XCTAssertThrowsError(try archive.writeJSON(view: .readable, pretty: false) { received += $0.count }) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded)
        }
        let limit = KeyedArchive.maximumOutputSize(forInputSize: bytes.count)
        XCTAssertGreaterThan(received, 0, "pieces went out before the limit was found")
        XCTAssertLessThanOrEqual(received, limit + JSONOutput.drainSize + long.count + 16)
    }
}
