import TestSupport
import XCTest

@testable import ArchiveCodec

/// A plain property list's summary against counts the test makes from its raw view: arrays,
/// dictionaries and the keys of the dictionaries with the kinds of their values (the fixtures'
/// containers form trees, so the raw view writes each once), and the payloads among its data.
final class PlainPropertyListSummaryTests: XCTestCase {
    private struct Counts {
        var arrays = 0
        var dictionaries = 0
        var keys: [String: [String: Int]] = [:]

        init(_ value: TestJSON) {
            var pending = [value]
            while let next = pending.popLast() {
                switch next {
                case .object(let members) where !(members.count == 1 && ["$data", "$date", "$uid", "$real"].contains(members[0].key)):
                    dictionaries += 1
                    for member in members {
                        keys[member.key, default: [:]][Self.kind(member.value), default: 0] += 1
                        pending.append(member.value)
                    }
                case .array(let items):
                    arrays += 1
                    pending += items
                default: break
                }
            }
        }

        static func kind(_ value: TestJSON) -> String {
            switch value {
            case .object(let members) where members.count == 1 && members[0].key == "$data": "data"
            case .object(let members) where members.count == 1 && members[0].key == "$date": "date"
            case .object(let members) where members.count == 1 && members[0].key == "$uid": "uid"
            case .object(let members) where members.count == 1 && members[0].key == "$real": "real"
            case .object: "dictionary"
            case .array: "array"
            case .string: "string"
            case .number(let text): text.contains(where: { ".eE".contains($0) }) ? "real" : "integer"
            case .bool: "boolean"
            case .null: "null"
            }
        }
    }

    func testCountsMatchTheRawView() throws {
        for folder in ["plain-plist", "plain-plist-with-nested-archive"] {
            for name in Fixtures.publicNames(folder) {
                let bytes = try Fixtures.publicFile(name)
                let archive = try Archive(parsing: bytes)
                guard let list = archive.document as? PlainPropertyList else { continue }
                XCTAssertTrue(list.plist.containersFormTree, name)
                let summary = try archive.summary()
                let counts = Counts(TestJSON.parse(try archive.json(view: .raw, pretty: false)))
                XCTAssertEqual(summary.format, .propertyList, name)
                XCTAssertEqual(summary.arrays, counts.arrays, name)
                XCTAssertEqual(summary.dictionaries, counts.dictionaries, name)
                XCTAssertEqual(summary.cyclic, 0, name)
                XCTAssertTrue(summary.classes.isEmpty, name)
                var keys: [String: [String: Int]] = [:]
                for use in summary.dictionaryKeys { keys[use.key] = Dictionary(uniqueKeysWithValues: use.kinds.map { ($0.kind, $0.count) }) }
                XCTAssertEqual(keys, counts.keys, name)
                XCTAssertEqual(summary.readableNesting, archive.depth(of: .readable), name)
                XCTAssertEqual(summary.rawNesting, archive.depth(of: .raw), name)
            }
        }
    }

    /// The Terminal theme holds its colours and font as keyed archives in data: counted as
    /// payloads; with `nested`, their objects and classes are counted too.
    func testTerminalThemePayloads() throws {
        let archive = try Archive(parsing: try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal"))
        let outer = try archive.summary()
        XCTAssertEqual(outer.nestedPayloads, [ArchiveSummary.PayloadCount(format: .keyedArchive, count: 15)])
        XCTAssertTrue(outer.classes.isEmpty)
        let nested = try archive.summary(nested: true)
        XCTAssertEqual(nested.nestedPayloads, outer.nestedPayloads)
        XCTAssertEqual(nested.classes.first { $0.name == "NSColor" }?.count, 14)
        XCTAssertEqual(nested.classes.first { $0.name == "NSFont" }?.count, 1)
        XCTAssertGreaterThan(nested.objects, outer.objects)
        XCTAssertEqual(nested.readableNesting, outer.readableNesting)
        XCTAssertEqual(nested.largestStrings.first?.path, ".$propertyList.Font.$data.$keyedArchive.NSName")
    }

    /// `depth` dictionaries, each holding the next under one key of `keyLength` bytes, the last
    /// a string of 200 bytes: the largest value, its path as deep as the document.
    private func keyChain(depth: Int, keyLength: Int) -> [UInt8] {
        var plist = TestPlistBuilder()
        let key = plist.string(String(repeating: "k", count: keyLength))
        var inner = plist.string(String(repeating: "x", count: 200))
        for _ in 0..<depth { inner = plist.add(.dict([(key: key, value: inner)])) }
        return plist.binary(top: inner)
    }

    /// A path too long to write is not built: the summary walks at most the steps it could
    /// write, and reads a key's text only when it could be written; a shallow path is named.
    func testPathsTooLongToWriteAreNotBuilt() throws {
        let shallow = try Archive(parsing: keyChain(depth: 3, keyLength: 2)).summary()
        XCTAssertEqual(shallow.largestStrings.first?.path, ".$propertyList.kk.kk.kk")
        XCTAssertNil(try Archive(parsing: keyChain(depth: 3, keyLength: 2_000)).summary().largestStrings.first?.path)
        XCTAssertNil(try Archive(parsing: keyChain(depth: 60, keyLength: 2)).summary().largestStrings.first?.path)
        let result = try ScalingCheck.measure(startingAt: 20_000, maximumSize: 40_000, make: { try Archive(parsing: keyChain(depth: $0, keyLength: $0)) }) {
            XCTAssertNil(try $0.summary().largestStrings.first?.path)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }
}
