import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Attributed strings as text in runs (`AttributedRunFolds`, `fillAttributedString`): Apple's
/// archives, random ones, the layouts that keep their archived keys, and what the encoder refuses.
final class AttributedRunsTests: XCTestCase {
    private func json(_ bytes: [UInt8]) throws -> String {
        String(decoding: try KeyedArchive(parsing: bytes).json(view: .readable, pretty: false), as: UTF8.self)
    }

    private func encode(_ text: String) throws -> [UInt8] {
        try JSONDocument(parsing: Array(text.utf8)).archive(format: .binary)
    }

    // MARK: Real archives

    func testAppleArchivesReadAsRuns() throws {
        let runs =
            #""$runs":[{"$length":1,"$attributes":{}},{"$length":1,"$attributes":{"Font":"Helvetica","Size":123}},"#
            + #"{"$length":4,"$attributes":{"Size":456,"Font":"Times"}},{"$length":2,"$attributesOf":1},"#
            + #"{"$length":1,"$attributes":{"Size":456,"Font":"Times"}},{"$length":1,"$attributesOf":0}]}"#
        let plain = try Fixtures.bytes("scl-macOS1014_NSAttributedString.archive")
        XCTAssertEqual(try json(plain), #"{"$class":"NSAttributedString","$string":"0123456789","# + runs)
        try assertReadableLossless(plain, "NSAttributedString")
        let mutable = try Fixtures.bytes("scl-macOS1014_NSMutableAttributedString.archive")
        XCTAssertEqual(
            try json(mutable),
            #"{"$class":"NSMutableAttributedString","$string":{"$class":"NSMutableString","$string":"0123456789"},"#
                + runs.replacingOccurrences(of: #""Font":"Helvetica","Size":123"#, with: #""Size":123,"Font":"Helvetica""#))
        try assertReadableLossless(mutable, "NSMutableAttributedString")
    }

    /// The encoder writes Foundation's keys, classes and bytes back: the same entries as the
    /// archive Apple wrote.
    func testEncoderRebuildsFoundationsEntries() throws {
        let back = try encode(try json(Fixtures.bytes("scl-macOS1014_NSAttributedString.archive")))
        let raw = String(decoding: try KeyedArchive(parsing: back).json(view: .raw, pretty: false), as: UTF8.self)
        for part in [
            #""$classname":"NSMutableData","$classes":["NSMutableData","NSData","NSObject"]"#,
            #""$classname":"NSMutableArray","$classes":["NSMutableArray","NSArray","NSObject"]"#,
            #""NS.data":{"$data":"AQABAQQCAgEBAwEA"}"#, #""NSAttributeInfo":{"$uid":"#, #""NSAttributes":{"$uid":"#
        ] {
            XCTAssertTrue(raw.contains(part), "\(part) in \(raw)")
        }
    }

    // MARK: One run

    /// One run: `NSAttributes` is the dictionary itself and there is no `NSAttributeInfo`.
    func testOneRunIsTheDictionaryItself() throws {
        let string = AttributedStringArchive(text: "a😀", runs: [(3, 0)], slots: [0], distinct: [[("Font", .string("Menlo"))]])
        let bytes = try string.archive()
        XCTAssertEqual(try json(bytes), #"{"$class":"NSAttributedString","$string":"a😀","$runs":[{"$length":3,"$attributes":{"Font":"Menlo"}}]}"#)
        try assertReadableLossless(bytes, "one run")
        let raw = String(decoding: try KeyedArchive(parsing: try encode(try json(bytes))).json(view: .raw, pretty: false), as: UTF8.self)
        XCTAssertFalse(raw.contains("NSAttributeInfo"), raw)
        XCTAssertFalse(raw.contains("NSMutableArray"), raw)
    }

    // MARK: No runs

    /// An empty text: Foundation archives its `NSString` alone (no `NSAttributes`). It reads
    /// as `"$string": ""` with no runs, as any attributed string reads, and encodes back to
    /// Foundation's layout; a text that is not empty without runs keeps its archived key.
    func testAnEmptyTextHasNoRuns() throws {
        let foundation = try encode(#"{"$class":"NSAttributedString","NSString":""}"#)
        XCTAssertEqual(try json(foundation), #"{"$class":"NSAttributedString","$string":"","$runs":[]}"#)
        try assertReadableLossless(foundation, "empty")
        let mutable = try encode(#"{"$class":"NSMutableAttributedString","NSString":{"$class":"NSMutableString","$string":""}}"#)
        XCTAssertEqual(try json(mutable), #"{"$class":"NSMutableAttributedString","$string":{"$class":"NSMutableString","$string":""},"$runs":[]}"#)
        try assertReadableLossless(mutable, "empty mutable")
        let back = try encode(#"{"$class":"NSAttributedString","$string":"","$runs":[]}"#)
        let raw = String(decoding: try KeyedArchive(parsing: back).json(view: .raw, pretty: false), as: UTF8.self)
        XCTAssertTrue(raw.contains(#"{"NSString":{"$uid":"#), raw)
        XCTAssertFalse(raw.contains("NSAttributes"), raw)
        XCTAssertEqual(try json(back), #"{"$class":"NSAttributedString","$string":"","$runs":[]}"#)
        XCTAssertEqual(try json(try encode(#"{"$class":"NSAttributedString","NSString":"a"}"#)), #"{"$class":"NSAttributedString","NSString":"a"}"#)
        // A shared empty text: the second string refers to the first one's, and encodes back.
        let shared = try encode(
            #"[{"$class":"NSMutableAttributedString","NSString":{"$class":"NSMutableString","$id":1,"$string":""}},{"$class":"NSMutableAttributedString","NSString":{"$ref":1}}]"#
        )
        let sharedJSON = try json(shared)
        XCTAssertTrue(sharedJSON.contains(#""$string":{"$ref":1},"$runs":[]"#), sharedJSON)
        try assertReadableLossless(shared, "shared empty text")
        // The plain view reads it as its text.
        XCTAssertEqual(String(decoding: try Archive(parsing: foundation).plainJSON(pretty: false), as: UTF8.self), #""""#)
    }

    // MARK: Random attributed strings

    /// Random text (non-BMP characters included) cut into random runs, dictionaries repeated
    /// in the array and shared with another `$top` key: each folds, converts back equivalent
    /// under every number wrapping and nesting bound, and decodes again to the same JSON.
    func testRandomAttributedStrings() throws {
        var random = SplitMix64(seed: 7)
        for round in 0..<150 {
            let string = AttributedStringArchive.random(using: &random)
            let bytes = try string.archive()
            let text = try json(bytes)
            XCTAssertTrue(text.contains(#""$runs":[{"$length":"#), "round \(round): \(text)")
            XCTAssertFalse(text.contains("NSAttributeInfo"), "round \(round): \(text)")
            try assertReadableLossless(bytes, "round \(round)")
        }
    }

    // MARK: Layouts that keep their keys

    /// Each spoils one condition of the fold: the archived keys stay, and convert back.
    func testNonCanonicalLayoutsKeepTheirKeys() throws {
        let base = AttributedStringArchive(
            text: "abcdef", runs: [(2, 0), (1, 1), (3, 0)], slots: [0, 1], distinct: [[("Font", .string("Times"))], [("Size", .int(12))]])
        var variants: [(String, AttributedStringArchive)] = []
        var shared = base
        shared.shareArray = true
        variants.append(("shared array", shared))
        var outOfOrder = base
        outOfOrder.runs = [(2, 1), (1, 0), (3, 1)]
        variants.append(("indexes out of order", outOfOrder))
        var unused = base
        unused.slots = [0, 1, 0]
        variants.append(("unused entry", unused))
        var longVarint = base
        longVarint.infoBytes = [0x82, 0x00, 0x00, 0x01, 0x01, 0x03, 0x00]
        variants.append(("non-minimal varint", longVarint))
        var short = base
        short.runs = [(2, 0), (1, 1), (2, 0)]
        variants.append(("lengths short of the text", short))
        var empty = base
        empty.runs = [(2, 0), (0, 1), (1, 1), (3, 0)]
        variants.append(("a run of no length", empty))
        var plainData = base
        plainData.plainData = true
        variants.append(("NSData, not NSMutableData", plainData))
        var extra = base
        extra.extraKey = true
        variants.append(("another key", extra))
        var forced = AttributedStringArchive(text: "ab", runs: [(2, 0)], slots: [0], distinct: [[]])
        forced.forceArray = true
        variants.append(("one run in an array", forced))
        var odd = base
        odd.infoBytes = [0x02, 0x00, 0x01, 0x01, 0x03]
        variants.append(("an odd number of varints", odd))
        var surrogate = base
        surrogate.text = "abcde\u{1F600}"
        surrogate.runs = [(2, 0), (1, 1), (4, 0)]
        variants.append(("(control) non-BMP text folds", surrogate))
        for (name, variant) in variants {
            let bytes = try variant.archive()
            let text = try json(bytes)
            if name.hasPrefix("(control)") {
                XCTAssertTrue(text.contains(#""$runs":[{"#), "\(name): \(text)")
            } else {
                XCTAssertFalse(text.contains(#""$runs":[{"#), "\(name): \(text)")
                XCTAssertTrue(text.contains(#""NSAttributes":"#), "\(name): \(text)")
            }
            try assertReadableLossless(bytes, name)
        }
    }

    // MARK: Cost

    /// One text that many attributed strings use (nothing requires it unshared) is measured
    /// once, however many instances fold with it: through one string entry, or through many
    /// entries of one plist string (the builder interns strings).
    func testASharedTextIsMeasuredOnce() throws {
        let count = 300
        let text = String(repeating: "é", count: 2_000)  // UTF-16 in the plist: checked unit by unit
        for oneEntry in [true, false] {
            let firstInstance = oneEntry ? 4 : 3 + count
            var entries: [Entry] = [
                .object("NSArray", [("NS.objects", .array((0..<count).map { .uid(firstInstance + $0) }))]),
                .object("NSDictionary", [("NS.keys", .array([])), ("NS.objects", .array([]))])
            ]
            entries += [Entry](repeating: .string(text), count: oneEntry ? 1 : count)
            entries += (0..<count).map { .object("NSAttributedString", [("NSString", .uid(oneEntry ? 3 : 3 + $0)), ("NSAttributes", .uid(2))]) }
            let archive = try KeyedArchive(parsing: try buildArchive(entries))
            XCTAssertEqual(archive.attributedRuns.folds.count, count)
            XCTAssertEqual(archive.attributedRuns.measuredTexts, 1)
            let json = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
            XCTAssertEqual(json.components(separatedBy: #""$runs":[{"$length":2000,"$attributes""#).count - 1, count)
        }
    }

    /// `count` attributed strings of one `runs`-unit ASCII text, each with its own
    /// NSMutableData and NSMutableArray entries (and NS.objects array), every NSMutableData's
    /// `NS.data` the same plist data object: `runs` runs of one unit, all of one dictionary.
    private func sharedRunData(count: Int, runs: Int) throws -> [UInt8] {
        // 1 the root array, 2 the dictionary, 3 its key, 4 the text, then per instance three.
        var entries: [Entry] = [
            .object("NSArray", [("NS.objects", .array((0..<count).map { .uid(5 + 3 * $0) }))]),
            .object("NSDictionary", [("NS.keys", .array([.uid(3)])), ("NS.objects", .array([.uid(3)]))]),
            .string("Font"), .string(String(repeating: "x", count: runs))
        ]
        let info = (0..<2 * runs).map { UInt8(1 - $0 % 2) }  // (length 1, slot 0) per run
        for index in 0..<count {
            let uid = 5 + 3 * index
            entries += [
                .object("NSAttributedString", [("NSString", .uid(4)), ("NSAttributeInfo", .uid(uid + 1)), ("NSAttributes", .uid(uid + 2))]),
                .object("NSMutableData", [("NS.data", .data(info))]),
                .object("NSMutableArray", [("NS.objects", .array([.uid(2)]))])
            ]
        }
        return try buildArchive(entries)
    }

    /// Runs that many instances read from one data object are decoded once and kept once: the
    /// folds share their arrays, so what parsing keeps follows the input, not the instances
    /// times the runs.
    func testRunsSharedByManyInstancesAreKeptOnce() throws {
        let bytes = try sharedRunData(count: 40, runs: 500)
        let archive = try KeyedArchive(parsing: bytes)
        let folds = archive.attributedRuns.folds
        XCTAssertEqual(folds.count, 40)
        XCTAssertEqual(archive.attributedRuns.decodedRuns, 1)
        XCTAssertEqual(Set(folds.map { $0.lengths.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } }).count, 1)
        let json = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertEqual(json.components(separatedBy: #"{"$length":1,"$attributesOf":0}"#).count - 1, 40 * 499)
        try assertReadableLossless(try sharedRunData(count: 3, runs: 4), "shared run data")
    }

    /// Parsing grows with the archive when instances and runs grow together (each instance
    /// folding the shared runs again grows with their product).
    func testSharedRunDataScalesLinearly() throws {
        let result = try ScalingCheck.measure(startingAt: 1_000, maximumSize: 2_000, make: { try sharedRunData(count: $0, runs: $0) }) {
            _ = try KeyedArchive(parsing: $0)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }

    // MARK: The encoder

    func testHandWrittenRunsEncode() throws {
        let bytes = try encode(
            #"{"$class":"NSTextStorage","$string":"ab\u00e9","$runs":[{"$length":1,"$attributes":{"k":1}},{"$length":1,"$attributes":{"k":2}},{"$attributesOf":0,"$length":1}]}"#
        )
        XCTAssertEqual(
            try json(bytes),
            #"{"$class":"NSTextStorage","$string":"abé","$runs":[{"$length":1,"$attributes":{"k":1}},{"$length":1,"$attributes":{"k":2}},{"$length":1,"$attributesOf":0}]}"#)
    }

    func testEncoderRefusesBrokenRuns() throws {
        let refused: [(String, String)] = [
            (#"{"$class":"NSAttributedString","$runs":[{"$length":1,"$attributes":{}}]}"#, "$.$runs"),
            (#"{"$class":"NSAttributedString","$string":"a","$runs":[]}"#, "$.$runs"),
            (#"{"$class":"NSAttributedString","$string":"a","$runs":{}}"#, "$.$runs"),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":2}]}"#, "$.$runs[0]"),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":0,"$attributes":{}}]}"#, "$.$runs[0].$length"),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":1.5,"$attributes":{}}]}"#, "$.$runs[0].$length"),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$attributes":{}}]}"#, "$.$runs[0]"),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":2,"$attributes":{},"$attributesOf":0}]}"#, "$.$runs[0]"),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":1,"$attributesOf":0},{"$length":1,"$attributes":{}}]}"#, "$.$runs[0].$attributesOf"),
            (
                #"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":1,"$attributes":{}},{"$length":1,"$attributesOf":1}]}"#,
                "$.$runs[1].$attributesOf"
            ),
            (#"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":1,"$attributes":{},"$text":"a"}]}"#, "$.$runs[0].$text"),
            (#"{"$class":"NSAttributedString","$string":"a😀","$runs":[{"$length":2,"$attributes":{}}]}"#, "$.$runs"),
            (#"{"$class":"NSAttributedString","$string":5,"$runs":[{"$length":1,"$attributes":{}}]}"#, "$.$string"),
            (
                #"{"$class":"NSAttributedString","$string":{"$string":"a","$runs":[{"$length":1,"$attributes":{}}]},"$runs":[{"$length":1,"$attributes":{}}]}"#,
                "$.$string.$runs"
            ),
            (#"{"$class":"NSAttributedString","$data":"","$runs":[{"$length":1,"$attributes":{}}]}"#, "$.$runs")
        ]
        for (text, path) in refused {
            XCTAssertThrowsError(try encode(text), text) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, text)
                XCTAssertEqual((error as? CodecError)?.jsonPath, path, "\(text): \(error)")
            }
        }
    }
}
