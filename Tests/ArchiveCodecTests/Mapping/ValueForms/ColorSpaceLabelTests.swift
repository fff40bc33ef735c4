import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `ColorSpaceLabel`: the `$space` beside a keyed colour's components, read from the colour's
/// `NSColorSpace` number or its custom space's profile, on a real colour list and on colours
/// built here (every model number, shared spaces and shared bytes, profiles with long or no
/// descriptions), and its check on encode.
final class ColorSpaceLabelTests: XCTestCase {
    private static func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// A version 2 display profile whose only tag is an ASCII description.
    private static func profile(_ description: String) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 128)
        header[8] = 2
        header[9] = 0x10
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let text = Array(description.utf8) + [0]
        let tag = Array("desc".utf8) + be32(0) + be32(text.count) + text
        var bytes = header + be32(1) + Array("desc".utf8) + be32(128 + 16) + be32(tag.count) + tag
        bytes.replaceSubrange(0..<4, with: be32(bytes.count))
        return bytes
    }

    private func readable(_ bytes: [UInt8]) throws -> Any {
        let archive = try KeyedArchive(parsing: bytes)
        let text = try archive.json(view: .readable, pretty: false, plan: archive.plan(view: .readable, pretty: false))
        return try JSONSerialization.jsonObject(with: Data(text))
    }

    /// The form inside `value`'s `$bytes` or `$data` wrapper.
    private func form(_ value: Any?) throws -> [String: Any] {
        let wrapper = try XCTUnwrap(value as? [String: Any])
        return try XCTUnwrap((wrapper["$data"] ?? wrapper["$bytes"]) as? [String: Any], "\(wrapper)")
    }

    private func colours(_ bytes: [UInt8]) throws -> [[String: Any]] {
        try XCTUnwrap((try readable(bytes) as? [String: Any])?["$array"] as? [[String: Any]])
    }

    private func encode(_ text: String) throws -> [UInt8] {
        try JSONDocument(parsing: Array(text.utf8)).archive(format: .binary)
    }

    // MARK: The rule

    func testModelNumbersNameTheSpaceOfTheirKeyOnly() {
        let table: [(ColorSpaceLabel.Key, Int64, String?)] = [
            (.rgb, 1, "calibratedRGB"), (.rgb, 2, "deviceRGB"), (.rgb, 3, nil), (.rgb, 0, nil), (.rgb, -1, nil),
            (.white, 3, "calibratedWhite"), (.white, 4, "deviceWhite"), (.white, 1, nil),
            (.cmyk, 5, "deviceCMYK"), (.cmyk, 2, nil), (.components, 1, nil), (.components, 10, nil)
        ]
        for (key, model, expected) in table {
            XCTAssertEqual(ColorSpaceLabel.modelLabel(key, model: model)?.description, expected, "\(key) \(model)")
        }
    }

    /// The decoder finds a colour key's label rule by its place among the colour's form keys.
    func testTheKeysAreInTheFormsOrder() {
        XCTAssertEqual(ColorSpaceLabel.Key.all.map(\.name.description), BytesForm.Owner.color.keys.map(\.key.description))
    }

    func testAProfileLabelIsItsShortDescription() {
        func label(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBufferPointer(ColorSpaceLabel.profileLabel) }
        XCTAssertEqual(label(Self.profile("Display P3")), "Display P3")
        XCTAssertEqual(label(Self.profile(String(repeating: "x", count: ColorSpaceLabel.maximumLength))), String(repeating: "x", count: 128))
        XCTAssertNil(label(Self.profile(String(repeating: "x", count: ColorSpaceLabel.maximumLength + 1))))
        var notAProfile = Self.profile("Display P3")
        notAProfile[36] = UInt8(ascii: "b")
        XCTAssertNil(label(notAProfile))
        XCTAssertNil(label(Array(Self.profile("Display P3").prefix(100))))
    }

    // MARK: Decoding

    /// The colour list's first colour: its own components in its sRGB profile's space, the
    /// fallback in calibrated RGB (its `NSColorSpace` 1).
    func testTheColourListSaysWhichSpaceEachHexIsIn() throws {
        let bytes = try Fixtures.publicFile("keyed-archive/ColorPaletteCodable_DarkMailTopBar.clr")
        let top = try XCTUnwrap((try readable(bytes) as? [String: Any])?["$top"] as? [String: Any])
        let list = try XCTUnwrap((top["NSColors"] as? [String: Any])?["$array"] as? [[String: Any]])
        XCTAssertGreaterThan(list.count, 1)
        for colour in list {
            let own = try form(colour["NSComponents"])
            XCTAssertEqual(own["$space"] as? String, "sRGB IEC61966-2.1")
            XCTAssertNotNil(own["$hex"])
            XCTAssertEqual(try form(colour["NSRGB"])["$space"] as? String, "calibratedRGB")
        }
        XCTAssertEqual(try form(list[0]["NSComponents"])["$hex"] as? String, "#FF1B19")
        XCTAssertEqual(try form(list[0]["NSRGB"])["$hex"] as? String, "#FB0015")
        try assertReadableLossless(bytes, "colour list")
    }

    func testEachModelKeyIsLabelledByItsNumber() throws {
        let cases: [(String, Int64, String, String?)] = [
            ("NSRGB", 1, "0.5 0.25 1\0", "calibratedRGB"), ("NSRGB", 2, "0.5 0.25 1\0", "deviceRGB"), ("NSRGB", 5, "0.5 0.25 1\0", nil),
            ("NSWhite", 3, "0.5\0", "calibratedWhite"), ("NSWhite", 4, "0.5 1\0", "deviceWhite"), ("NSWhite", 2, "0.5\0", nil),
            ("NSCMYK", 5, "0 0.5 1 0\0", "deviceCMYK"), ("NSCMYK", 1, "0 0.5 1 0\0", nil)
        ]
        for (key, model, text, expected) in cases {
            let bytes = try buildArchive([.object("NSColor", [("NSColorSpace", .int(model)), (key, .data(Array(text.utf8)))])])
            let colour = try XCTUnwrap(try readable(bytes) as? [String: Any])
            XCTAssertEqual(try form(colour[key])["$space"] as? String, expected, "\(key) \(model)")
            try assertReadableLossless(bytes, "\(key) \(model)")
        }
        // No number, or one that is not an integer: no label.
        for value: Value in [.real(1), .string("1")] {
            let bytes = try buildArchive([.object("NSColor", [("NSColorSpace", value), ("NSRGB", .data(Array("1 0 0\0".utf8)))])])
            XCTAssertNil(try form((try readable(bytes) as? [String: Any])?["NSRGB"])["$space"])
        }
        let bare = try buildArchive([.object("NSColor", [("NSRGB", .data(Array("1 0 0\0".utf8)))])])
        XCTAssertNil(try form((try readable(bare) as? [String: Any])?["NSRGB"])["$space"])
    }

    /// Two colours in one custom space (its profile read once): both labelled with its
    /// description; a space whose profile says nothing usable gives no label.
    func testCustomSpacesAreLabelledByTheirProfile() throws {
        func list(profile: Value) throws -> [UInt8] {
            try buildArchive([
                .object("NSMutableArray", [("NS.objects", .array([.uid(2), .uid(3)]))]),
                .object(
                    "NSColor",
                    [("NSColorSpace", .int(1)), ("NSComponents", .data(Array("1 0 0 1".utf8))), ("NSRGB", .data(Array("0.9 0 0\0".utf8))), ("NSCustomColorSpace", .uid(4))]),
                .object("NSColor", [("NSColorSpace", .int(2)), ("NSComponents", .data(Array("0 1 0 1".utf8))), ("NSCustomColorSpace", .uid(4))]),
                .object("NSColorSpace", [("NSID", .int(3)), ("NSICC", profile)]),
                .object("NSMutableData", [("NS.data", .data(Self.profile("Display P3")))])
            ])
        }
        for profile: Value in [.uid(5), .data(Self.profile("Display P3"))] {
            let bytes = try list(profile: profile)
            let read = try colours(bytes)
            XCTAssertEqual(try form(read[0]["NSComponents"])["$space"] as? String, "Display P3")
            XCTAssertEqual(try form(read[1]["NSComponents"])["$space"] as? String, "Display P3")
            XCTAssertEqual(try form(read[0]["NSRGB"])["$space"] as? String, "calibratedRGB")
            try assertReadableLossless(bytes, "custom space")
        }
        let long = String(repeating: "long ", count: 30)
        for profile: Value in [.data(Self.profile(long)), .data(Array(repeating: 7, count: 200)), .string("Display P3"), .int(1)] {
            let bytes = try list(profile: profile)
            XCTAssertNil(try form(try colours(bytes)[0]["NSComponents"])["$space"], "\(profile)")
            try assertReadableLossless(bytes, "\(profile)")
        }
    }

    /// A data entry two colours share keeps its label only where both give the same one: a
    /// form stands for its bytes wherever they are written.
    func testSharedBytesAreLabelledOnlyWhenTheColoursAgree() throws {
        for (second, expected) in [(Int64(1), "calibratedRGB"), (2, nil)] as [(Int64, String?)] {
            let bytes = try buildArchive([
                .object("NSMutableArray", [("NS.objects", .array([.uid(2), .uid(3)]))]),
                .object("NSColor", [("NSColorSpace", .int(1)), ("NSRGB", .uid(4))]),
                .object("NSColor", [("NSColorSpace", .int(second)), ("NSRGB", .uid(4))]),
                .data(Array("0.5 0.5 0.5\0".utf8))
            ])
            let text = String(decoding: try KeyedArchive(parsing: bytes).json(view: .readable, pretty: false), as: UTF8.self)
            if let expected {
                XCTAssertTrue(text.contains(#""$space":"\#(expected)""#), text)
            } else {
                XCTAssertFalse(text.contains("$space"), text)
            }
            try assertReadableLossless(bytes, "shared, second model \(second)")
        }
    }

    // MARK: Encoding

    /// A label is checked against the colour it stands in, also through a `$ref` and in a
    /// subclass whose chain names NSColor; a form without one is taken as it is.
    func testTheEncoderChecksALabelAgainstItsColour() throws {
        let refused: [(String, String)] = [
            (#"{"$class":"NSColor","NSColorSpace":2,"NSRGB":{"$bytes":{"$components":[1,0,0],"$space":"calibratedRGB"}}}"#, "$.NSRGB.$bytes.$space"),
            (#"{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[1,0,0],"$space":"calibratedRGB"}}}"#, "$.NSRGB.$bytes.$space"),
            (#"{"$class":"NSColor","NSColorSpace":1,"NSComponents":{"$bytes":{"$components":[1,0,0,1],"$space":"calibratedRGB","$nulTerminated":false}}}"#, "$.NSComponents.$bytes.$space"),
            (
                #"{"$class":"MyColor","$classes":["MyColor","NSColor","NSObject"],"NSColorSpace":3,"NSWhite":{"$bytes":{"$components":[0.5],"$space":"deviceWhite"}}}"#,
                "$.NSWhite.$bytes.$space"
            ),
            (
                #"{"$class":"NSMutableArray","$array":[{"$class":"NSColor","NSColorSpace":1,"NSRGB":{"$class":"NSMutableData","$id":1,"$data":{"$components":[1,0,0],"$space":"calibratedRGB"}}},{"$class":"NSColor","NSColorSpace":2,"NSRGB":{"$ref":1}}]}"#,
                "$.$array[0].NSRGB.$data.$space"
            )
        ]
        for (json, path) in refused {
            XCTAssertThrowsError(try encode(json), json) { error in
                XCTAssertEqual((error as? CodecError)?.jsonPath, path, "\(error)")
                XCTAssertTrue("\(error)".contains("does not match the colour"), "\(error)")
            }
        }
        let profile = Data(Self.profile("Display P3")).base64EncodedString()
        let taken = [
            #"{"$class":"NSColor","NSColorSpace":2,"NSRGB":{"$bytes":{"$components":[1,0,0],"$space":"deviceRGB"}}}"#,
            #"{"$class":"NSColor","NSColorSpace":2,"NSRGB":{"$bytes":{"$components":[1,0,0]}}}"#,
            #"{"$class":"NSMutableArray","$array":[{"$class":"NSColor","NSColorSpace":1,"NSComponents":{"$bytes":{"$components":[1,0,0,1],"$space":"Display P3","$nulTerminated":false}},"NSCustomColorSpace":{"$class":"NSColorSpace","$id":1,"NSICC":{"$class":"NSMutableData","$data":"\#(profile)"}}},{"$class":"NSColor","NSColorSpace":1,"NSComponents":{"$bytes":{"$components":[0,1,0,1],"$space":"Display P3","$nulTerminated":false}},"NSCustomColorSpace":{"$ref":1}}]}"#
        ]
        for json in taken {
            let bytes = try encode(json)
            try assertReadableLossless(bytes, json)
        }
        // A reference that names itself is refused, not followed round.
        XCTAssertThrowsError(
            try encode(
                #"{"$class":"NSMutableArray","$array":[{"$class":"NSColor","NSColorSpace":1,"NSRGB":{"$id":1,"$ref":1}},{"$class":"NSColor","NSColorSpace":1,"NSRGB":{"$bytes":{"$components":[1,0,0],"$space":"calibratedRGB"}}}]}"#
            ))
        // The label is read back where the decoder gives one.
        let read = try colours(try encode(taken[2]))
        XCTAssertEqual(try form(read[1]["NSComponents"])["$space"] as? String, "Display P3")
    }

    /// A class whose chain names another owner of forms before NSColor is not a colour, for the
    /// decoder and the encoder alike: a label its shared bytes show (a copy of a colour's) is
    /// not checked against it.
    func testOnlyWhatTheDecoderTakesForAColourIsChecked() throws {
        for shared in [#"{"$bytes":{"$components":[1,0,0]}}"#, #"{"$class":"NSMutableData","$id":1,"$data":{"$components":[1,0,0]}}"#] {
            let second = shared.contains("$id") ? #"{"$ref":1}"# : shared
            let json =
                #"{"$class":"NSMutableArray","$array":[{"$class":"NSColor","NSColorSpace":1,"NSRGB":"# + shared
                + #"},{"$class":"Weird","$classes":["Weird","NSIndexSet","NSColor","NSObject"],"NSColorSpace":2,"NSRGB":"# + second + "}]}"
            let bytes = try encode(json)
            let text = String(decoding: try KeyedArchive(parsing: bytes).json(view: .readable, pretty: false), as: UTF8.self)
            XCTAssertTrue(text.contains(#""$space":"calibratedRGB""#), text)
            try assertReadableLossless(bytes, shared)
        }
    }

    /// An `NSColorSpace` written as `{"$integer": "…"}` names the same space as the number.
    func testAWrappedSpaceNumberNamesItsSpace() throws {
        let bytes = try encode(#"{"$class":"NSColor","NSColorSpace":{"$integer":"2"},"NSRGB":{"$bytes":{"$components":[1,0,0],"$space":"deviceRGB"}}}"#)
        XCTAssertEqual(try form((try readable(bytes) as? [String: Any])?["NSRGB"])["$space"] as? String, "deviceRGB")
        XCTAssertThrowsError(try encode(#"{"$class":"NSColor","NSColorSpace":{"$integer":"2"},"NSRGB":{"$bytes":{"$components":[1,0,0],"$space":"calibratedRGB"}}}"#))
    }

    /// Many spaces that share one profile (and colours that share those spaces) are all
    /// labelled from it; the profile is read once (docs/benchmarks.md times the large case).
    func testSpacesSharingOneProfileAreLabelledFromIt() throws {
        var entries: [Entry] = [.object("NSMutableArray", [("NS.objects", .array((0..<40).map { .uid(2 + $0) }))])]
        for index in 0..<40 {
            let components = Array("1 \(index) 0 1".utf8)
            entries.append(.object("NSColor", [("NSColorSpace", .int(1)), ("NSComponents", .data(components)), ("NSCustomColorSpace", .uid(42 + index % 20))]))
        }
        for _ in 0..<20 { entries.append(.object("NSColorSpace", [("NSICC", .uid(62))])) }
        entries.append(.object("NSMutableData", [("NS.data", .data(Self.profile("Shared P3")))]))
        let bytes = try buildArchive(entries)
        for colour in try colours(bytes) { XCTAssertEqual(try form(colour["NSComponents"])["$space"] as? String, "Shared P3") }
        try assertReadableLossless(bytes, "shared profile")
    }

    /// The plain view shows a labelled colour's components as numbers, as before.
    func testThePlainViewShowsTheComponents() throws {
        let bytes = try buildArchive([.object("NSColor", [("NSColorSpace", .int(1)), ("NSRGB", .data(Array("1 0.5 0\0".utf8)))])])
        let plain = String(decoding: try Archive(parsing: bytes).plainJSON(pretty: false), as: UTF8.self)
        XCTAssertTrue(plain.contains(#""NSRGB":[1,0.5,0]"#) || plain.contains(#""NSRGB":[1.0,0.5,0.0]"#), plain)
    }
}
