import TestSupport
import XCTest

@testable import ArchiveCodec

/// `ArchiveCounts` reads, before parsing, counts a decode will allocate by; they must bound
/// what the decode finds, and reading them must be safe on any bytes.
final class ArchiveCountsTests: XCTestCase {
    /// For every real archive: a binary plist's counts are exactly the decode's (the trailer's
    /// objects, the `$objects` entries); an XML plist's bound them.
    func testCountsBoundTheDecodeOnEveryFixture() throws {
        var checked = 0
        for (name, bytes, archive) in Fixtures.archives() {
            let counts = ArchiveCounts(of: bytes)
            if archive.sourceFormat == .binary {
                XCTAssertEqual(counts.entries, archive.objectCount, name)
                XCTAssertEqual(counts.objects, archive.plist.objectCount, name)
            } else {
                XCTAssertGreaterThanOrEqual(counts.entries, archive.objectCount, name)
                XCTAssertGreaterThanOrEqual(counts.objects, archive.plist.objectCount, name)
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20)
    }

    /// Entries that all share one object cost a byte of reference each in the file; the
    /// counts counts them, though the file is small and has few objects.
    func testEntriesSharingOneObjectAreCounted() throws {
        let count = 50_000
        for xml in [false, true] {
            let bytes = try buildArchive([.object("NSArray", [])] + Array(repeating: .bool(true), count: count), xml: xml)
            let counts = ArchiveCounts(of: bytes)
            let archive = try KeyedArchive(parsing: bytes)
            XCTAssertEqual(archive.objectCount, count + 3)
            XCTAssertGreaterThanOrEqual(counts.entries, count + 3)
            if !xml {
                XCTAssertEqual(counts.entries, count + 3)
                XCTAssertLessThan(archive.plist.objectCount, 30)
                XCTAssertLessThan(bytes.count, 4 * count)
            }
        }
    }

    /// The key may be a UTF-16 string: the analysis accepts it, so the counts reads it.
    func testUTF16ObjectsKeyIsRead() throws {
        let bytes = try buildArchive(Array(repeating: .int(7), count: 300))
        // A copy whose key object is a UTF-16 one, appended after the objects.
        let ascii = Array("$objects".utf8)
        guard let at = KeyedArchive.firstIndex(of: [0x58] + ascii, in: bytes) else { return XCTFail("no $objects key") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let tableStart = Int(BinaryPlist.readBigEndian(bytes, at: trailer + 24, size: 8))
        let objectCount = Int(BinaryPlist.readBigEndian(bytes, at: trailer + 8, size: 8))
        let keyRef = try XCTUnwrap(
            (0..<objectCount).first {
                Int(BinaryPlist.readBigEndian(bytes, at: tableStart + $0 * offsetSize, size: offsetSize)) == at
            })
        // The new key goes where the table was; the table and trailer move after it.
        let key: [UInt8] = [0x68] + ascii.flatMap { [0, $0] }
        var utf16 = Array(bytes[..<tableStart]) + key
        let newTable = utf16.count
        for ref in 0..<objectCount {
            var position = BinaryPlist.readBigEndian(bytes, at: tableStart + ref * offsetSize, size: offsetSize)
            if ref == keyRef { position = UInt64(tableStart) }
            for shift in stride(from: 8 * (offsetSize - 1), through: 0, by: -8) { utf16.append(UInt8(truncatingIfNeeded: position >> UInt64(shift))) }
        }
        var tail = Array(bytes[trailer...])
        for index in 0..<8 { tail[24 + index] = UInt8(truncatingIfNeeded: UInt64(newTable) >> UInt64(56 - 8 * index)) }
        utf16 += tail
        let archive = try KeyedArchive(parsing: utf16)
        XCTAssertEqual(ArchiveCounts(of: utf16), ArchiveCounts(objects: archive.plist.objectCount, entries: archive.objectCount))
        XCTAssertEqual(ArchiveCounts(of: utf16).entries, 301)
    }

    /// Every truncation and every single-byte change of a small archive is read without a
    /// trap; whatever the counts says of bytes that still decode, it bounds the decode.
    func testAnyDamageIsReadSafely() throws {
        let bytes = try buildArchive([.string("a"), .object("Team", [("name", .uid(1)), ("wins", .int(3))]), .int(1 << 40)])
        for length in 0...bytes.count { _ = ArchiveCounts(of: Array(bytes[..<length])) }
        for index in bytes.indices {
            for value: UInt8 in [0x00, 0x0F, 0x1F, 0x5F, 0x6F, 0xAF, 0xDF, 0xFF, bytes[index] &+ 1] {
                var damaged = bytes
                damaged[index] = value
                let counts = ArchiveCounts(of: damaged)
                if let archive = try? KeyedArchive(parsing: damaged) {
                    XCTAssertGreaterThanOrEqual(counts.entries, archive.objectCount, "byte \(index) = \(value)")
                    XCTAssertGreaterThanOrEqual(counts.objects, archive.plist.objectCount, "byte \(index) = \(value)")
                }
            }
        }
    }

    func testOtherBytesCountNothing() {
        XCTAssertEqual(ArchiveCounts(of: Array(#"{"a":1}"#.utf8)), ArchiveCounts(objects: 0, entries: 0))
        XCTAssertEqual(ArchiveCounts(of: []), ArchiveCounts(objects: 0, entries: 0))
        XCTAssertEqual(ArchiveCounts.xmlElements(Array("<a><b/></a><!-- x --><".utf8)), 4)
    }
}
