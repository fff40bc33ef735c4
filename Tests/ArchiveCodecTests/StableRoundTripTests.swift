import TestSupport
import XCTest

@testable import ArchiveCodec

/// Decode → encode → decode of an unchanged document gives byte-identical JSON: `$id`
/// numbers, placement, string sharing and key order depend on the document alone, never on
/// the order the encoder writes `$objects` in, so a save's JSON can be kept in version control.
final class StableRoundTripTests: XCTestCase {
    /// The options a decode may take that change its text.
    private struct Options: CustomStringConvertible {
        var maxDepth: Int?
        var exactIntegers = false
        var nested = false
        var pretty = false

        var description: String { "maxDepth \(maxDepth.map(String.init) ?? "-") exactIntegers \(exactIntegers) nested \(nested) pretty \(pretty)" }
    }

    private static let optionSets: [Options] = [
        Options(), Options(pretty: true), Options(maxDepth: 7), Options(exactIntegers: true), Options(nested: true)
    ]

    private func decode(_ bytes: [UInt8], _ options: Options) throws -> [UInt8] {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(
            view: .readable, pretty: options.pretty, maxDepth: options.maxDepth, numbers: NumberWrapping(exactIntegers: options.exactIntegers),
            nested: options.nested ? DecodePolicy(depthLimit: 10_000) : nil)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: options.pretty, plan: plan, parallelism: .serial) { text.append(contentsOf: $0) }
        return text
    }

    /// `name`'s JSON, encoded (binary, and XML unless `xml` is false) and decoded again with the
    /// same options, is the same text. (An XML property list carries whole seconds only, so a
    /// plain list's dates with fractions cannot come back through XML.)
    private func assertStable(_ bytes: [UInt8], _ name: String, xml: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        for options in Self.optionSets {
            let first: [UInt8]
            do {
                first = try decode(bytes, options)
            } catch let error as CodecError where error.kind == .depthBoundTooSmall {
                continue  // a plain property list or typedstream deeper than the bound
            }
            for format in xml ? [PlistFormat.binary, .xml] : [.binary] {
                let encoded = try JSONDocument(parsing: first).archive(format: format)
                let second = try decode(encoded, options)
                XCTAssertEqual(
                    String(decoding: first, as: UTF8.self), String(decoding: second, as: UTF8.self), "\(name), \(options), \(format)", file: file, line: line)
            }
        }
    }

    func testEveryFixtureDecodesTheSameAfterARoundTrip() throws {
        for name in Fixtures.names() {
            try assertStable(try Fixtures.bytes(name), name)
        }
        for folder in ["keyed-archive", "plain-plist", "plain-plist-with-nested-archive", "webarchive"] {
            for name in Fixtures.publicNames(folder) {
                try assertStable(try Fixtures.publicFile(name), name, xml: folder == "keyed-archive")
            }
        }
        for name in Fixtures.typedStreamNames() {
            try assertStable(try Fixtures.typedStream(name), name)
        }
    }

    /// Equal values stored as distinct entries, equally often referenced: the one the view
    /// reaches first is written bare (here the later entry in `$objects`), and stays so.
    func testTiedEqualValuesKeepWhichOneIsBare() throws {
        let archive = try buildArchive([
            .object("Pair", [("first", .uid(3)), ("second", .uid(2)), ("third", .uid(4))]),
            .string("same"),
            .string("same"),
            .object("Box", [("text", .uid(5))]),
            .string("same")
        ])
        let json = String(decoding: try decode(archive, Options()), as: UTF8.self)
        XCTAssertEqual(
            json,
            #"{"$class":"Pair","first":"same","second":{"$id":1,"$string":"same"},"third":{"$class":"Box","text":{"$id":2,"$string":"same"}}}"#)
        try assertStable(archive, "ties")
        try assertEquivalent(archive, roundTrip(archive))
    }

    /// Ids count from 1 in the order the view places bodies, whatever the UIDs.
    func testIDsAreNumberedInPlacementOrder() throws {
        let archive = try buildArchive([
            .object("Root", [("a", .uid(4)), ("b", .uid(3)), ("c", .uid(2))]),
            .object("C", [("back", .uid(1))]),
            .object("B", [("c", .uid(2))]),
            .object("A", [("b", .uid(3))])
        ])
        XCTAssertEqual(
            String(decoding: try decode(archive, Options()), as: UTF8.self),
            #"{"$class":"Root","$id":1,"a":{"$class":"A","b":{"$ref":2}},"b":{"$class":"B","$id":2,"c":{"$ref":3}},"c":{"$class":"C","$id":3,"back":{"$ref":1}}}"#)
        try assertStable(archive, "numbering")
    }
}
