import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The readable forms of bytes (`BytesForm`) on real archives with known values, in every
/// storage (inline bytes, an NSData entry, an NSMutableData instance, shared, in `$table`),
/// with bytes the forms do not read, and hand-written forms the encoder checks.
final class ReadableBytesTests: XCTestCase {
    private func json(_ bytes: [UInt8], numbers: NumberWrapping = .nonFinite) throws -> [UInt8] {
        let archive = try KeyedArchive(parsing: bytes)
        return try archive.json(view: .readable, pretty: false, plan: archive.plan(view: .readable, pretty: false, numbers: numbers))
    }

    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json(bytes))) as? [String: Any])
    }

    /// The form inside `value`'s `$bytes` or `$data` wrapper.
    private func form(_ value: Any?) throws -> [String: Any] {
        let wrapper = try XCTUnwrap(value as? [String: Any])
        return try XCTUnwrap((wrapper["$data"] ?? wrapper["$bytes"]) as? [String: Any], "\(wrapper)")
    }

    private func integers(_ value: Any?) -> [[UInt64]] {
        ((value as? [Any]) ?? []).map { item in ((item as? [NSNumber]) ?? [item as? NSNumber].compactMap { $0 }).map(\.uint64Value) }
    }

    private func encode(_ text: String) throws -> [UInt8] {
        try JSONDocument(parsing: Array(text.utf8)).archive(format: .binary)
    }

    /// The data bytes an encoded archive holds, in `$objects` order (its raw view).
    private func dataValues(_ archive: [UInt8]) throws -> [[UInt8]] {
        let raw = try KeyedArchive(parsing: archive).json(view: .raw, pretty: false)
        let text = String(decoding: raw, as: UTF8.self)
        var values: [[UInt8]] = []
        var rest = text[...]
        while let range = rest.range(of: #"{"$data":""#) {
            let tail = rest[range.upperBound...]
            let end = tail.firstIndex(of: "\"")!
            values.append(Array(Data(base64Encoded: String(tail[..<end]))!))
            rest = tail[end...]
        }
        return values
    }

    // MARK: Real archives

    func testIndexSetRangesAndIndexPathIndexes() throws {
        let set = try Fixtures.bytes("scl-macOS1014_NSIndexSet-ManyRanges.archive")
        let ranges = try form(try object(set)["NSRangeData"])["$ranges"]
        XCTAssertEqual(integers(ranges), [[0, 50], [100, 50], [1000, 50], [UInt64(Int64.max) - 50, 50]])
        XCTAssertTrue(String(decoding: try json(set, numbers: .integers), as: UTF8.self).contains(#"[{"$integer":"9223372036854775757"},50]"#))
        try assertReadableLossless(set, "index set")

        let path = try Fixtures.bytes("scl-macOS1014_NSIndexPath-ManyIndices.archive")
        let indexes = try form(try object(path)["NSIndexPathData"])["$indexes"] as? [NSNumber]
        XCTAssertEqual(indexes?.map(\.intValue), [4, 8, 15, 16, 23, 42])
        try assertReadableLossless(path, "index path")
    }

    /// "0123456789": runs of 1, 1, 4, 2, 1, 1 characters using attribute dictionaries 0, 1, 2, 1, 3, 0.
    /// Those archives fold into text in runs (`AttributedRunsTests`); bytes under
    /// `NSAttributeInfo` that do not fold (here, the array is shared) keep the `$runs` numbers.
    func testAttributedStringRunsUnfolded() throws {
        var string = AttributedStringArchive(
            text: "0123456789", runs: [(1, 0), (1, 1), (4, 2), (2, 1), (1, 3), (1, 0)], slots: [0, 1, 2, 3],
            distinct: [[], [("Font", .string("Helvetica")), ("Size", .int(123))], [("Size", .int(456)), ("Font", .string("Times"))], [("Size", .int(456))]])
        string.shareArray = true
        let bytes = try string.archive()
        let root = try XCTUnwrap(try object(bytes)["$top"] as? [String: Any])["root"]
        let runs = try form((root as? [String: Any])?["NSAttributeInfo"])["$runs"]
        XCTAssertEqual(integers(runs), [[1, 0], [1, 1], [4, 2], [2, 1], [1, 3], [1, 0]])
        try assertReadableLossless(bytes, "shared array")
    }

    func testColourListComponentsAndHex() throws {
        let bytes = try Fixtures.publicFile("keyed-archive/ColorPaletteCodable_DarkMailTopBar.clr")
        let top = try XCTUnwrap(try object(bytes)["$top"] as? [String: Any])
        let colors = try XCTUnwrap((top["NSColors"] as? [String: Any])?["$array"] as? [[String: Any]])
        let first = try form(colors[0]["NSRGB"])
        XCTAssertEqual((first["$components"] as? [NSNumber])?.map(\.doubleValue), [0.9861047268, 0, 0.0832362771])
        XCTAssertEqual(first["$hex"] as? String, "#FB0015")
        XCTAssertNil(first["$nulTerminated"])
        let components = try form(colors[0]["NSComponents"])
        XCTAssertEqual((components["$components"] as? [NSNumber])?.map(\.doubleValue), [1, 0.1058823529, 0.09803921569, 1])
        XCTAssertEqual(components["$nulTerminated"] as? Bool, false)
        // The colour's own components (RGB model, `NSColorSpace` 1, in its custom space) have
        // their hex too, beside the fallback's.
        XCTAssertEqual(components["$hex"] as? String, "#FF1B19")
        // With exact numbers, the whole components keep their `.0` through tools that drop it.
        let exact = String(decoding: try json(bytes, numbers: .all), as: UTF8.self)
        XCTAssertTrue(exact.contains(##""$components":[{"$real":"1.0"},0.1058823529,0.09803921569,{"$real":"1.0"}],"$hex":"#FF1B19","$space":"sRGB IEC61966-2.1","$nulTerminated":false"##), exact)
        try assertReadableLossless(bytes, "colour list")
    }

    /// `NSComponents` have a hex only in the RGB model (`NSColorSpace` 1 or 2): four CMYK
    /// components (5) or two white ones (3) have none.
    func testComponentsHaveAHexOnlyInTheRGBModel() throws {
        func colour(space: Int, components: String) throws -> [UInt8] {
            let json = #"{"$top":{"root":{"$class":"NSColor","NSColorSpace":"# + String(space) + #","NSComponents":{"$bytes":{"$components":["# + components + "],\"$nulTerminated\":false}}}}}"
            return try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        }
        for (space, components, hex) in [(1, "0.5,0.25,1", "#8040FF"), (2, "0,0,0,0.5", "#00000080"), (5, "0.1,0.2,0.3,0.4", nil), (3, "0.5,1", nil)] {
            let bytes = try colour(space: space, components: components)
            let read = try form((try object(bytes)["NSComponents"]))
            XCTAssertEqual(read["$hex"] as? String, hex, "space \(space)")
            try assertReadableLossless(bytes, "space \(space)")
        }
    }

    func testNibWhites() throws {
        let bytes = try Fixtures.publicFile("keyed-archive/thecheat_AboutBox.nib-keyedobjects.nib")
        let text = String(decoding: try json(bytes), as: UTF8.self)
        XCTAssertTrue(text.contains(#""NSWhite":{"$bytes":{"$components":[0.66666669],"$space":"calibratedWhite"}}"#), text)
        XCTAssertTrue(text.contains(#""NSWhite":{"$bytes":{"$components":[0.0],"$space":"calibratedWhite"}}"#), text)
        try assertReadableLossless(bytes, "nib")
    }

    /// A Terminal theme's colours are keyed archives in its data values: decoded with
    /// `nested`, their components read as numbers, and an edited component reaches the file.
    func testTerminalThemeColoursNested() throws {
        let bytes = try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false, nested: DecodePolicy(depthLimit: 10_000))
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
        XCTAssertEqual(jsonNesting(text), plan.depth)
        let black =
            ##""ANSIBlackColor":{"$data":{"$keyedArchive":{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[0.1764705882,0.1960784314,0.2549019608],"$hex":"#2D3241","$space":"calibratedRGB"}},"NSColorSpace":1}}}"##
        let string = String(decoding: text, as: UTF8.self)
        XCTAssertTrue(string.contains(black), string)
        let back = try JSONDocument(parsing: text).archive(format: .xml)
        XCTAssertNil(try archive.difference(from: Archive(parsing: back)))
        let edited = string.replacingOccurrences(of: "[0.1764705882,0.1960784314,0.2549019608],\"$hex\":\"#2D3241\"", with: "[0.5,0.25,1]")
        let editedBytes = try JSONDocument(parsing: Array(edited.utf8)).archive(format: .xml)
        let nested = try XCTUnwrap(String(decoding: editedBytes, as: UTF8.self).components(separatedBy: "<key>ANSIBlackColor</key>").last)
        let payload = try XCTUnwrap(nested.components(separatedBy: "<data>").dropFirst().first?.components(separatedBy: "</data>").first)
        let colour = try XCTUnwrap(Data(base64Encoded: payload.filter { !$0.isWhitespace }))
        XCTAssertTrue(try dataValues(Array(colour)).contains(Array("0.5 0.25 1\0".utf8)))
    }

    // MARK: Storage and sharing

    /// Every storage of form bytes reads as a form and writes back the same bytes: inline,
    /// an NSData entry, an NSMutableData instance, one data entry shared by two owners and a
    /// dictionary, an owner under another class name whose chain names it.
    func testEveryStorage() throws {
        let ranges: [UInt8] = [0x00, 0x02, 0x0A, 0x81, 0x01]
        let bytes = try buildArchive(
            [
                .object("NSMutableArray", [("NS.objects", .array([.uid(2), .uid(3), .uid(4), .uid(6), .uid(7), .uid(8)]))]),
                .object("NSIndexSet", [("NSRangeCount", .int(2)), ("NSRangeData", .data(ranges))]),
                .object("NSMutableIndexSet", [("NSRangeCount", .int(2)), ("NSRangeData", .uid(5))]),
                .object("NSIndexSet", [("NSRangeCount", .int(2)), ("NSRangeData", .uid(5))]),
                .data([0x00, 0x02, 0x0A, 0x81, 0x02]),
                .object("NSIndexPath", [("NSIndexPathLength", .int(3)), ("NSIndexPathData", .uid(9))]),
                .object("NSDictionary", [("NS.keys", .array([.uid(10)])), ("NS.objects", .array([.uid(5)]))]),
                .object("NSColor", [("NSColorSpace", .int(1)), ("NSRGB", .data(Array("0.5 0.25 1 0.5\0".utf8)))]),
                .object("NSMutableData", [("NS.data", .data([1, 2, 0xFF, 0x7F]))]),
                .string("key")
            ])
        let root = try XCTUnwrap(try object(bytes)["$array"] as? [[String: Any]])
        XCTAssertEqual(integers(try form(root[0]["NSRangeData"])["$ranges"]), [[0, 2], [10, 129]])
        // The data entry the second set shares with the third and the dictionary, a value.
        XCTAssertEqual(integers(try form(root[1]["NSRangeData"])["$ranges"]), [[0, 2], [10, 257]])
        XCTAssertEqual(integers(try form(root[2]["NSRangeData"])["$ranges"]), [[0, 2], [10, 257]])
        XCTAssertEqual(integers(try form(root[3]["NSIndexPathData"])["$indexes"]), [[1], [2], [16383]])
        XCTAssertEqual(try form(root[5]["NSRGB"])["$hex"] as? String, "#8040FF80")
        try assertReadableLossless(bytes, "storages")
    }

    /// Bytes a form would not give back exactly stay base64, and round-trip as before.
    func testBytesNotInTheFormsLayoutStayBytes() throws {
        let kept: [(String, String, Value)] = [
            ("NSColor", "NSRGB", .data(Array("0.50 0 0\0".utf8))),
            ("NSColor", "NSWhite", .data(Array("-0\0".utf8))),
            ("NSColor", "NSCMYK", .data(Array("1 0 0 0\0junk".utf8))),
            ("NSColor", "NSComponents", .data([])),
            ("NSIndexSet", "NSRangeData", .data([0x80, 0x00, 0x01])),
            ("NSIndexSet", "NSRangeData", .data([0x01, 0x02, 0x03])),
            ("NSIndexPath", "NSIndexPathData", .data([0x01, 0x82])),
            ("NSAttributedString", "NSAttributeInfo", .data([0x01])),
            ("Other", "NSRGB", .data(Array("0.5 0 0\0".utf8)))
        ]
        for (owner, key, value) in kept {
            let bytes = try buildArchive([.object(owner, [(key, value)])])
            let text = String(decoding: try json(bytes), as: UTF8.self)
            XCTAssertTrue(text.contains(#""\#(key)":{"$bytes":""#), text)
            try assertReadableLossless(bytes, "\(owner).\(key)")
        }
    }

    /// Random graphs of form owners, shared data and dictionaries: the nesting measured is the
    /// nesting written, under every bound, and everything converts back.
    func testRandomGraphsWithForms() throws {
        var random = SplitMix64(seed: 42)
        for round in 0..<120 {
            let count = Int(4 + random.next() % 20)
            var entries = randomGraph(count: count, using: &random)
            for index in entries.indices where random.next() % 3 == 0 {
                let target = Int(1 + random.next() % UInt64(count))
                switch random.next() % 5 {
                case 0: entries[index] = .object("NSIndexSet", [("NSRangeData", random.next() % 2 == 0 ? .uid(target) : .data([0x01, 0xFF, 0xFF, 0x03]))])
                case 1: entries[index] = .object("NSColor", [("NSRGB", .data(Array("0.2 0.4 0.6\0".utf8))), ("NSComponents", .data(Array("1 0.5".utf8)))])
                case 2: entries[index] = .data(random.next() % 2 == 0 ? [0x05, 0x07] : Array(repeating: 0xFF, count: 9) + [0x01, 0x00, 0x00])
                case 3: entries[index] = .object("NSMutableData", [("NS.data", .data([0x0A, 0x0B]))])
                default: entries[index] = .object("NSAttributedString", [("NSString", .uid(target)), ("NSAttributeInfo", .uid(target))])
                }
            }
            try assertReadableLossless(try buildArchive(entries), "round \(round)", stable: false)
        }
    }

    // MARK: The encoder

    /// Hand-written forms give the bytes they describe.
    func testFormsEncodeToTheirBytes() throws {
        let archive = try encode(
            #"""
            {"$class": "Holder",
             "color": {"$class": "NSColor", "NSRGB": {"$bytes": {"$components": [1, 0.5, 0.0], "$hex": "#ff8000"}},
                       "NSComponents": {"$bytes": {"$components": [0.25], "$nulTerminated": false}},
                       "former": {"$bytes": {"$components": [0.75], "$nul": false}}},
             "set": {"$class": "NSIndexSet", "NSRangeData": {"$class": "NSMutableData", "$data": {"$ranges": [[0, 2], [300, {"$integer": "18446744073709551615"}]]}}},
             "path": {"$data": {"$indexes": [1, 2]}},
             "runs": {"$bytes": {"$runs": []}}}
            """#)
        let values = try dataValues(archive)
        XCTAssertTrue(values.contains(Array("1 0.5 0\0".utf8)), "\(values)")
        XCTAssertTrue(values.contains(Array("0.25".utf8)), "\(values)")
        // `$nul`, the name builds before gave `$nulTerminated`, is still read.
        XCTAssertTrue(values.contains(Array("0.75".utf8)), "\(values)")
        XCTAssertTrue(values.contains([0x00, 0x02, 0xAC, 0x02] + Array(repeating: 0xFF, count: 9) + [0x01]), "\(values)")
        XCTAssertTrue(values.contains([0x01, 0x02]), "\(values)")
        XCTAssertTrue(values.contains([]), "\(values)")
    }

    /// A malformed form is refused at the value that is wrong.
    func testMalformedFormsAreRefusedWithTheirPath() throws {
        let cases: [(String, String)] = [
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[]}}}"#, "$.NSRGB.$bytes.$components"),
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":["1"]}}}"#, "$.NSRGB.$bytes.$components[0]"),
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[{"$real":"NaN"}]}}}"#, "$.NSRGB.$bytes.$components[0]"),
            (##"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[1,0,0],"$hex":"#FE0000"}}}"##, "$.NSRGB.$bytes.$hex"),
            (##"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[2,0,0],"$hex":"#FF0000"}}}"##, "$.NSRGB.$bytes.$hex"),
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[1],"$nulTerminated":0}}}"#, "$.NSRGB.$bytes.$nulTerminated"),
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[1],"$nul":0}}}"#, "$.NSRGB.$bytes.$nul"),
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[1],"$space":1}}}"#, "$.NSRGB.$bytes.$space"),
            (#"{"$class":"S","NSRangeData":{"$data":{"$ranges":[[1]]}}}"#, "$.NSRangeData.$data.$ranges[0]"),
            (#"{"$class":"S","NSRangeData":{"$data":{"$ranges":[[1,-2]]}}}"#, "$.NSRangeData.$data.$ranges[0][1]"),
            (#"{"$class":"S","NSRangeData":{"$data":{"$ranges":[[1,2.5]]}}}"#, "$.NSRangeData.$data.$ranges[0][1]"),
            (#"{"$class":"S","NSRangeData":{"$data":{"$ranges":{"a":1}}}}"#, "$.NSRangeData.$data.$ranges"),
            (##"{"$class":"S","NSRangeData":{"$data":{"$ranges":[],"$hex":"#000000"}}}"##, "$.NSRangeData.$data.$hex"),
            (#"{"$class":"S","p":{"$data":{"$indexes":[1],"$runs":[]}}}"#, "$.p.$data.$runs"),
            (#"{"$class":"S","p":{"$data":{"$indexes":[{"$integer":"-1"}]}}}"#, "$.p.$data.$indexes[0]")
        ]
        for (json, path) in cases {
            XCTAssertThrowsError(try encode(json), json) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, json)
                XCTAssertEqual((error as? CodecError)?.jsonPath, path, "\(json): \(error)")
            }
        }
    }
}
