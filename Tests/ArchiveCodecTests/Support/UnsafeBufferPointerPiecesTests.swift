import XCTest

@testable import ArchiveCodec

final class UnsafeBufferPointerPiecesTests: XCTestCase {
    private func pieces(_ count: Int, of size: Int) -> [[Int]] {
        var seen: [[Int]] = []
        Array(0..<count).withUnsafeBufferPointer { $0.forEachPiece(of: size) { seen.append(Array($0)) } }
        return seen
    }

    func testPiecesCoverTheBufferInOrder() {
        XCTAssertEqual(pieces(7, of: 3), [[0, 1, 2], [3, 4, 5], [6]])
        XCTAssertEqual(pieces(6, of: 3), [[0, 1, 2], [3, 4, 5]])
        XCTAssertEqual(pieces(2, of: 5), [[0, 1]])
        XCTAssertEqual(pieces(0, of: 4), [])
    }
}
