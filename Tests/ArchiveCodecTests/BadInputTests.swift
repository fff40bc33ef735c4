import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

final class BadInputTests: XCTestCase {
    func expect(_ kind: CodecError.Kind, _ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try KeyedArchive(parsing: bytes), file: file, line: line) { error in
            XCTAssertEqual((error as? CodecError)?.kind, kind, "\(error)", file: file, line: line)
        }
    }

    func testTruncatedAndLyingBinaryPlists() throws {
        let good = try Fixtures.bytes("goios_nsuuid.bin")
        for length in [0, 8, 39, good.count / 2, good.count - 1] { expect(.malformedPlist, Array(good.prefix(length))) }
        var lie = good
        lie[lie.count - 9] = 0xFF  // offset table offset
        expect(.malformedPlist, lie)
        lie = good
        lie[lie.count - 17] = 0xFF  // object count
        expect(.malformedPlist, lie)
        lie = good
        lie[lie.count - 26] = 9  // offset size
        expect(.malformedPlist, lie)
        // An offset table entry pointing past the objects.
        lie = good
        let table = Int(lie[lie.count - 1])
        lie[table] = 0xFE
        expect(.malformedPlist, lie)
    }

    func testAbsurdCountsAndPlistLevelCycles() throws {
        // An array claiming 2^62 elements.
        var bytes = Array("bplist00".utf8) + [0xAF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]
        let offsets = [UInt8(8)]
        let table = bytes.count
        bytes += offsets + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        expect(.malformedPlist, bytes)
        // An array that contains itself.
        var cyclic = Array("bplist00".utf8) + [0xA1, 0x00]
        let tableOffset = cyclic.count
        cyclic += [8] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]
        expect(.malformedPlist, cyclic)
    }

    func testArchiveGraphErrors() throws {
        // UID out of range.
        XCTAssertThrowsError(try KeyedArchive(parsing: buildArchive([.object("N", [("next", .uid(99))])]))) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidArchive)
            XCTAssertEqual((error as? CodecError)?.uid, 1)
        }
        // $class pointing at a string.
        var tree = PlistTree()
        let objects = try tree.array([
            try tree.string("$null"),
            try tree.dict(keys: [try tree.string("$class")], values: [try tree.uid(2)]),
            try tree.string("not a class")
        ])
        let root = try tree.dict(
            keys: [try tree.string("$archiver"), try tree.string("$version"), try tree.string("$top"), try tree.string("$objects")],
            values: [
                try tree.string("NSKeyedArchiver"), try tree.integer(PlistInteger(signed: 100000)),
                try tree.dict(keys: [try tree.string("root")], values: [try tree.uid(1)]), objects
            ])
        expect(.invalidArchive, BinaryPlistWriter.write(tree, root: root))
        // Mismatched NS.keys / NS.objects.
        expect(.invalidArchive, try buildArchive([.object("NSDictionary", [("NS.keys", .array([.uid(2)])), ("NS.objects", .array([]))]), .string("k")]))
        // A plist that is not an archive.
        var plain = PlistTree()
        let plainRoot = try plain.dict(keys: [try plain.string("a")], values: [try plain.integer(PlistInteger(signed: 1))])
        expect(.notKeyedArchive, BinaryPlistWriter.write(plain, root: plainRoot))
        // The refusal says what the plist is: its top level, and a dictionary's first keys.
        XCTAssertThrowsError(try KeyedArchive(parsing: BinaryPlistWriter.write(plain, root: plainRoot))) { error in
            XCTAssertEqual((error as? CodecError)?.message, "a property list whose top level is a dictionary of 1 key (a) without $archiver: not a whole keyed archive")
        }
        let xmlArray = Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><array><integer>1</integer><string>b</string></array></plist>".utf8)
        XCTAssertThrowsError(try KeyedArchive(parsing: xmlArray)) { error in
            XCTAssertTrue((error as? CodecError)?.message.hasPrefix("a plain property list whose top level is an array of 2 elements") == true, "\(error)")
        }
    }

    func testXMLEntitiesAndDeepNesting() throws {
        let laughs = #"<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><plist><string>&b;</string></plist>"#
        expect(.malformedPlist, Array(laughs.utf8))
        expect(.malformedPlist, Array("<plist><string>&ext;</string></plist>".utf8))
        let deepXML = "<plist>" + String(repeating: "<array>", count: 1_000_000) + String(repeating: "</array>", count: 1_000_000) + "</plist>"
        expect(.limitExceeded, Array(deepXML.utf8))
        let deepJSON = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        XCTAssertThrowsError(try JSONDocument(parsing: Array(deepJSON.utf8))) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded)
        }
    }

    func testInvalidTextAndMalformedJSON() throws {
        expect(.malformedPlist, Array("<plist><string>".utf8) + [0xC3, 0x28] + Array("</string></plist>".utf8))
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "\"\\ud800\"", "01", "1.", "[1] x", "\"\u{01}\"", "nul"] {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(bad.utf8)), bad) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .malformedJSON, bad)
            }
        }
        XCTAssertThrowsError(try JSONDocument(parsing: [0x22, 0xFF, 0x22]))
        XCTAssertThrowsError(try JSONDocument(parsing: Array(#"{"$ref": 5}"#.utf8)).archive(format: .binary)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument)
        }
        // A dangling reference names the $id it looked for.
        XCTAssertThrowsError(try JSONDocument(parsing: Array(#"["a", {"$ref": 7}]"#.utf8)).archive(format: .binary)) { error in
            XCTAssertTrue((error as? CodecError)?.message.contains("$id 7,") == true, "\(error)")
        }
        XCTAssertThrowsError(try JSONDocument(parsing: Array(#"["a", {"$ref": "x"}]"#.utf8)).archive(format: .binary)) { error in
            XCTAssertTrue((error as? CodecError)?.message.contains(#"$id "x""#) == true, "\(error)")
        }
        XCTAssertThrowsError(try JSONDocument(parsing: Array(#"{"a": {"$bogus": 1}}"#.utf8)).archive(format: .binary)) { error in
            XCTAssertEqual((error as? CodecError)?.jsonPath, "$.a.$bogus")
        }
    }
}
