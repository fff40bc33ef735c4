import TestSupport
import XCTest

@testable import ArchiveCodec

/// `BinaryPlistBuilder` writes objects as the encoder produces them and narrows references at
/// the end; `PlistTree` + `BinaryPlistWriter` lay out the same calls after the fact. Fed the
/// same calls they must produce the same bytes, at every reference width.
final class BinaryPlistBuilderTests: XCTestCase {
    /// The archive through the tree and the one-shot writer (the reference layout).
    private func throughTree(_ document: JSONDocument) throws -> [UInt8] {
        var encoder = ArchiveEncoder(document: document, tree: PlistTree())
        let root = try encoder.encodeDocument(root: document.root)
        return BinaryPlistWriter.write(encoder.tree, root: root)
    }

    private func trailer(_ bytes: [UInt8]) -> (refSize: Int, objects: Int) {
        let start = bytes.count - 32
        let objects = bytes[(start + 8)..<(start + 16)].reduce(0) { $0 << 8 | Int($1) }
        return (Int(bytes[start + 7]), objects)
    }

    private func checkSameBytes(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let document = try JSONDocument(parsing: Array(json.utf8))
        let built = try document.archive(format: .binary)
        XCTAssertEqual(built, try throughTree(document), "builder and tree layouts differ", file: file, line: line)
        return built
    }

    func testEveryFixtureBuildsTheSameBytesAsTheTree() throws {
        for name in Fixtures.names() {
            let archive = try KeyedArchive(parsing: Fixtures.bytes(name))
            let json = try archive.json(view: .readable, pretty: false)
            _ = try checkSameBytes(String(decoding: json, as: UTF8.self))
        }
    }

    /// Arrays of distinct strings whose archives cross 256 and 65,536 objects (each item is a
    /// string and its UID, about 2N + 23 objects): references narrow to 1, then 2, then stay
    /// 4 bytes, and every archive reads back.
    func testReferenceWidthsAtTheirBoundaries() throws {
        var widths = Set<Int>()
        for count in Array(105...130) + Array(32_748...32_766) {
            let items = (0..<count).map { "\"s\($0)\"" }.joined(separator: ",")
            let built = try checkSameBytes("[\(items)]")
            let (refSize, objects) = trailer(built)
            let needed = objects - 1 <= 0xFF ? 1 : objects - 1 <= 0xFFFF ? 2 : 4
            XCTAssertEqual(refSize, needed, "\(objects) objects")
            widths.insert(refSize)
            let back = try KeyedArchive(parsing: built).json(view: .readable, pretty: false)
            XCTAssertEqual(try JSONDocument(parsing: back).archive(format: .binary).count, built.count)
        }
        XCTAssertEqual(widths, [1, 2, 4], "the counts must cross both boundaries")
    }

    /// Strings through the short-string cache: every length it keeps (0-32 bytes) and the
    /// first it does not, texts that differ in one byte at any position or only in length
    /// (zero padding, sharing a slot), enough of them (3,000) that slots are taken over, non-ASCII texts of
    /// the same lengths, and data with the same bytes. Asked again in another order, each
    /// gives its first object; distinct texts never share one; data never takes a string's.
    func testShortStringCacheNeverConflatesTexts() throws {
        var texts: [[UInt8]] = [[]]
        for length in 1...33 {
            let base = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            texts.append(base)
            texts.append(base + [0])  // a zero byte looks like padding
            for position in stride(from: 0, to: length, by: 3) {
                var changed = base
                changed[position] ^= 1
                texts.append(changed)
            }
            texts.append(Array(String(repeating: "é", count: (length + 1) / 2).utf8))
        }
        for number in 0..<3_000 { texts.append(Array("key\(number)".utf8)) }
        var seen = Set<[UInt8]>()
        texts = texts.filter { seen.insert($0).inserted }
        // Sized as for a large document: the most slots, as the builder's cache gets.
        var builder = BinaryPlistBuilder()
        builder.reserve(values: 1 << 20, bytes: 0)
        let slots = ShortStringCache(expectingValues: 1 << 20)
        var objects: [UInt32] = []
        for text in texts { objects.append(try text.withUnsafeBufferPointer { try builder.string($0) }) }
        XCTAssertEqual(Set(objects).count, texts.count, "distinct texts share an object")
        var generator = TestRandom(for: self)
        for index in texts.indices.shuffled(using: &generator) {
            let again = try texts[index].withUnsafeBufferPointer { try builder.string($0) }
            XCTAssertEqual(again, objects[index], "text \(texts[index]) changed object")
        }
        // Texts that differ only in trailing zero bytes have the same padded words: pairs of
        // them that take the same slot, asked right after each other, show that the length
        // is compared.
        var pairs = 0
        for number in 0..<20_000 where pairs < 20 {
            let text = Array("p\(number)".utf8)
            let slot = text.withUnsafeBufferPointer { slots.slot(of: $0) }
            for zeros in 1...8 {
                let padded = text + [UInt8](repeating: 0, count: zeros)
                guard padded.withUnsafeBufferPointer({ slots.slot(of: $0) }) == slot else { continue }
                pairs += 1
                let first = try text.withUnsafeBufferPointer { try builder.string($0) }
                XCTAssertNotEqual(try padded.withUnsafeBufferPointer { try builder.string($0) }, first)
                XCTAssertEqual(try text.withUnsafeBufferPointer { try builder.string($0) }, first, "\(text)")
            }
        }
        XCTAssertGreaterThanOrEqual(pairs, 20, "too few texts that share a slot were found")
        for index in texts.indices where texts[index].count <= ShortStringCache.longest {
            let data = try texts[index].withUnsafeBufferPointer { try builder.data($0) }
            XCTAssertFalse(objects.contains(data), "data took a string's object")
        }
    }

    func testStringsAndDataAreInternedByEncodingAndKind() throws {
        // "é" twice and "日本" twice are one UTF-16 object each; "abc" as a string and as
        // data are two objects; "abc" and "abd" differ in the last byte only.
        let json = #"{"$top":{"a":{"$class":"T","x":"é","y":"é","z":"日本","w":"日本","s":"abc","d":{"$bytes":"YWJj"},"t":"abd","e":"😀"}}}"#
        let built = try checkSameBytes(json)
        let archive = try KeyedArchive(parsing: built)
        let back = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        for text in ["\"x\":\"é\"", "\"y\":\"é\"", "\"z\":\"日本\"", "\"s\":\"abc\"", "\"d\":{\"$bytesText\":\"abc\"}", "\"t\":\"abd\"", "\"e\":\"😀\""] {
            XCTAssertTrue(back.contains(text), "\(text) missing from \(back)")
        }
        XCTAssertEqual(archive.difference(from: try KeyedArchive(parsing: throughTree(JSONDocument(parsing: Array(json.utf8))))), nil)
    }

    /// The archive through a sink, pieces joined, and how many pieces there were.
    private func streamed(_ document: JSONDocument) throws -> (bytes: [UInt8], pieces: Int) {
        var bytes: [UInt8] = []
        var pieces = 0
        try document.writeArchive { piece in
            bytes.append(contentsOf: piece)
            pieces += 1
        }
        return (bytes, pieces)
    }

    /// Streamed archives keep 4-byte references; otherwise they are the in-memory layout, so
    /// past 65,536 objects (4-byte references either way) the bytes are the same.
    func testStreamedArchivesMatchTheInMemoryOnes() throws {
        for name in Fixtures.names() {
            let archive = try KeyedArchive(parsing: Fixtures.bytes(name))
            let document = try JSONDocument(parsing: archive.json(view: .readable, pretty: false))
            let (bytes, _) = try streamed(document)
            XCTAssertEqual(trailer(bytes).refSize, 4, name)
            XCTAssertEqual(try KeyedArchive(parsing: bytes).difference(from: archive), nil, name)
        }
        // About 120,000 objects and 3 MB: several pieces, references 4 bytes wide in both.
        let items = (0..<60_000).map { "\"item number \($0) of the streamed array\"" }.joined(separator: ",")
        let document = try JSONDocument(parsing: Array("{\"$top\":{\"list\":[\(items)],\"data\":{\"$data\":\"AAECAw==\"}}}".utf8))
        let (bytes, pieces) = try streamed(document)
        XCTAssertGreaterThan(pieces, 2)
        XCTAssertEqual(bytes, try document.archive(format: .binary))
        // Strings and data past a piece's size go to the sink on their own; repeats still
        // share one object.
        let long = String(repeating: "long text ", count: 300_000)
        let large = try JSONDocument(parsing: Array(#"{"$top":{"a":"\#(long)","b":"\#(long)","c":{"$data":"\#(Array(repeating: "AAEC", count: 400_000).joined())"},"d":"é\#(long)"}}"#.utf8))
        let (largeBytes, _) = try streamed(large)
        let inMemory = try large.archive(format: .binary)
        XCTAssertEqual(try KeyedArchive(parsing: largeBytes).difference(from: KeyedArchive(parsing: inMemory)), nil)
        XCTAssertEqual(trailer(largeBytes).objects, trailer(inMemory).objects, "the repeated long string is one object in both")
    }

    func testStreamingStopsAtTheFirstErrorWithPartOfTheArchiveSent() throws {
        // Every item is written before the dangling `$ref` is found at the end.
        let items = (0..<60_000).map { "\"item \($0) before the bad reference\"" }.joined(separator: ",")
        let document = try JSONDocument(parsing: Array("[\(items),{\"$ref\":\"nowhere\"}]".utf8))
        var received = 0
        XCTAssertThrowsError(try document.writeArchive { received += $0.count }) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, "\(error)")
        }
        XCTAssertThrowsError(try document.archive(format: .binary))
        XCTAssertGreaterThan(received, 0, "pieces go out while building")
    }

    /// A plain plist's `{"$uid": n}` indexes the builder's direct table of UIDs only while n is
    /// near the objects written: 16,777,215 in a 35-byte document is hashed, not a 64 MiB
    /// table; the same value again is the same object.
    func testALargeUIDInASmallDocumentKeepsNoTableOfItsSize() throws {
        var builder = BinaryPlistBuilder()
        let before = residentBytes()
        let first = try builder.uid(16_777_215)
        let kept = residentBytes() - before
        XCTAssertEqual(try builder.uid(16_777_215), first)
        XCTAssertEqual(try builder.uid(16_777_214), first + 1)
        XCTAssertEqual(try builder.uid(16_777_214), first + 1)
        XCTAssertLessThan(kept, 16 << 20, "bytes touched for one UID")
        let bytes = try JSONDocument(parsing: Array(#"{"$propertyList":[{"$uid":16777215},{"$uid":16777215},{"$uid":3}]}"#.utf8))
            .archive(format: .binary)
        let raw = String(decoding: try Archive(parsing: bytes).json(view: .raw, pretty: false), as: UTF8.self)
        XCTAssertEqual(raw, #"[{"$uid":16777215},{"$uid":16777215},{"$uid":3}]"#)
    }
}
