import TestSupport
import XCTest

@testable import ArchiveCodec

/// Plain property lists: read as `{"$propertyList": value}`, written back value for value.
final class PlainPropertyListTests: XCTestCase {
    private func decode(_ bytes: [UInt8], exactIntegers: Bool = false) throws -> [UInt8] {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: exactIntegers))
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
        return text
    }

    private func encode(_ json: [UInt8], format: PlistFormat = .binary) throws -> [UInt8] {
        try JSONDocument(parsing: json).archive(format: format)
    }

    private func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Every real plain plist, with archives in its data or not, comes back value for value
    /// (binary); to XML too where its dates are whole seconds (XML plists carry no fractions).
    func testRealPlainPlistsRoundTrip() throws {
        let names = Fixtures.publicNames("plain-plist") + Fixtures.publicNames("plain-plist-with-nested-archive")
        for name in names {
            let bytes = try Fixtures.publicFile(name)
            let archive = try Archive(parsing: bytes)
            guard archive.document is PlainPropertyList else { return XCTFail("\(name) read as an archive") }
            let json = try decode(bytes)
            XCTAssertTrue(string(json).hasPrefix("{\"$propertyList\":"), name)
            let again = try Archive(parsing: encode(json))
            XCTAssertNil(archive.difference(from: again), name)
            XCTAssertEqual(try decode(encode(json)), json, "\(name): decode(encode(decode)) is the same text")
            // Safari's downloads and Time Machine's preferences hold dates with fractions.
            if !name.contains("Safari"), !name.contains("TimeMachine") {
                XCTAssertNil(archive.difference(from: try Archive(parsing: encode(json, format: .xml))), "\(name) through XML")
            }
        }
    }

    /// Keyed archives read through `Archive` exactly as before.
    func testArchivesAreReadAsArchives() throws {
        for name in Fixtures.names() {
            let bytes = try Fixtures.bytes(name)
            guard let keyed = try? KeyedArchive(parsing: bytes) else { continue }
            let archive = try Archive(parsing: bytes)
            guard archive.keyedArchive != nil else { return XCTFail("\(name) read as a plain plist") }
            XCTAssertEqual(try archive.json(view: .readable, pretty: false), try keyed.json(view: .readable, pretty: false), name)
        }
        for name in Fixtures.publicNames("keyed-archive") {
            guard try Archive(parsing: Fixtures.publicFile(name)).keyedArchive != nil else { return XCTFail(name) }
        }
    }

    /// Every plist type and the values JSON cannot say keep their type and value.
    func testEveryTypeKeepsItsTypeAndValue() throws {
        let json = """
            {"$propertyList": {"int": -9223372036854775808, "max": 18446744073709551615, "zero": 0, "real": 1.0,
             "negZero": -0.0, "nan": {"$real": "NaN"}, "inf": {"$real": "-Infinity"}, "yes": true, "no": false,
             "text": "héllo \\u2603", "empty": "", "data": {"$data": "AAEC"}, "date": {"$date": "2001-01-01T00:00:00Z"},
             "uid": {"$uid": 7}, "$$dollar": {"$$data": 1}, "nested": [[], {}, [[{"a": [1]}]]], "big": {"$integer": "9007199254740993"}}}
            """
        let bytes = try encode(Array(json.utf8))
        let back = string(try decode(bytes))
        for fragment in [
            "\"int\":-9223372036854775808", "\"max\":18446744073709551615", "\"real\":1.0", "\"nan\":{\"$real\":\"NaN\"}",
            "\"inf\":{\"$real\":\"-Infinity\"}", "\"data\":{\"$data\":\"AAEC\"}", "\"date\":{\"$date\":\"2001-01-01T00:00:00Z\"}",
            "\"uid\":{\"$uid\":7}", "\"$$dollar\":{\"$$data\":1}", "\"big\":9007199254740993", "\"text\":\"héllo ☃\""
        ] {
            XCTAssertTrue(back.contains(fragment), "\(fragment) in \(back)")
        }
        XCTAssertTrue(string(try decode(bytes, exactIntegers: true)).contains("\"big\":{\"$integer\":\"9007199254740993\"}"))
        let list = try XCTUnwrap(try? Archive(parsing: bytes))
        XCTAssertNil(list.difference(from: try Archive(parsing: encode(Array(back.utf8)))))
        XCTAssertNil(list.difference(from: try Archive(parsing: encode(Array(back.utf8), format: .xml))))
        // A real stays a real and an integer an integer.
        XCTAssertNotNil(list.difference(from: try Archive(parsing: encode(Array(back.replacingOccurrences(of: "\"real\":1.0", with: "\"real\":1").utf8)))))
    }

    /// A UID past 32 bits has a binary form only: XML's CF$UID holds 32 bits (found by fuzzing).
    func testAUIDPast32BitsIsBinaryOnly() throws {
        let json = Array("{\"$propertyList\":[{\"$uid\":4294967296}]}".utf8)
        XCTAssertEqual(string(try decode(encode(json))), string(json))
        XCTAssertThrowsError(try encode(json, format: .xml)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument)
            XCTAssertTrue((error as? CodecError)?.message.contains("binary") ?? false, "\(error)")
        }
        XCTAssertNoThrow(try encode(Array("{\"$propertyList\":[{\"$uid\":4294967295}]}".utf8), format: .xml))
    }

    func testTheReadableDepthIsTheJSONNesting() throws {
        for json in ["3", "[]", "[{\"$data\":\"AA==\"}]", "{\"a\":[[[1]]]}", "{\"d\":{\"$date\":\"2001-01-01T00:00:00Z\"}}"] {
            let bytes = try encode(Array("{\"$propertyList\":\(json)}".utf8))
            let archive = try Archive(parsing: bytes)
            let text = try decode(bytes)
            XCTAssertEqual(archive.depth(of: .readable), try JSONDocument(parsing: text).depth, json)
        }
        let bytes = try encode(Array("{\"$propertyList\":{\"a\":[[1]]}}".utf8))
        XCTAssertThrowsError(try Archive(parsing: bytes).plan(view: .readable, pretty: false, maxDepth: 3)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .depthBoundTooSmall)
            XCTAssertEqual((error as? CodecError)?.remedy, .nestingBound(4))
        }
    }

    /// Deep plain plists encode without recursion and decode within the stack they were admitted for.
    func testDeepPlainPlist() throws {
        let levels = 20_000
        let json = "{\"$propertyList\":" + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}"
        let bytes = try encode(Array(json.utf8))
        XCTAssertEqual(try Archive(parsing: bytes).depth(of: .readable), levels + 1)
    }

    func testWhatAPlistCannotHoldIsRefusedWithItsPath() throws {
        for (json, needle) in [
            ("{\"$propertyList\":{\"a\":null}}", "null"), ("{\"$propertyList\":{\"$foo\":1}}", "$foo"),
            ("{\"$propertyList\":{\"$uid\":-1}}", "$uid"), ("{\"$propertyList\":[{\"$date\":\"yesterday\"}]}", "time")
        ] {
            XCTAssertThrowsError(try encode(Array(json.utf8)), json) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, json)
                XCTAssertTrue((error as? CodecError)?.message.contains(needle) ?? false, "\(json): \(error)")
                XCTAssertNotNil((error as? CodecError)?.jsonPath, json)
            }
        }
    }

    /// A root with an archive's keys is an archive, refused when broken, never shown as a plain dictionary.
    func testABrokenArchiveIsRefusedAsAnArchive() throws {
        var builder = TestPlistBuilder()
        let top = builder.add(.dict([(builder.string("$archiver"), builder.string("NSKeyedArchiver"))]))
        XCTAssertThrowsError(try Archive(parsing: builder.binary(top: top))) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .notKeyedArchive)
        }
    }

    /// Random plain plists of every type round-trip through JSON, binary and XML.
    func testRandomPlainPlistsRoundTrip() throws {
        var random = TestRandom(for: self)
        for round in 0..<200 {
            var builder = TestPlistBuilder()
            func value(_ depth: Int) -> Int {
                switch Int.random(in: 0..<(depth > 4 ? 7 : 9), using: &random) {
                case 0: return builder.string(String((0..<Int.random(in: 0..<6, using: &random)).map { _ in "a$é☃\"\\\n".randomElement(using: &random)! }))
                case 1: return builder.integer(Int64.random(in: .min ... .max, using: &random))
                case 2: return builder.real([0.5, -0.0, .nan, .infinity, 1e300, Double.random(in: -1e6...1e6, using: &random)].randomElement(using: &random)!)
                case 3: return builder.bool(Bool.random(using: &random))
                case 4: return builder.data((0..<Int.random(in: 0..<9, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
                case 5: return builder.uid(Int.random(in: 0..<1000, using: &random))
                case 6: return builder.integer(Int64(Int.random(in: -5...5, using: &random)))
                case 7: return builder.add(.array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth + 1) }))
                default:
                    // Distinct keys in the order drawn (a Set's order would differ from run to run).
                    var keys: [String] = []
                    for _ in 0..<Int.random(in: 0..<4, using: &random) {
                        let key = ["$a", "$$b", "c", "", "é"].randomElement(using: &random)!
                        if !keys.contains(key) { keys.append(key) }
                    }
                    return builder.add(.dict(keys.map { (key: builder.string($0), value: value(depth + 1)) }))
                }
            }
            let top = value(0)
            for bytes in [builder.binary(top: top), builder.xml(top: top)] {
                let archive = try Archive(parsing: bytes)
                let json = try decode(bytes)
                for format in [PlistFormat.binary, .xml] {
                    XCTAssertNil(archive.difference(from: try Archive(parsing: encode(json, format: format))), "round \(round): \(string(json))")
                }
            }
        }
    }
}
