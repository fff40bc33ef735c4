import TestSupport
import XCTest

@testable import ArchiveCodec

/// Inputs built to make a summary large or slow: many classes, many keys, long names, deep
/// chains. The summary stays within its caps and never recurses.
final class ArchiveSummaryHostileTests: XCTestCase {
    func testManyClassesAreCapped() throws {
        let count = ArchiveSummary.listedClasses + 500
        let bytes = try buildArchive((0..<count).map { .object("C\($0)", [("k", .int(1))]) })
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.classes.count, ArchiveSummary.listedClasses)
        XCTAssertEqual(summary.classesNotListed, 500)
        XCTAssertLessThan(summary.json(pretty: false).count, 200_000)
    }

    func testManyKeysAreCapped() throws {
        let pairs = (0..<(ArchiveSummary.listedKeys + 300)).map { ("key\($0)", Value.int(Int64($0))) }
        let bytes = try buildArchive([.object("Wide", pairs), .object("Wide", pairs)])
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.classes[0].keys.count, ArchiveSummary.listedKeys)
        XCTAssertEqual(summary.classes[0].keysNotListed, 600)
    }

    /// One long key shared by many classes is listed cut, so it cannot be repeated into a
    /// summary far larger than the archive.
    func testLongSharedKeyIsCut() throws {
        let key = String(repeating: "k", count: 100_000)
        let bytes = try buildArchive((0..<300).map { .object("C\($0)", [(key, .int(1))]) })
        let summary = try Archive(parsing: bytes).summary()
        XCTAssertEqual(summary.classes.count, 300)
        XCTAssertEqual(summary.classes[0].keys.first?.key.count, ArchiveSummary.listedNameLength + 1)
        XCTAssertLessThan(summary.json(pretty: false).count, bytes.count)
    }

    /// A chain far deeper than any stack admits to write: summed up (its nesting measured, its
    /// one cycle found) without recursion, on a small stack.
    func testDeepChainOnASmallStack() throws {
        let bytes = try chainArchive(depth: 100_000, cyclic: true)
        var summary: ArchiveSummary?
        onThread(stackSize: 512 << 10) { summary = try? Archive(parsing: bytes).summary() }
        XCTAssertEqual(summary?.readableNesting, 100_001)
        XCTAssertEqual(summary?.cyclic, 100_000)
        XCTAssertEqual(summary?.shared, 1)
        XCTAssertEqual(summary?.classes.first?.keys.first { $0.key == "next" }?.kinds, [ArchiveSummary.KindCount(kind: "Node", count: 100_000)])
        let refusal = DecodePolicy(stackSize: 8 << 20).refusal(depth: summary?.readableNesting ?? 0, pretty: false)
        XCTAssertNotNil(refusal)
    }

    /// A string at the end of a long chain has a place only while its path is short enough to
    /// be written whole.
    func testPathsTooLongToWriteAreLeftOut() throws {
        func chain(_ depth: Int) throws -> ArchiveSummary {
            let entries: [Entry] = (0..<depth).map { index in
                index + 1 < depth ? .object("Node", [("next", .uid(index + 2))]) : .object("Node", [("text", .uid(depth + 1))])
            }
            return try Archive(parsing: try buildArchive(entries + [.string("at the end")])).summary()
        }
        XCTAssertEqual(try chain(40).largestStrings.first?.path, String(repeating: ".next", count: 39) + ".text")
        XCTAssertNil(try chain(60).largestStrings.first?.path)
        XCTAssertEqual(try chain(60).largestStrings.first?.preview, "at the end")
    }

    /// Sums `bytes` up, counting the payloads `hold` is asked to hold (each one read).
    private func summary(_ bytes: [UInt8], nested: Bool) throws -> (summary: ArchiveSummary, read: Int) {
        var read = 0
        let summary = try Archive(parsing: bytes).summary(nested: nested) { reading in
            if reading != nil { read += 1 }
            return true
        }
        return (summary, read)
    }

    /// One data value holding a document, referred to from many places (a binary plist may
    /// point any number of keys or `$objects` entries at one object; the builder interns
    /// data, so every reference here is to the same object): read, counted, summed up and
    /// listed once, at the first place met.
    func testADataValueReferredToFromManyPlacesIsReadOnce() throws {
        let inner = try buildArchive([.object("Inner", [("name", .string("deep"))])])
        let count = 300
        let inline = try buildArchive((0..<count).map { _ in .object("Holder", [("k", .data(inner))]) })
        let entries = try buildArchive(
            (0..<count).map { .object("Holder", [("k", .uid(count + 1 + $0))]) } + (0..<count).map { _ in .data(inner) })
        for (shape, bytes, member) in [("inline", inline, "$bytes"), ("entries", entries, "$data")] {
            for nested in [false, true] {
                let (summary, read) = try summary(bytes, nested: nested)
                XCTAssertEqual(read, 1, "\(shape), nested \(nested)")
                XCTAssertEqual(summary.nestedPayloads, [ArchiveSummary.PayloadCount(format: .keyedArchive, count: 1)], shape)
                XCTAssertEqual(summary.largestData.count, 1, shape)
                XCTAssertEqual(summary.largestData.first?.path, ".k." + member, shape)
                guard nested else { continue }
                XCTAssertEqual(summary.classes.first { $0.name == "Inner" }?.count, 1, shape)
                XCTAssertEqual(summary.largestStrings.map(\.preview), ["deep"], shape)
            }
        }
    }

    /// A plain property list's walk reaches each object once: a data value in many places of
    /// its containers is read once too.
    func testAPlainListsSharedDataValueIsReadOnce() throws {
        let inner = try buildArchive([.object("Inner", [("name", .string("deep"))])])
        var plist = TestPlistBuilder()
        let data = plist.data(inner)
        let top = plist.add(.array([Int](repeating: data, count: 300)))
        let bytes = plist.binary(top: top)
        for nested in [false, true] {
            let (summary, read) = try summary(bytes, nested: nested)
            XCTAssertEqual(read, 1)
            XCTAssertEqual(summary.nestedPayloads, [ArchiveSummary.PayloadCount(format: .keyedArchive, count: 1)])
            XCTAssertEqual(summary.largestData.count, 1)
        }
    }

    /// Several objects may have the same bytes (a binary plist's offset table may give any
    /// number of its entries one offset): a document in those bytes is parsed and counted once.
    func testBytesTheOffsetTableGivesSeveralObjectsAreParsedOnce() throws {
        let inner = try buildArchive([.object("Inner", [("name", .string("deep"))])])
        let count = 300
        var plist = TestPlistBuilder()
        for index in 0..<count { _ = plist.add(.data(index == 0 ? inner : [UInt8(index % 256)])) }
        let top = plist.add(.array(Array(0..<count)))
        var bytes = plist.binary(top: top)
        // Every data object's table entry is pointed at the first one's bytes.
        let (offsetSize, table) = (Int(bytes[bytes.count - 26]), bytes.suffix(8).reduce(0) { $0 << 8 | Int($1) })
        let first = bytes[table..<(table + offsetSize)]
        for ref in 1..<count { bytes.replaceSubrange((table + ref * offsetSize)..<(table + (ref + 1) * offsetSize), with: first) }
        let (summary, read) = try summary(bytes, nested: true)
        XCTAssertEqual(read, 1)
        XCTAssertEqual(summary.nestedPayloads, [ArchiveSummary.PayloadCount(format: .keyedArchive, count: 1)])
        XCTAssertEqual(summary.classes.first { $0.name == "Inner" }?.count, 1)
        XCTAssertEqual(summary.largestData.count, 1)
    }

    /// A typedstream's C string is a reference into its shared strings: one long text that
    /// many `*` values refer to (by the C string, or by new C strings of the same text) is
    /// listed once.
    func testATypedStreamsSharedCStringIsListedOnce() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let text = Array(String(repeating: "t", count: 10_000).utf8)
        try builder.beginGroup("*")
        let first = try XCTUnwrap(try builder.cString(text))
        try builder.end()
        for index in 0..<300 {
            try builder.beginGroup("*")
            if index % 2 == 0 { try builder.cString(reference: first) } else { try builder.cString(text) }
            try builder.end()
        }
        let summary = try Archive(parsing: try TypedStreamWriter.write(try builder.finish())).summary()
        XCTAssertEqual(summary.largestStrings.map(\.length), [text.count])
    }
}
