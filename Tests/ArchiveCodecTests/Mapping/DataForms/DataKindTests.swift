import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `DataKind` against the table of values it shares with the page's `dataKind`
/// (`Tests/Fixtures/data-kinds/cases.json`), and against hostile headers: nothing read past the
/// bytes, the JPEG walk bounded.
final class DataKindTests: XCTestCase {
    private struct Table: Decodable {
        var cases: [Case]
    }

    private struct Case: Decodable {
        var name: String
        var hex: String
        var kind: String
        var width: UInt32?
        var height: UInt32?
    }

    private func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    private func kind(_ bytes: [UInt8]) -> DataKind? { bytes.withUnsafeBufferPointer { DataKind.of($0) } }

    private func table() throws -> [Case] {
        try JSONDecoder().decode(Table.self, from: Data(Fixtures.dataKinds("cases.json"))).cases
    }

    func testEveryCaseOfTheSharedTable() throws {
        let cases = try table()
        XCTAssertGreaterThanOrEqual(cases.count, 40)
        for entry in cases {
            let found = kind(bytes(entry.hex))
            XCTAssertEqual(found?.name.rawValue ?? "unknown", entry.kind, entry.name)
            XCTAssertEqual(found?.width, entry.width, entry.name)
            XCTAssertEqual(found?.height, entry.height, entry.name)
        }
    }

    /// Every kind is in the table, and the table names only kinds.
    func testTheTableCoversEveryKind() throws {
        let names = Set(try table().map(\.kind))
        XCTAssertEqual(names, Set(DataKind.Name.allCases.map(\.rawValue) + ["unknown"]))
    }

    /// The quick test every data value takes lets through every value that has a kind: each
    /// case, and each case's first bytes over every other byte.
    func testTheQuickTestMissesNoKind() throws {
        var values = try table().map { bytes($0.hex) }
        for entry in try table() where !entry.hex.isEmpty {
            for first in 0...255 { values.append([UInt8(first)] + bytes(entry.hex).dropFirst()) }
        }
        for value in values {
            value.withUnsafeBufferPointer { buffer in
                if DataKind.name(of: buffer) != nil { XCTAssertTrue(DataKind.mightHaveOne(buffer), "\(value.prefix(8))") }
            }
        }
    }

    /// Each value cut short at every length reads no byte past its end: a kind or none, never a
    /// trap (a read past the end traps in a debug build).
    func testEveryPrefixOfEveryCaseIsRead() throws {
        for entry in try table() {
            let whole = bytes(entry.hex)
            for length in 0...whole.count { _ = kind(Array(whole.prefix(length))) }
        }
    }

    /// A PNG inside a real file: the web archive's image subresource.
    func testTheWebArchivesImageIsAPNGWithItsSize() throws {
        let archive = try Fixtures.publicFile("webarchive/webarchivecodable_adele-for-vogue-in-2021.webarchive")
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        let start = try XCTUnwrap((0..<archive.count - 4).first { Array(archive[$0..<$0 + 4]) == signature })
        let found = try XCTUnwrap(kind(Array(archive[start...])))
        XCTAssertEqual(found.name, .png)
        XCTAssertEqual([found.width, found.height], [413, 562])
        let members = [AccountMember("name", .string("png")), AccountMember("width", .unsigned(413)), AccountMember("height", .unsigned(562))]
        XCTAssertEqual(found.account, .object(members))
    }

    /// A frame header past the first `headerBytes` is not looked for: the kind without a size.
    func testAJPEGsFrameHeaderIsLookedForOnlyInItsHead() {
        let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x02, 0x00, 0x03, 0x03] + [UInt8](repeating: 0, count: 9)
        // APP1 segments of 64 KiB each (the most one holds), then the frame header.
        func jpeg(segments: Int) -> [UInt8] {
            var bytes: [UInt8] = [0xFF, 0xD8]
            for _ in 0..<segments { bytes += [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 0xFFFD) }
            return bytes + sof
        }
        XCTAssertEqual(kind(jpeg(segments: 3)), DataKind(name: .jpeg, width: 3, height: 2))
        XCTAssertEqual(kind(jpeg(segments: 4)), DataKind(name: .jpeg, width: nil, height: nil))
    }

    /// Hostile JPEGs: a megabyte of fill bytes, or of the shortest segments, costs one step per
    /// byte or segment of the head, and stops at its end.
    func testTheJPEGWalkIsBoundedByTheHead() {
        let fill: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1 << 20)
        XCTAssertEqual(kind(fill), DataKind(name: .jpeg, width: nil, height: nil))
        var tiny: [UInt8] = [0xFF, 0xD8]
        for _ in 0..<(1 << 18) { tiny += [0xFF, 0xE0, 0x00, 0x02] }
        XCTAssertEqual(kind(tiny), DataKind(name: .jpeg, width: nil, height: nil))
        // A segment that claims more than the bytes hold: no size, nothing allocated for it.
        XCTAssertEqual(kind([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x00]), DataKind(name: .jpeg, width: nil, height: nil))
    }

    /// Declared sizes are only numbers: a BMP's huge dimensions, a WebP's largest canvas.
    func testDeclaredSizesAreReadNotUsed() {
        var bmp: [UInt8] = Array("BM".utf8) + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        bmp += [40, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0x01, 0x00, 0x00, 0x80] + [UInt8](repeating: 0, count: 28)
        let count = UInt32(bmp.count)
        bmp.replaceSubrange(2..<6, with: [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), 0, 0])
        XCTAssertEqual(kind(bmp), DataKind(name: .bmp, width: 0x7FFF_FFFF, height: 0x7FFF_FFFF))
        var webp: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
        webp += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        XCTAssertEqual(kind(webp), DataKind(name: .webp, width: 1 << 24, height: 1 << 24))
    }

    /// The readable view writes no kind for a document the nested view decodes.
    func testDocumentsTheNestedViewDecodesHaveNoReadableKind() {
        for value in [Array("bplist00".utf8) + [0xD0], [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81]] {
            XCTAssertNotNil(kind(value))
            XCTAssertNil(value.withUnsafeBufferPointer { DataForm.readableKind(of: $0) })
        }
        XCTAssertNotNil(Array("%PDF-1.4".utf8).withUnsafeBufferPointer { DataForm.readableKind(of: $0) })
    }
}
