import TestSupport
import XCTest

@testable import ArchiveCodec

/// Inputs the fuzzer (`scripts/fuzz/fuzz_codec.sh`) showed could not be converted losslessly, or
/// crashed the codec: each must now be refused with a precise error.
final class RefusalTests: XCTestCase {
    /// An archive whose `$objects` are built by `objects` (entry 0 is `$null`).
    func archive(_ objects: (inout PlistTree) throws -> [UInt32]) throws -> [UInt8] {
        var tree = PlistTree()
        let entries = try [tree.string("$null")] + objects(&tree)
        let root = try tree.dict(
            keys: [tree.string("$archiver"), tree.string("$version"), tree.string("$top"), tree.string("$objects")],
            values: [
                tree.string("NSKeyedArchiver"), tree.integer(PlistInteger(signed: 100000)),
                tree.dict(keys: [tree.string("root")], values: [tree.uid(1)]), tree.array(entries)
            ])
        return BinaryPlistWriter.write(tree, root: root)
    }

    func expect(_ kind: CodecError.Kind, _ bytes: [UInt8], mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try KeyedArchive(parsing: bytes), file: file, line: line) { error in
            XCTAssertEqual((error as? CodecError)?.kind, kind, "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func encodeError(_ json: String) -> CodecError? {
        do {
            _ = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
            return nil
        } catch {
            return error
        }
    }

    func testDictionaryKeyWithOffsetOutsideTheFile() throws {
        // Validation read this key's marker before checking its offset (found by fuzzing).
        let corrupt = try Fixtures.corrupt("corrupt-ComplexTest-147.plist")
        XCTAssertThrowsError(try KeyedArchive(parsing: corrupt)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .malformedPlist)
        }
        // Point the first key of the top dictionary past the end of the file.
        var bytes = try Fixtures.bytes("goios_nsuuid.bin")
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        let table = Int(BinaryPlist.readBigEndian(bytes, at: trailer + 24, size: 8))
        let top = Int(BinaryPlist.readBigEndian(bytes, at: trailer + 16, size: 8))
        let topOffset = Int(BinaryPlist.readBigEndian(bytes, at: table + top * offsetSize, size: offsetSize))
        XCTAssertEqual(bytes[topOffset] >> 4, 0xD)
        let firstKey = Int(BinaryPlist.readBigEndian(bytes, at: topOffset + 1, size: refSize))
        for index in 0..<offsetSize { bytes[table + firstKey * offsetSize + index] = 0xFF }
        expect(.malformedPlist, bytes, mentioning: "outside the object area")
    }

    func testDictionaryHoldingAKeyTwice() throws {
        expect(.malformedPlist, try buildArchive([.object("N", [("a", .int(1)), ("a", .int(2))])]), mentioning: "twice")
        // Past the pairwise limit the check goes through a hash set.
        let many = (0..<40).map { ("key\($0 == 33 ? 7 : $0)", Value.int(Int64($0))) }
        expect(.malformedPlist, try buildArchive([.object("N", many)]), mentioning: "twice")
        XCTAssertNoThrow(try KeyedArchive(parsing: buildArchive([.object("N", (0..<40).map { ("key\($0)", .int(1)) })])))
    }

    func testJSONObjectRepeatingAKey() {
        for json in [
            #"{"a":1,"b":2,"a":3}"#, "{" + (0..<30).map { "\"k\($0 % 29)\":0" }.joined(separator: ",") + "}",
            #"{"x":{"\u0061":1,"a":2}}"#
        ] {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)), json) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .malformedJSON, json)
                XCTAssertTrue("\(error)".contains("repeats the key"), "\(error)")
            }
        }
        XCTAssertNoThrow(try JSONDocument(parsing: Array(#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#.utf8)))
    }

    func testClassDictionariesTheReadableViewCannotShow() throws {
        let extraKey = try archive { tree in
            [
                try tree.dict(keys: [tree.string("$class")], values: [tree.uid(2)]),
                try tree.dict(
                    keys: [tree.string("$classname"), tree.string("$ciasses")],
                    values: [tree.string("N"), tree.array([tree.string("N")])])
            ]
        }
        expect(.invalidArchive, extraKey, mentioning: "$ciasses")
        let emptyName = try archive { tree in
            [
                try tree.dict(keys: [tree.string("$class")], values: [tree.uid(2)]),
                try tree.dict(keys: [tree.string("$classname")], values: [tree.string("")])
            ]
        }
        expect(.invalidArchive, emptyName, mentioning: "empty")
    }

    func testErrorsInXMLArchivesCarryNoBinaryOffsets() throws {
        // The XML is read into a binary plist before the archive is checked; offsets into that
        // intermediate plist would point at the wrong bytes of the caller's XML.
        let xml = try buildArchive([.object("N", [("next", .uid(97))])], xml: true)
        XCTAssertThrowsError(try KeyedArchive(parsing: xml)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidArchive)
            XCTAssertNil((error as? CodecError)?.byteOffset)
            XCTAssertEqual((error as? CodecError)?.uid, 1)
        }
        XCTAssertThrowsError(try KeyedArchive(parsing: buildArchive([.object("N", [("next", .uid(97))])]))) { error in
            XCTAssertNotNil((error as? CodecError)?.byteOffset, "binary input keeps its offsets")
        }
    }

    func testJSONLargerThanTheLimitForItsInputIsRefused() throws {
        // 1,000 references to one 100 KB string: a 100 KB archive standing for 100 MB of JSON,
        // through UIDs (readable view) and inside the plist itself (both views).
        let long = String(repeating: "y", count: 100_000)
        let throughUIDs = try buildArchive([.object("NSArray", [("NS.objects", .array(Array(repeating: .uid(2), count: 1_000)))]), .string(long)])
        let inPlist = try buildArchive([.object("X", [("k", .array(Array(repeating: .string(long), count: 1_000)))])])
        for (bytes, views) in [(throughUIDs, [ArchiveView.readable]), (inPlist, [.readable, .raw])] {
            let archive = try KeyedArchive(parsing: bytes)
            for view in views {
                XCTAssertThrowsError(try archive.json(view: view, pretty: false), "\(view)") { error in
                    XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded)
                    XCTAssertEqual((error as? CodecError)?.limit, KeyedArchive.maximumOutputSize(forInputSize: bytes.count))
                }
            }
        }
        let fine = try buildArchive([.object("NSArray", [("NS.objects", .array(Array(repeating: .uid(2), count: 100)))]), .string(long)])
        XCTAssertNoThrow(try KeyedArchive(parsing: fine).json(view: .readable, pretty: false))
    }

    func testArchiveLargerThanTheLimitForItsJSONIsRefused() throws {
        // 700,000 empty arrays: 2.1 MB of JSON asking for ~90 MB of XML (an NSArray instance,
        // its class entry reference and an empty plist array each), past max(64 MiB, 16x).
        let json = Array(("[" + String(repeating: "[],", count: 700_000) + "[]]").utf8)
        let document = try JSONDocument(parsing: json)
        XCTAssertEqual(document.maximumArchiveSize, KeyedArchive.maximumOutputSize(forInputSize: json.count))
        XCTAssertThrowsError(try document.archive(format: .xml)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded)
            XCTAssertEqual((error as? CodecError)?.limit, document.maximumArchiveSize)
        }
        // The binary archive of the same document is far smaller and within the limit.
        let binary = try document.archive(format: .binary)
        XCTAssertLessThan(binary.count, document.maximumArchiveSize)
        // Under a small limit the builder refuses as soon as it passes it, streaming or not.
        var builder = BinaryPlistBuilder(limit: 1_000)
        XCTAssertThrowsError(try (0..<1_000).forEach { _ in _ = try builder.array([UInt32]()) })
    }

    func testWhatXMLOrAnEntryCannotHoldIsRefusedOnEncode() throws {
        // In XML, a dictionary whose only key is CF$UID with an integer is a UID.
        let cfuid = try JSONDocument(parsing: Array(#"{"$class":"Foo","k":{"$inline":{"CF$UID":0}}}"#.utf8))
        XCTAssertNoThrow(try cfuid.archive(format: .binary))
        XCTAssertThrowsError(try cfuid.archive(format: .xml)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument)
        }
        // An `$objects` entry with a `$class` key is a class instance, so `$plist` cannot hold one.
        XCTAssertEqual(encodeError(#"{"$plist":{"$$class":1}}"#)?.kind, .invalidDocument)
        XCTAssertNil(encodeError(#"{"$plist":{"$$klass":1}}"#))
    }

    func testDataKeyNamedLikeTheClassKey() {
        let error = encodeError(#"{"$class":"Thing","$$class":"Other","x":1}"#)
        XCTAssertEqual(error?.kind, .invalidDocument)
        XCTAssertTrue("\(String(describing: error))".contains("$class"))
        XCTAssertNil(encodeError(#"{"$class":"Thing","$$classname":"fine","x":1}"#))
    }

    func testPlistDateXMLCannotHold() throws {
        for json in [#"{"$plistDate":"9999-12-31T23:59:59Z"}"#, #"{"a":{"$plistDate":"0001-01-01T00:00:00Z"}}"#] {
            let document = try JSONDocument(parsing: Array(json.utf8))
            let binary = try KeyedArchive(parsing: document.archive(format: .binary))
            let xml = try KeyedArchive(parsing: document.archive(format: .xml))
            XCTAssertNil(binary.difference(from: xml), json)
        }
        // 1e12 seconds after 2001 is in the year 33689: binary holds it, XML cannot.
        let far = #"{"when":{"$plistDate":1e12}}"#
        let document = try JSONDocument(parsing: Array(far.utf8))
        XCTAssertNoThrow(try document.archive(format: .binary))
        XCTAssertThrowsError(try document.archive(format: .xml)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument)
        }
    }
}
