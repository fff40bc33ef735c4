import TestSupport
import XCTest

@testable import ArchiveCodec

/// Builds bookmark bytes by hand: items in the data area, then one or more tables of contents.
struct BookmarkBuilder {
    /// The data area; its first word is the first table's offset, set by `bytes`.
    var area: [UInt8] = [0, 0, 0, 0]

    static func word(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// Appends an item; returns its offset.
    @discardableResult
    mutating func item(_ type: UInt32, _ payload: [UInt8]) -> UInt32 {
        let offset = UInt32(area.count)
        area += Self.word(UInt32(payload.count)) + Self.word(type) + payload
        while area.count % 4 != 0 { area.append(0) }
        return offset
    }

    mutating func string(_ text: String) -> UInt32 { item(0x0101, Array(text.utf8)) }

    mutating func array(_ offsets: [UInt32]) -> UInt32 { item(0x0601, offsets.flatMap(Self.word)) }

    /// Appends a table of `entries` (key, item offset); returns its offset.
    mutating func table(_ entries: [(UInt32, UInt32)], id: UInt32 = 1, next: UInt32 = 0, count: UInt32? = nil) -> UInt32 {
        let offset = UInt32(area.count)
        area += Self.word(UInt32(12 + 12 * entries.count)) + Self.word(0xFFFF_FFFE) + Self.word(id) + Self.word(next) + Self.word(count ?? UInt32(entries.count))
        for (key, value) in entries { area += Self.word(key) + Self.word(value) + Self.word(0) }
        return offset
    }

    /// The whole bookmark, its first table at `first`.
    func bytes(first: UInt32) -> [UInt8] {
        var area = self.area
        area.replaceSubrange(0..<4, with: Self.word(first))
        let header = Array("book".utf8) + Self.word(UInt32(48 + area.count)) + Self.word(0x1004_0000) + Self.word(48) + [UInt8](repeating: 0, count: 32)
        return header + area
    }
}

/// The bookmark reader (`BookmarkData`): what real bookmarks point to, and hostile bytes.
final class BookmarkDataTests: XCTestCase {
    private func account(_ bytes: [UInt8]) -> AccountValue? { bytes.withUnsafeBufferPointer { BookmarkData.account(of: $0) } }

    /// fq's samples read as fq reads them (its .fqtest files): path, file ids, dates, volume.
    func testRealBookmarksSayWhatTheyPointTo() throws {
        let sample1 = account(try Fixtures.publicFile("bookmark/fq_sample1.book"))
        XCTAssertEqual(member(sample1, "path"), .array([.string("Applications"), .string("Bitwarden.app")]))
        XCTAssertEqual(member(sample1, "fileIDs"), .array([.integer(55_637_351), .integer(54_389_243)]))
        XCTAssertEqual(member(sample1, "volume", "name"), .string("Macintosh HD"))
        XCTAssertEqual(member(sample1, "volume", "uuid"), .string("AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA"))
        XCTAssertEqual(member(sample1, "volume", "size"), .integer(499_963_174_912))
        XCTAssertEqual(member(sample1, "volume", "isRoot"), .bool(true))
        XCTAssertEqual(member(sample1, "volume", "url"), .string("file:///"))
        XCTAssertEqual(member(sample1, "creationOptions"), .integer(536_870_912))
        guard case .time(let created) = member(sample1, "created"), case .time(let volumeCreated) = member(sample1, "volume", "created") else {
            return XCTFail("dates")
        }
        XCTAssertEqual(DateText.readable(created)?.string, "2022-10-20T22:39:28Z")
        XCTAssertEqual(DateText.readable(volumeCreated)?.string, "2020-01-01T08:00:00Z")

        let sample2 = account(try Fixtures.publicFile("bookmark/fq_sample2.book"))
        XCTAssertEqual(member(sample2, "path"), .array(["Users", "davidmcdonald", "hxstore"].map(AccountValue.string)))
        XCTAssertEqual(member(sample2, "userName"), .string("davidmcdonald"))
        XCTAssertEqual(member(sample2, "userID"), .integer(501))
        XCTAssertEqual(member(sample2, "containingFolderIndex"), .integer(1))
        XCTAssertEqual(member(sample2, "displayName"), .string("hxstore"))
        XCTAssertEqual(member(sample2, "volume", "uuid"), .string("8A829A03-9B24-4085-8051-18978712E4BE"))
        XCTAssertEqual(member(sample2, "0xf000f"), .bool(true), "a key without a name, by number")
    }

    /// fq's loop.book: an array that holds itself. Read to the containers' bound, shown there
    /// by type and bytes; nothing loops.
    func testACycleEndsAtTheBound() throws {
        let loop = try XCTUnwrap(account(try Fixtures.publicFile("bookmark/fq_loop.book")))
        XCTAssertLessThanOrEqual(loop.height(.all), AccountValue.maximumNesting)
        guard case .array(let path) = member(loop, "path"), case .array(let inner) = path.first else { return XCTFail("\(loop)") }
        XCTAssertEqual(inner.first, .object([AccountMember("type", .unsigned(0x601)), AccountMember("data", .base64(BookmarkBuilder.word(0x3C) + BookmarkBuilder.word(0x24)))]))
    }

    func testBytesThatAreNotABookmarkStayBytes() throws {
        let sample = try Fixtures.publicFile("bookmark/fq_sample1.book")
        XCTAssertNil(account(Array(sample.dropLast())), "the size field says more")
        XCTAssertNil(account(Array("book".utf8) + [UInt8](repeating: 0, count: 60)))
        XCTAssertNil(account(Array("boom".utf8) + sample.dropFirst(4)))
        XCTAssertNil(account([]))
        var badTable = sample
        let first = 48 + Int(sample[48]) | Int(sample[49]) << 8
        badTable[first + 4] = 0  // not FE FF FF FF
        XCTAssertNil(account(badTable))
    }

    /// Hand-made hostile shapes: tables that chain to themselves, counts past the bytes, items
    /// longer than the bytes, dictionaries with keys that are not strings, unknown types.
    func testHostileShapesAreBounded() throws {
        var builder = BookmarkBuilder()
        let name = builder.string("x")
        let number = builder.item(0x0303, BookmarkBuilder.word(7))
        let odd = builder.item(0x0B07, [1, 2, 3])
        let dictionary = builder.item(0x0701, (BookmarkBuilder.word(number) + BookmarkBuilder.word(name)))
        let long = builder.item(0x0101, [])
        builder.area.replaceSubrange(Int(long)..<Int(long) + 4, with: BookmarkBuilder.word(0xFFFF_FF00))
        let selfTable = UInt32(builder.area.count)
        _ = builder.table([(0x1020, name), (0x1030, number), (0x9999, odd), (0x1055, dictionary), (0x1056, long), (0x1020, number)], next: selfTable)
        let value = try XCTUnwrap(account(builder.bytes(first: selfTable)))
        XCTAssertEqual(member(value, "fileName"), .string("x"), "the first of a repeated key")
        XCTAssertEqual(member(value, "fileID"), .integer(7))
        XCTAssertEqual(member(value, "0x9999"), .object([AccountMember("type", .unsigned(0x0B07)), AccountMember("data", .base64([1, 2, 3]))]))
        XCTAssertEqual(member(value, "0x1055"), .array([.array([.integer(7), .string("x")])]), "pairs when a key is not a string")
        XCTAssertEqual(member(value, "0x1056"), .null, "an item longer than the bytes")

        var huge = BookmarkBuilder()
        let table = huge.table([], count: 0x4000_0000)
        XCTAssertNil(account(huge.bytes(first: table)), "a count past the bytes")
    }

    /// One long string referenced by every entry shows once per entry only while the byte
    /// budget lasts: the account stays about as large as the bookmark.
    func testSharedItemsDoNotAmplifyTheAccount() throws {
        var builder = BookmarkBuilder()
        let long = builder.string(String(repeating: "x", count: 1_000))
        let table = builder.table((0..<300).map { (UInt32(0x3000 + $0), long) })
        let bytes = builder.bytes(first: table)
        let value = try XCTUnwrap(account(bytes))
        var out = JSONOutput(pretty: false)
        out.account(value, .nonFinite)
        let size = out.finish().count
        XCTAssertLessThan(size, BookmarkData.byteBudget(bytes.count) + 300 * 16)
        XCTAssertEqual(member(value, "0x3000"), .string(String(repeating: "x", count: 1_000)))
        XCTAssertEqual(member(value, "0x312b"), .null)
    }

    /// Random mutations of real bookmarks: never a trap or a loop; whatever reads is bounded,
    /// writes as JSON that parses (distinct keys), and agrees with itself read back.
    func testMutatedBookmarksNeverTrap() throws {
        let samples = try ["sample1", "sample2", "sample3", "sample4", "loop"].map { try Fixtures.publicFile("bookmark/fq_\($0).book") }
        var random = SplitMix64(seed: 0xB00C)
        var read = 0
        for round in 0..<3_000 {
            var bytes = samples[round % samples.count]
            for _ in 0...Int.random(in: 0..<8, using: &random) {
                let position = Int.random(in: 4..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes[position] ^= 0x80
                default:
                    // An offset-sized word pointing anywhere in the bytes.
                    let word = BookmarkBuilder.word(UInt32.random(in: 0..<UInt32(bytes.count), using: &random))
                    for index in 0..<4 where position + index < bytes.count { bytes[position + index] = word[index] }
                }
            }
            if Int.random(in: 0..<10, using: &random) == 0 {
                bytes.removeLast(Int.random(in: 1..<bytes.count / 2, using: &random))
                bytes.replaceSubrange(4..<8, with: BookmarkBuilder.word(UInt32(bytes.count)))
            }
            guard let value = account(bytes) else { continue }
            read += 1
            XCTAssertLessThanOrEqual(value.height(.all), AccountValue.maximumNesting)
            var out = JSONOutput(pretty: false)
            out.account(value, .nonFinite)
            let document = try JSONDocument(parsing: out.finish())
            XCTAssertNil(document.accountDifference(value, document.root), "round \(round)")
        }
        XCTAssertGreaterThan(read, 500)
    }

    /// Tables that count more entries than a bookmark holds (overlapping, or one long table)
    /// become members only up to `maximumEntries` over all tables; the rest are counted.
    func testEntriesPastTheBoundAreCountedNotRead() throws {
        var builder = BookmarkBuilder()
        let number = builder.item(0x0303, BookmarkBuilder.word(7))
        let entries = (0..<10_000).map { (UInt32(0x3000 + $0), number) }
        // The second table lies inside the first one's entries: both read the same bytes.
        let first = builder.table(entries)
        let inner = first + 20 + 12 * 100
        let table =
            BookmarkBuilder.word(12 + 12 * 9_000) + BookmarkBuilder.word(0xFFFF_FFFE) + BookmarkBuilder.word(2) + BookmarkBuilder.word(0)
            + BookmarkBuilder.word(9_000)
        builder.area.replaceSubrange(Int(inner)..<Int(inner) + 20, with: table)
        builder.area.replaceSubrange(Int(first) + 12..<Int(first) + 16, with: BookmarkBuilder.word(inner))
        guard case .object(let members) = try XCTUnwrap(account(builder.bytes(first: first))) else { return XCTFail("not an object") }
        XCTAssertLessThanOrEqual(members.count, BookmarkData.maximumEntries + 2)
        XCTAssertEqual(members.last?.key, "toc 2")
        XCTAssertEqual(members.first { $0.key == BookmarkData.entriesNotShown }?.value, .integer(Int64(10_000 - BookmarkData.maximumEntries)))
        XCTAssertEqual(member(members.last?.value, BookmarkData.entriesNotShown), .integer(9_000))
    }
}
