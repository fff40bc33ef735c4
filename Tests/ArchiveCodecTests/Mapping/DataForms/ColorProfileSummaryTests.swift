import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `ColorProfileSummary`: a real version 2 profile (an NSColorSpace's `NSICC` in a colour list),
/// version 4 profiles built here with a multi-localised description, the `$kind` they give in the
/// readable views and its check on encode, and hostile tag tables (counts and offsets past the
/// bytes, text that is not text).
final class ColorProfileSummaryTests: XCTestCase {
    private static let colorList = "keyed-archive/ColorPaletteCodable_DarkMailTopBar.clr"

    private func summary(_ bytes: [UInt8]) -> ColorProfileSummary? { bytes.withUnsafeBufferPointer { ColorProfileSummary.of($0) } }

    private static func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// The profile inside the colour list: found by its signature, its length from its header.
    private func realProfile() throws -> [UInt8] {
        let list = try Fixtures.publicFile(Self.colorList)
        let signature = Array("acsp".utf8)
        let at = try XCTUnwrap((36..<list.count - 4).first { Array(list[$0..<$0 + 4]) == signature })
        let start = at - 36
        let length = list[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        return Array(list[start..<start + length])
    }

    /// A profile of `profileClass` in `space`, version 4.3, whose only tag is `description`.
    private static func profile(class profileClass: String = "mntr", space: String = "RGB ", description: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 128)
        header[8] = 4
        header[9] = 0x30
        header.replaceSubrange(12..<16, with: Array(profileClass.utf8))
        header.replaceSubrange(16..<20, with: Array(space.utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let table = be32(1) + Array("desc".utf8) + be32(128 + 16) + be32(description.count)
        var bytes = header + table + description
        bytes.replaceSubrange(0..<4, with: be32(bytes.count))
        return bytes
    }

    /// A `multiLocalizedUnicodeType` of `records`: (language and country, text).
    private static func localised(_ records: [(String, String)]) -> [UInt8] {
        var head = Array("mluc".utf8) + be32(0) + be32(records.count) + be32(12)
        var texts: [UInt8] = []
        let textsStart = 16 + 12 * records.count
        for (place, text) in records {
            let units = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            head += Array(place.utf8) + be32(units.count) + be32(textsStart + texts.count)
            texts += units
        }
        return head + texts
    }

    func testTheColourListsProfileSaysWhatItIs() throws {
        let found = try XCTUnwrap(summary(realProfile()))
        XCTAssertEqual(found, ColorProfileSummary(version: "2.1.0", profileClass: "display", space: "RGB", description: "sRGB IEC61966-2.1"))
        let kind = try realProfile().withUnsafeBufferPointer { try XCTUnwrap(DataKind.of($0)) }
        let members: [AccountMember] = [
            AccountMember("name", .string("icc")), AccountMember("version", .string("2.1.0")), AccountMember("class", .string("display")),
            AccountMember("space", .string("RGB")), AccountMember("description", .string("sRGB IEC61966-2.1"))
        ]
        XCTAssertEqual(kind.account, .object(members))
    }

    /// The colour list reads with the profile's account beside its bytes, and comes back the
    /// same; an edited description is refused where it differs.
    func testTheColourListsKindRoundTrips() throws {
        let bytes = try Fixtures.publicFile(Self.colorList)
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false, maxDepth: nil, numbers: .nonFinite)
        var json: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { json += $0 }
        let text = String(decoding: json, as: UTF8.self)
        let said = #""$kind":{"name":"icc","version":"2.1.0","class":"display","space":"RGB","description":"sRGB IEC61966-2.1"}"#
        XCTAssertTrue(text.contains(said), text)
        XCTAssertEqual(jsonNesting(json), plan.depth)
        XCTAssertNil(try archive.difference(from: Archive(parsing: JSONDocument(parsing: json).archive(format: .binary))))
        let edited = text.replacingOccurrences(of: #""description":"sRGB IEC61966-2.1""#, with: #""description":"Display P3""#)
        XCTAssertThrowsError(try JSONDocument(parsing: Array(edited.utf8)).archive(format: .binary)) { error in
            let error = error as! CodecError
            XCTAssertEqual(error.kind, .invalidDocument)
            XCTAssertTrue(error.jsonPath?.hasSuffix(".$kind.description") ?? false, error.jsonPath ?? "")
            XCTAssertTrue(error.message.contains(#"the bytes say "sRGB IEC61966-2.1""#), error.message)
        }
    }

    /// A version 4 description: the `en`-`US` record wherever it stands, else the first; text
    /// beyond ASCII (a surrogate pair included) kept; trailing NULs dropped.
    func testAMultiLocalisedDescription() {
        let both = Self.profile(description: Self.localised([("frFR", "Écran é"), ("enUS", "Display 😀\u{0}\u{0}")]))
        XCTAssertEqual(summary(both), ColorProfileSummary(version: "4.3.0", profileClass: "display", space: "RGB", description: "Display 😀"))
        let french = Self.profile(class: "prtr", space: "CMYK", description: Self.localised([("frFR", "Imprimante"), ("deDE", "Drucker")]))
        XCTAssertEqual(summary(french), ColorProfileSummary(version: "4.3.0", profileClass: "output", space: "CMYK", description: "Imprimante"))
        let gray = Self.profile(class: "abst", space: "GRAY", description: Self.localised([("enUS", "G")]))
        XCTAssertEqual(summary(gray)?.space, "GRAY")
        XCTAssertEqual(summary(Self.profile(space: "5CLR", description: []))?.space, "5CLR")
    }

    /// What the specification does not define is left out, never guessed: an unknown class or
    /// space, a description with a control character, an unpaired surrogate, an odd length.
    func testWhatIsNotDefinedIsLeftOut() {
        let unknown = summary(Self.profile(class: "zzzz", space: "RGBA", description: Self.localised([("enUS", "ok")])))
        XCTAssertEqual(unknown, ColorProfileSummary(version: "4.3.0", profileClass: nil, space: nil, description: "ok"))
        XCTAssertNil(summary(Self.profile(space: "GCLR", description: []))?.space)
        XCTAssertNil(summary(Self.profile(description: Self.localised([("enUS", "a\u{1}b")])))?.description)
        XCTAssertNil(summary(Self.profile(description: Self.localised([("enUS", "a\u{85}b")])))?.description)
        var unpaired = Self.localised([("enUS", "ab")])
        unpaired.replaceSubrange(28..<30, with: [0xD8, 0x00])
        XCTAssertNil(summary(Self.profile(description: unpaired))?.description)
        var odd = Self.localised([("enUS", "ab")])
        odd.replaceSubrange(20..<24, with: Self.be32(3))
        XCTAssertNil(summary(Self.profile(description: odd))?.description)
        let ascii = Array("desc".utf8) + Self.be32(0) + Self.be32(4) + Array("a\u{7F}b\u{0}".utf8)
        XCTAssertNil(summary(Self.profile(description: ascii))?.description)
        let fine = Array("desc".utf8) + Self.be32(0) + Self.be32(6) + Array("Plain\u{0}".utf8)
        XCTAssertEqual(summary(Self.profile(description: fine))?.description, "Plain")
    }

    /// Counts and offsets are checked against the bytes before anything is read: a tag table of
    /// 2^32 − 1 entries, a record count as large, a tag or text past the end; every prefix of the
    /// real profile and of a version 4 one is read without reading past it.
    func testHostileTablesAreBoundedByTheBytes() throws {
        var huge = Self.profile(description: Self.localised([("enUS", "x")]))
        huge.replaceSubrange(128..<132, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(summary(huge)?.description, "x", "the entries the bytes hold are read")
        var records = Self.localised([("enUS", "x")])
        records.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(summary(Self.profile(description: records))?.description, "x")
        var past = Self.profile(description: Self.localised([("enUS", "x")]))
        past.replaceSubrange(136..<140, with: [0xFF, 0xFF, 0xFF, 0xF0])
        XCTAssertNil(summary(past)?.description)
        var textPast = Self.localised([("enUS", "xy")])
        textPast.replaceSubrange(24..<28, with: [0x7F, 0xFF, 0xFF, 0xFF])
        XCTAssertNil(summary(Self.profile(description: textPast))?.description)
        var smallRecords = Self.localised([("enUS", "x")])
        smallRecords.replaceSubrange(12..<16, with: Self.be32(4))
        XCTAssertNil(summary(Self.profile(description: smallRecords))?.description)
        for whole in [try realProfile(), Self.profile(description: Self.localised([("frFR", "é"), ("enUS", "Display")]))] {
            for length in 0...whole.count {
                let found = summary(Array(whole.prefix(length)))
                XCTAssertEqual(found == nil, length < 128, "\(length)")
            }
        }
    }
}
