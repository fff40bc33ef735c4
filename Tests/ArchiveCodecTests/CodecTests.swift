@testable import ArchiveCodec
#if canImport(Glibc)
import Glibc
#endif
import TestFixtures
import XCTest

func roundTrip(_ archive: [UInt8], format: PlistFormat = .binary) throws -> [UInt8] {
    let json = try KeyedArchive(parsing: archive).json(view: .readable, pretty: false)
    return try JSONDocument(parsing: json).archive(format: format)
}

final class FixtureTests: XCTestCase {
    func testEveryFixtureRoundTripsEquivalently() throws {
        let names = Fixtures.names()
        XCTAssertGreaterThanOrEqual(names.count, 40)
        for name in names {
            let original = try Fixtures.bytes(name)
            try assertEquivalent(original, roundTrip(original, format: .binary))
            try assertEquivalent(original, roundTrip(original, format: .xml))
        }
    }

    func testProtocolFramesGetAClearError() throws {
        for name in ["goios_dtx_nsmutablestring.bin", "goios_dtx_nsnull.bin"] {
            XCTAssertThrowsError(try KeyedArchive(parsing: Fixtures.bytes("not-archives/" + name))) { error in
                let error = error as! CodecError
                XCTAssertEqual(error.kind, .malformedPlist)
                XCTAssertTrue(error.message.contains("frame"), error.message)
            }
        }
    }

    func testReadableFormsOfRealArchives() throws {
        func decode(_ name: String) throws -> String {
            String(decoding: try KeyedArchive(parsing: Fixtures.bytes(name)).json(view: .readable, pretty: false), as: UTF8.self)
        }
        XCTAssertEqual(try decode("goios_nsuuid.bin"), #"{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B586"}"#)
        XCTAssertEqual(try decode("scl-NSKeyedUnarchiver-ArrayTest.plist"), #"["baa","baa","black","sheep"]"#)
        XCTAssertTrue(try decode("goios_XCActivityRecord.bin").contains(#""start":{"$date":"2020-11-01T17:44:28.427940Z"}"#))
        // Inline integers stay bare; referenced NSNumbers in an instance's keys are wrapped.
        XCTAssertTrue(try decode("scl-NSKeyedUnarchiver-RangeTest.plist").contains(#""NS.rangeval.length":{"$number":98345}"#))
        XCTAssertTrue(try decode("scl-NSKeyedUnarchiver-RangeTest.plist").contains(#""NS.special":4"#))
        // Distinct equal strings keep their identity.
        XCTAssertTrue(try decode("goios_primitives.bin").contains(#""$string":"Hello, World!""#))
    }
}

final class GraphTests: XCTestCase {
    func testCyclesSelfReferencesAndSharing() throws {
        // 1: Team ↔ 2: Game, 3 shared by both, 4 refers to itself.
        let archive = try buildArchive([
            .object("Team", [("game", .uid(2)), ("logo", .uid(3)), ("me", .uid(4)), ("wins", .int(3)), ("raw", .data([1, 2]))]),
            .object("Game", [("home", .uid(1)), ("logo", .uid(3)), ("score", .real(.nan))]),
            .data([9, 9, 9]),
            .object("Loop", [("self", .uid(4)), ("inline", .array([.uid(3), .int(7), .string("s")]))]),
        ])
        let json = String(decoding: try KeyedArchive(parsing: archive).json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(json.contains(#""$ref":1"#), json)
        XCTAssertTrue(json.contains(#""$ref":4"#), json)
        try assertEquivalent(archive, roundTrip(archive))
        try assertEquivalent(archive, roundTrip(archive, format: .xml))
    }

    func testEveryFoundationFormRoundTrips() throws {
        let archive = try buildArchive([
            .object("NSMutableArray", [("NS.objects", .array([.uid(2), .uid(3)]))]),
            .string("a"),
            .object("NSMutableDictionary", [("NS.keys", .array([.uid(4), .uid(2)])), ("NS.objects", .array([.uid(5), .uid(6)]))]),
            .int(40400),
            .object("NSSet", [("NS.objects", .array([.uid(7)]))]),
            .object("NSOrderedSet", [("NS.object.0", .uid(2)), ("NS.object.1", .uid(8))]),
            .object("NSDate", [("NS.time", .real(625945468.42794))]),
            .object("NSUUID", [("NS.uuidbytes", .data(Array(0..<16)))]),
            .object("NSMutableString", [("NS.string", .string("mutable"))]),
        ], top: [("root", .uid(1)), ("$1", .uid(9)), ("inlineTop", .int(5))])
        try assertEquivalent(archive, roundTrip(archive))
        try assertEquivalent(archive, roundTrip(archive, format: .xml))
    }

    func testDeepChainsAndWideArrays() throws {
        // Deep recursion needs a deep stack (debug frames are large): convert on a thread
        // with 1.5 GiB of it, then check the results here.
        var results: [(original: [UInt8], copy: [UInt8], depth: Int)] = []
        var failure: Error?
        onThread(stackSize: 1536 << 20) {
            do {
                for cyclic in [false, true] {
                    let archive = try chainArchive(depth: 100_000, cyclic: cyclic)
                    results.append((archive, try roundTrip(archive), try KeyedArchive(parsing: archive).depth(of: .readable)))
                }
                let wide = try buildArchive([.array((0..<100_000).map { _ in .uid(2) }), .string("x")])
                results.append((wide, try roundTrip(wide), 1))
            } catch { failure = error }
        }
        if let failure { throw failure }
        XCTAssertEqual(results.map(\.depth), [100_000, 100_001, 1])  // the cycle closes with {"$ref": 1}
        for result in results { try assertEquivalent(result.original, result.copy) }
    }

    func testHandWrittenJSONNeedsNoWrappers() throws {
        let json = #"{"team":"Bears","players":[{"$class":"Player","name":"Ann","number":7}],"ratio":1.5,"big":18446744073709551615,"$$odd":null}"#
        let archive = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let back = String(decoding: try KeyedArchive(parsing: archive).json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertEqual(back, json)
    }
}

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
            try tree.string("not a class"),
        ])
        let root = try tree.dict(
            keys: [try tree.string("$archiver"), try tree.string("$version"), try tree.string("$top"), try tree.string("$objects")],
            values: [try tree.string("NSKeyedArchiver"), try tree.integer(PlistInteger(signed: 100000)),
                     try tree.dict(keys: [try tree.string("root")], values: [try tree.uid(1)]), objects])
        expect(.invalidArchive, BinaryPlistWriter.write(tree, root: root))
        // Mismatched NS.keys / NS.objects.
        expect(.invalidArchive, try buildArchive([.object("NSDictionary", [("NS.keys", .array([.uid(2)])), ("NS.objects", .array([]))]), .string("k")]))
        // A plist that is not an archive.
        var plain = PlistTree()
        let plainRoot = try plain.dict(keys: [try plain.string("a")], values: [try plain.integer(PlistInteger(signed: 1))])
        expect(.notKeyedArchive, BinaryPlistWriter.write(plain, root: plainRoot))
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
        XCTAssertThrowsError(try JSONDocument(parsing: Array(#"{"a": {"$bogus": 1}}"#.utf8)).archive(format: .binary)) { error in
            XCTAssertEqual((error as? CodecError)?.jsonPath, "$.a.$bogus")
        }
    }
}

/// Binary plists may spell a short string's length out (marker 0x_F and an integer) where
/// Apple's writer puts it in the marker; readers must treat both alike.
final class LengthFormTests: XCTestCase {
    /// A one-instance archive ({"$class":"Thing","name":"x"}) whose mapping keys use the
    /// spelled-out length form.
    private func archiveWithSpelledOutLengths() -> [UInt8] {
        func string(_ text: String, spelledOut: Bool = true) -> [UInt8] {
            let bytes = Array(text.utf8)
            return (spelledOut ? [0x5F, 0x10, UInt8(bytes.count)] : [0x50 | UInt8(bytes.count)]) + bytes
        }
        let objects: [[UInt8]] = [
            string("$archiver"), string("NSKeyedArchiver"), string("$version"), [0x12, 0x00, 0x01, 0x86, 0xA0],
            string("$top"), [0xD1, 6, 7], string("root"), [0x80, 1], string("$objects"),
            [0xA3, 10, 11, 15], string("$null", spelledOut: false), [0xD2, 12, 13, 16, 14], string("$class"),
            string("name", spelledOut: false), string("x", spelledOut: false), [0xD2, 17, 18, 19, 20], [0x80, 2],
            string("$classname"), string("$classes"), string("Thing", spelledOut: false), [0xA2, 19, 21],
            string("NSObject", spelledOut: false), [0xD4, 0, 2, 4, 8, 1, 3, 5, 9],
        ]
        var file = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(file.count))
            file += object
        }
        let table = file.count
        file += offsets
        file += [0, 0, 0, 0, 0, 0, 1, 1]
        for field in [objects.count, objects.count - 1, table] {
            file += withUnsafeBytes(of: UInt64(field).bigEndian, Array.init)
        }
        return file
    }

    func testSpelledOutLengthsReadLikeShortOnes() throws {
        let archive = try KeyedArchive(parsing: archiveWithSpelledOutLengths())
        let json = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertEqual(json, #"{"$class":"Thing","name":{"$inline":"x"}}"#)
        let copy = try KeyedArchive(parsing: JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
        XCTAssertNil(archive.difference(from: copy))
    }
}
