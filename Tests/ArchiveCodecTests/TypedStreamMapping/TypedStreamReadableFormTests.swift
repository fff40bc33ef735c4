import TestSupport
import XCTest

@testable import ArchiveCodec

/// The readable forms of typedstream's common classes (docs/mapping.md, "typedstream"): their
/// shapes in real and hand-made streams, the same bytes back from each, the generic form kept
/// wherever an object is not exactly what a form rebuilds, and malformed forms refused where
/// they stand.
final class TypedStreamReadableFormTests: XCTestCase {
    typealias RoundTrip = TypedStreamJSONRoundTrip

    /// `bytes` decode to exactly `expected`, which encodes back to `bytes`, with the nesting
    /// the writer measures.
    private func assertReadable(_ bytes: [UInt8], _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let json = try RoundTrip.json(bytes)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), expected, file: file, line: line)
        XCTAssertEqual(try RoundTrip.encode(json), bytes, "bytes back", file: file, line: line)
        XCTAssertEqual(try Archive(parsing: bytes).depth(of: .readable), try JSONDocument(parsing: json).depth, "depth", file: file, line: line)
    }

    /// `bytes` decode to JSON holding every fragment and encode back to `bytes`.
    private func assertRoundTrip(_ bytes: [UInt8], holding fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let json = try RoundTrip.json(bytes)
        let text = String(decoding: json, as: UTF8.self)
        for fragment in fragments { XCTAssertTrue(text.contains(fragment), "\(fragment) in \(text)", file: file, line: line) }
        XCTAssertEqual(try RoundTrip.encode(json), bytes, "bytes back from \(text)", file: file, line: line)
        XCTAssertEqual(try Archive(parsing: bytes).depth(of: .readable), try JSONDocument(parsing: json).depth, "depth", file: file, line: line)
    }

    // MARK: Real streams

    func testEveryRealStreamComesBackByteForByteAndKeepsNoCommonClassGeneric() throws {
        for name in Fixtures.typedStreamNames() {
            let bytes = try Fixtures.typedStream(name)
            let json = try RoundTrip.json(bytes)
            XCTAssertEqual(try RoundTrip.encode(json), bytes, name)
            XCTAssertEqual(try RoundTrip.encode(RoundTrip.json(bytes, pretty: true)), bytes, "\(name), indented")
            // Every object of these classes in the fixtures is exactly what its form rebuilds.
            let text = String(decoding: json, as: UTF8.self)
            for readable in ReadableClass.allCases {
                XCTAssertFalse(text.contains("\"$classes\":[[\"\(readable.name)\""), "\(readable.name) left generic in \(name)")
            }
        }
    }

    func testAttributedBodiesShowTheirText() throws {
        try assertRoundTrip(
            Fixtures.typedStream("imessage-exporter_attributedBody-URL.bin"),
            holding: [
                #"{"@":{"$class":"NSMutableAttributedString","$string":{"$class":"NSMutableString","$string":"https://github.com/ReagentX/Logria"},"#,
                #""$runs":[{"$length":34,"$attributes":{"__kIMLinkAttributeName":{"$class":"NSURL","#,
                #""__kIMMessagePartAttributeName":0,"__kIMBaseWritingDirectionAttributeName":-1,"__kIMDataDetectedAttributeName":{"$data":"YnBsaXN0MDDUAQID"#
            ])
        try assertRoundTrip(
            Fixtures.typedStream("plaso_imessage_chat.db-msg6-attributedBody-curly-quotes.bin"),
            holding: [
                #""$string":"It does have it’s own ‘office’ software, but you can also install Microsoft Office, which I have a copy of."},"$runs":[{"$length":107,"#
            ])
        // Runs that share attributes name the run that brought them.
        try assertRoundTrip(
            Fixtures.typedStream("plaso_imessage_chat.db-msg2-attributedBody-calendar-event.bin"),
            holding: [#""$attributesOf":0}"#, #"{"$class":"NSMutableData","$data":"YnBsaXN0"#])
        // Keys shared between attribute dictionaries keep their identity: [key, value] pairs.
        try assertRoundTrip(
            Fixtures.typedStream("imessage-exporter_attributedBody-MultiPart.bin"),
            holding: [
                #"{"$length":1,"$attributes":{"$dict":[[{"$id":3,"$string":"__kIMFileTransferGUIDAttributeName"},"at_0_F0668F79-20C2-49C9-A87F-1B007ABB0CED"]"#,
                #"[{"$ref":5},{"$number":2,"$type":"i"}]"#
            ])
    }

    func testColoursValuesAndURLsOfRealStreams() throws {
        try assertReadable(
            Fixtures.typedStream("mac-setup_nvALT-SearchTermHighlightColor.bin"),
            ##"{"$typedstream":[{"@":{"$class":"NSColor","$space":"calibratedRGB","$components":[0.800000011920929,1.0,0.800000011920929,1.0],"$hex":"#CCFFCC"}}]}"##)
        try assertRoundTrip(
            Fixtures.typedStream("python-typedstream_Grapher-Empty2D-macOS13.gcx"),
            holding: [
                #"{"$class":"NSValue","$type":"{CGSize=dd}","$value":[826.0,615.0]}"#,
                #"{"$class":"NSColor","$id":434,"$named":["System","textColor",{"$class":"NSColor","$id":437,"$space":"calibratedWhite","$components":[0.0,1.0]}]}"#
            ])
        try assertRoundTrip(
            Fixtures.typedStream("imessage-exporter_attributedBody-URL.bin"),
            holding: [#""__kIMLinkAttributeName":{"$class":"NSURL","$relative":"https://github.com/ReagentX/Logria"}"#])
    }

    /// An RGB colour's hex beside its components (as `NSRGB`'s in keyed archives), from the
    /// floats the stream holds; other spaces have none. On encode it only reads them: either
    /// letter case or none at all gives the same bytes, a hex that is not theirs is refused.
    func testRGBColoursHaveTheirHex() throws {
        let json = String(decoding: try RoundTrip.json(Fixtures.typedStream("ColorPaletteCodable_apple-ii.clr")), as: UTF8.self)
        XCTAssertTrue(json.contains(##"{"$class":"NSColor","$space":"calibratedRGB","$components":[0.4266679883003235,0.42665520310401917,0.4266624450683594,1.0],"$hex":"#6D6D6D"}"##), json)
        let grapher = String(decoding: try RoundTrip.json(Fixtures.typedStream("python-typedstream_Grapher-Empty2D-macOS13.gcx")), as: UTF8.self)
        XCTAssertTrue(grapher.contains(#""$space":"calibratedWhite","$components":[0.0,1.0]}"#), "a white colour has no hex")
        let green = #"{"$typedstream":[{"@":{"$class":"NSColor","$space":"deviceRGB","$components":[0.800000011920929,1.0,0.20000000298023224,0.5]HEX}}]}"#
        let bytes = try RoundTrip.encode(Array(green.replacingOccurrences(of: "HEX", with: "").utf8))
        XCTAssertTrue(String(decoding: try RoundTrip.json(bytes), as: UTF8.self).contains(##""$hex":"#CCFF3380""##))
        for hex in [##","$hex":"#CCFF3380""##, ##","$hex":"#ccff3380""##] {
            XCTAssertEqual(try RoundTrip.encode(Array(green.replacingOccurrences(of: "HEX", with: hex).utf8)), bytes, hex)
        }
        let refused: [(String, String)] = [
            (green.replacingOccurrences(of: "HEX", with: ##","$hex":"#CCFF33""##), ##"they say "#CCFF3380""##),
            (green.replacingOccurrences(of: "HEX", with: #","$hex":7"#), "$hex disagrees"),
            (##"{"$typedstream":[{"@":{"$class":"NSColor","$space":"calibratedRGB","$components":[2.0,0,0,1],"$hex":"#FF0000"}}]}"##, "no hex"),
            (##"{"$typedstream":[{"@":{"$class":"NSColor","$space":"calibratedWhite","$components":[0.5,1],"$hex":"#808080"}}]}"##, "RGB space's components only"),
            (##"{"$typedstream":[{"@":{"$string":"x","$hex":"#808080"}}]}"##, "$hex goes with $components only")
        ]
        for (document, words) in refused {
            XCTAssertThrowsError(try RoundTrip.encode(Array(document.utf8)), document) { error in
                guard let error = error as? CodecError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.kind, .invalidDocument, document)
                XCTAssertTrue(error.message.contains(words), "\(document): \(error.message)")
                XCTAssertTrue(error.jsonPath?.hasSuffix("$hex") ?? false, "\(document): at \(error.jsonPath ?? "nowhere")")
            }
        }
    }

    func testFontsOfBothVersions() throws {
        try assertReadable(
            Fixtures.typedStream("mac-setup_nvALT-NoteBodyFont.bin"),
            #"{"$typedstream":[{"@":{"$class":"NSFont","$version":30,"$name":"InconsolataLGC","$size":13.0,"$flags":[0,1,0,0]}}]}"#)
        try assertRoundTrip(
            Fixtures.typedStream("thecheat_NetTraffic.nib-objects.nib"),
            holding: [#"{"$class":"NSFont","$id":9,"$version":21,"$name":"LucidaGrande","$size":11.0,"$flags":[0,1,0,12]}"#])
        // A name list of another kind (type 5, NeXTSTEP's 8-bit text), or of the other byte
        // order than the version's, keeps the generic form.
        let other = [5, 0, 0, 0, 2, 0, 0, 0, 0x41, 0x42, 0, 0] as [UInt8]
        let swapped = ReadableFont.nameList("AB", version: 21)
        for list in [other, swapped] {
            let bytes = try stream { b, c in
                try object(&b, try c.of(&b, .fontVersion30)) { b in
                    try group(&b, "i") { try $0.integer(Int64(list.count)) }
                    try group(&b, "[\(list.count)c]") { try $0.byteArray(list) }
                    try group(&b, "f") { try $0.float(12) }
                    for _ in 0..<ReadableFont.flagCount { try group(&b, "c") { try $0.integer(0) } }
                }
            }
            try assertRoundTrip(bytes, holding: [#""$classes":[["NSFont",30]"#])
        }
        XCTAssertEqual(ReadableFont.name(in: ReadableFont.nameList("Ünïcødé 𝖍", version: 30)[...], version: 30), "Ünïcødé 𝖍")
    }

    func testFoundationValuesOfUetchysSamples() throws {
        for (name, expected) in [
            ("NSArrayWithMixedType", #"{"$typedstream":[{"@":["abc",123,0.5,true]}]}"#),
            ("NSArrayWithNestedArray", #"{"$typedstream":[{"@":["first",["second",["third",3],2],1]}]}"#),
            ("NSDictionary", #"{"$typedstream":[{"@":{"key":123}}]}"#),
            ("NSNumberWithFloat", #"{"$typedstream":[{"@":0.1358}]}"#),
            ("NSNumberWithULongLong", #"{"$typedstream":[{"@":{"$number":18446744073709551613,"$type":"Q"}}]}"#),
            ("NSStringNil", #"{"$typedstream":[{"@":""}]}"#)
        ] {
            try assertReadable(Fixtures.typedStream("uetchy-typedstream_NSArchiver-\(name).bin"), expected)
        }
    }

    // MARK: Hand-made streams

    /// A stream of one top-level group of type string `types`, whose values `body` places.
    private func stream(_ types: String = "@", _ body: (inout TypedStreamBuilder, inout Chains) throws -> Void) throws -> [UInt8] {
        var builder = TypedStreamBuilder(byteOrder: .little)
        var chains = Chains()
        try builder.beginGroup(types)
        try body(&builder, &chains)
        try builder.end()
        return try TypedStreamWriter.write(builder.finish())
    }

    private typealias Chains = TypedStreamSharedDefinitions

    /// An object of `classIndex` whose groups `groups` places, at the `@` slot.
    @discardableResult
    private func object(_ builder: inout TypedStreamBuilder, _ classIndex: Int, _ groups: (inout TypedStreamBuilder) throws -> Void) throws -> Int {
        let index = try builder.beginObject(class: classIndex)
        try groups(&builder)
        try builder.endObject()
        return index
    }

    /// A group of type string `types` whose values `values` places.
    private func group(_ builder: inout TypedStreamBuilder, _ types: String, _ values: (inout TypedStreamBuilder) throws -> Void) throws {
        try builder.beginGroup(types)
        try values(&builder)
        try builder.end()
    }

    /// An NSString (or a chain's object) of one `+` group.
    @discardableResult
    private func string(_ builder: inout TypedStreamBuilder, _ chains: inout Chains, _ text: [UInt8], chain: ReadableClass = .string) throws -> Int {
        try object(&builder, try chains.of(&builder, chain)) { b in try group(&b, "+") { try $0.byteString(text) } }
    }

    /// An NSNumber of `type` whose value `value` places.
    private func number(_ builder: inout TypedStreamBuilder, _ chains: inout Chains, _ type: String, _ value: (inout TypedStreamBuilder) throws -> Void) throws {
        try object(&builder, try chains.of(&builder, .number)) { b in
            try group(&b, "*") { b in try chains.cString(&b, type) }
            try group(&b, type, value)
        }
    }

    func testStringsSharedMutableAndNot() throws {
        try assertReadable(
            stream("@@@") { b, c in
                let shared = try string(&b, &c, Array("shared".utf8))
                try b.object(shared)
                try string(&b, &c, Array("$text".utf8), chain: .mutableString)
            }, #"{"$typedstream":[{"@@@":[{"$id":0,"$string":"shared"},{"$ref":0},{"$class":"NSMutableString","$string":"$text"}]}]}"#)
    }

    func testStringsThatAreNotExactlyTheFormStayGeneric() throws {
        // Another version, a nil or non-UTF-8 string, an extra group, another superclass.
        let cases: [(inout TypedStreamBuilder, inout Chains) throws -> Void] = [
            { b, c in try self.object(&b, try c.of(&b, [("NSString", 2), ("NSObject", 0)])) { b in try self.group(&b, "+") { try $0.byteString([0x61]) } } },
            { b, c in try self.object(&b, try c.of(&b, .string)) { b in try self.group(&b, "+") { try $0.byteString(nil) } } },
            { b, c in try self.string(&b, &c, [0xFF]) },
            { b, c in
                try self.object(&b, try c.of(&b, .string)) { b in
                    try self.group(&b, "+") { try $0.byteString([0x61]) }
                    try self.group(&b, "i") { try $0.integer(1) }
                }
            },
            { b, c in try self.object(&b, try c.of(&b, [("NSString", 1), ("NSProxy", 0)])) { b in try self.group(&b, "+") { try $0.byteString([0x61]) } } }
        ]
        for (index, build) in cases.enumerated() {
            let bytes = try stream { b, c in try build(&b, &c) }
            try assertRoundTrip(bytes, holding: [#""$classes":[["NSString","#])
            XCTAssertFalse(try RoundTrip.text(bytes).contains("$string"), "case \(index)")
        }
    }

    func testNumbersKeepTheirType() throws {
        let bytes = try stream("@@@@@@@@@") { b, c in
            try number(&b, &c, "q") { try $0.integer(-5) }
            try number(&b, &c, "d") { try $0.double(2) }
            try number(&b, &c, "c") { try $0.integer(0) }
            try number(&b, &c, "c") { try $0.integer(2) }
            try number(&b, &c, "i") { try $0.integer(70000) }
            try number(&b, &c, "f") { try $0.float(0.5) }
            try number(&b, &c, "d") { try $0.double(.nan) }
            try number(&b, &c, "B") { try $0.unsigned(1) }
            try number(&b, &c, "q") { try $0.integer(7) }
        }
        try assertReadable(
            bytes,
            #"{"$typedstream":[{"@@@@@@@@@":[-5,2.0,false,{"$number":2,"$type":"c"},{"$number":70000,"$type":"i"},{"$number":0.5,"$type":"f"},{"$number":{"$real":"NaN"}},{"$number":1,"$type":"B"},7]}]}"#
        )
        try assertReadable(
            stream("@@") { b, c in
                try number(&b, &c, "c") { try $0.integer(1) }
                try b.object(0)
            }, #"{"$typedstream":[{"@@":[{"$id":0,"$number":true},{"$ref":0}]}]}"#)
    }

    /// A number spelled otherwise than Apple's writer spells it reads as the same form (the
    /// generic form would not keep the spelling either): the stream its JSON encodes to reads
    /// as the same JSON, Apple's spelling in its bytes.
    func testNumbersSpelledOtherwiseReadAsTheSameForm() throws {
        let bytes = try stream { b, c in
            try object(&b, try c.of(&b, .array)) { b in
                try group(&b, "i") { try $0.integer(1, form: .int32) }
                try group(&b, "@") { b in try number(&b, &c, "q") { try $0.integer(5, form: .int64) } }
            }
        }
        let json = try RoundTrip.json(bytes)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"$typedstream":[{"@":[5]}]}"#)
        let encoded = try RoundTrip.encode(json)
        XCTAssertLessThan(encoded.count, bytes.count)
        XCTAssertEqual(try RoundTrip.json(encoded), json)
        XCTAssertNil(try Archive(parsing: bytes).difference(from: Archive(parsing: encoded)))
    }

    func testNumbersThatAreNotExactlyTheFormStayGeneric() throws {
        // The value's type is not the one the `*` names; the `*` names no scalar.
        for (named, type) in [("q", "i"), ("{s=i}", "{s=i}")] {
            let bytes = try stream { b, c in
                try object(&b, try c.of(&b, .number)) { b in
                    try group(&b, "*") { b in try c.cString(&b, named) }
                    try group(&b, type) { b in
                        if type == "i" { return try b.integer(1) }
                        try b.beginComposite()
                        try b.integer(1)
                        try b.end()
                    }
                }
            }
            try assertRoundTrip(bytes, holding: [#""$classes":[["NSNumber",0]"#])
        }
    }

    func testArraysAndDictionaries() throws {
        let bytes = try stream("@@@@") { b, c in
            // A mutable array holding itself: a cycle through its $id.
            let array = try b.beginObject(class: try c.of(&b, .mutableArray))
            try group(&b, "i") { try $0.integer(2) }
            try group(&b, "@") { try $0.object(array) }
            try group(&b, "@") { try $0.object(nil) }
            try b.endObject()
            // String keys, one beginning with `$`.
            try object(&b, try c.of(&b, .mutableDictionary)) { b in
                try group(&b, "i") { try $0.integer(1) }
                try group(&b, "@") { b in try string(&b, &c, Array("$odd".utf8)) }
                try group(&b, "@") { b in try number(&b, &c, "q") { try $0.integer(1) } }
            }
            // A number key.
            try object(&b, try c.of(&b, .dictionary)) { b in
                try group(&b, "i") { try $0.integer(1) }
                try group(&b, "@") { b in try number(&b, &c, "q") { try $0.integer(40400) } }
                try group(&b, "@") { b in try string(&b, &c, Array("v".utf8)) }
            }
            // Two keys of the same text: pairs, not one JSON key twice.
            try object(&b, try c.of(&b, .dictionary)) { b in
                try group(&b, "i") { try $0.integer(2) }
                for value in [1, 2] {
                    try group(&b, "@") { b in try string(&b, &c, Array("k".utf8)) }
                    try group(&b, "@") { b in try number(&b, &c, "q") { try $0.integer(Int64(value)) } }
                }
            }
        }
        try assertReadable(
            bytes,
            #"{"$typedstream":[{"@@@@":[{"$class":"NSMutableArray","$id":0,"$array":[{"$ref":0},null]},{"$class":"NSMutableDictionary","$$odd":1},{"$dict":[[40400,"v"]]},{"$dict":[["k",1],["k",2]]}]}]}"#
        )
    }

    /// Dictionaries of enough keys that the cheap check cannot rule repeats out: distinct keys
    /// are an object's members, one repeat (first and last key, or two in the middle) makes pairs.
    func testLargeDictionariesAreObjectsOnlyWithoutARepeatedKey() throws {
        let distinct = (0..<300).map { "key \($0)" }
        for (keys, isObject) in [(distinct, true), (distinct + ["key 0"], false), (distinct[..<150] + ["key 7"] + distinct[150...], false)] {
            let bytes = try stream { b, c in
                try object(&b, try c.of(&b, .dictionary)) { b in
                    try group(&b, "i") { try $0.integer(Int64(keys.count)) }
                    for (index, key) in keys.enumerated() {
                        try group(&b, "@") { b in try string(&b, &c, Array(key.utf8)) }
                        try group(&b, "@") { b in try number(&b, &c, "q") { try $0.integer(Int64(index)) } }
                    }
                }
            }
            let json = String(decoding: try RoundTrip.json(bytes), as: UTF8.self)
            XCTAssertEqual(json.contains(#""$dict":[["key 0",0],"#), !isObject, "\(keys.count) keys")
            XCTAssertEqual(json.contains(#""key 0":0,"key 1":1,"#), isObject, "\(keys.count) keys")
            XCTAssertEqual(try RoundTrip.encode(Array(json.utf8)), bytes)
        }
    }

    func testCollectionsWhoseCountsDisagreeStayGeneric() throws {
        for readable in [ReadableClass.array, .dictionary] {
            let bytes = try stream { b, c in
                try object(&b, try c.of(&b, readable)) { b in
                    try group(&b, "i") { try $0.integer(2) }
                    try group(&b, "@") { try $0.object(nil) }
                }
            }
            try assertRoundTrip(bytes, holding: [#""$classes":[["\#(readable.name)",0]"#])
        }
    }

    func testAttributedStringsAndData() throws {
        let bytes = try stream("@@@") { b, c in
            try object(&b, try c.of(&b, .attributedString)) { b in
                try group(&b, "@") { b in try string(&b, &c, Array("Hello world".utf8)) }
                try group(&b, "iI") {
                    try $0.integer(1)
                    try $0.unsigned(6)
                }
                try group(&b, "@") { try $0.object(nil) }
                try group(&b, "iI") {
                    try $0.integer(2)
                    try $0.unsigned(3)
                }
                try group(&b, "@") { b in
                    try object(&b, try c.of(&b, .data)) { b in
                        try group(&b, "i") { try $0.integer(3) }
                        try group(&b, "[3c]") { try $0.byteArray([1, 2, 3]) }
                    }
                }
                try group(&b, "iI") {
                    try $0.integer(1)
                    try $0.unsigned(2)
                }
            }
            try object(&b, try c.of(&b, .mutableAttributedString)) { b in try group(&b, "@") { try $0.object(nil) } }
            try object(&b, try c.of(&b, .mutableData)) { b in
                try group(&b, "i") { try $0.integer(0) }
                try group(&b, "[0c]") { try $0.byteArray([]) }
            }
        }
        try assertReadable(
            bytes,
            #"{"$typedstream":[{"@@@":[{"$class":"NSAttributedString","$string":"Hello world","$runs":[{"$length":6,"$attributes":null},{"$length":3,"$attributes":{"$data":"AQID"}},{"$length":2,"$attributesOf":0}]},{"$class":"NSMutableAttributedString","$string":null,"$runs":[]},{"$class":"NSMutableData","$data":""}]}]}"#
        )
    }

    func testAttributedStringsNumberedOtherwiseStayGeneric() throws {
        // Attributes numbered 2 first; attributes missing after a new number; a number reused
        // with attributes again.
        for numbers in [[2], [1, 1]] {
            let bytes = try stream { b, c in
                try object(&b, try c.of(&b, .attributedString)) { b in
                    try group(&b, "@") { b in try string(&b, &c, Array("ab".utf8)) }
                    for number in numbers {
                        try group(&b, "iI") {
                            try $0.integer(Int64(number))
                            try $0.unsigned(1)
                        }
                        try group(&b, "@") { try $0.object(nil) }
                    }
                }
            }
            try assertRoundTrip(bytes, holding: [#""$classes":[["NSAttributedString",0]"#, #""$groups":[{"@":"ab"}"#])
        }
        let unfollowed = try stream { b, c in
            try object(&b, try c.of(&b, .attributedString)) { b in
                try group(&b, "@") { b in try string(&b, &c, Array("ab".utf8)) }
                try group(&b, "iI") {
                    try $0.integer(1)
                    try $0.unsigned(2)
                }
            }
        }
        try assertRoundTrip(unfollowed, holding: [#""$classes":[["NSAttributedString",0]"#])
    }

    func testDataWhoseCountDisagreesStaysGeneric() throws {
        let bytes = try stream { b, c in
            try object(&b, try c.of(&b, .data)) { b in
                try group(&b, "i") { try $0.integer(2) }
                try group(&b, "[3c]") { try $0.byteArray([1, 2, 3]) }
            }
        }
        try assertRoundTrip(bytes, holding: [#""$classes":[["NSData",0]"#])
    }

    func testDatesSetsURLsColoursAndValues() throws {
        let bytes = try stream("@@@@@@@@") { b, c in
            for seconds in [0.5, .nan] {
                try object(&b, try c.of(&b, .date)) { b in try group(&b, "d") { try $0.double(seconds) } }
            }
            for readable in [ReadableClass.set, .mutableSet] {
                try object(&b, try c.of(&b, readable)) { b in
                    try group(&b, "I") { try $0.unsigned(1) }
                    try group(&b, "@") { b in try string(&b, &c, Array("x".utf8)) }
                }
            }
            let base = try object(&b, try c.of(&b, .url)) { b in
                try group(&b, "c") { try $0.integer(0) }
                try group(&b, "@") { b in try string(&b, &c, Array("https://example.com/".utf8)) }
            }
            try object(&b, try c.of(&b, .url)) { b in
                try group(&b, "c") { try $0.integer(1) }
                try group(&b, "@") { try $0.object(base) }
                try group(&b, "@") { b in try string(&b, &c, Array("a/b".utf8)) }
            }
            try object(&b, try c.of(&b, .color)) { b in
                try group(&b, "c") { try $0.integer(5) }
                try group(&b, "fffff") { b in for component in [0, 0.5, 1, 0.25, 1] as [Float] { try b.float(component) } }
            }
            try object(&b, try c.of(&b, .value)) { b in
                try group(&b, "*") { b in try c.cString(&b, "{_NSRange=QQ}") }
                try group(&b, "{_NSRange=QQ}") { b in
                    try b.beginComposite()
                    try b.unsigned(3)
                    try b.unsigned(4)
                    try b.end()
                }
            }
        }
        try assertReadable(
            bytes,
            #"{"$typedstream":[{"@@@@@@@@":[{"$date":"2001-01-01T00:00:00.500Z"},{"$date":{"$real":"NaN"}},{"$set":["x"]},{"$class":"NSMutableSet","$set":["x"]},{"$class":"NSURL","$id":6,"$relative":"https://example.com/"},{"$class":"NSURL","$base":{"$ref":6},"$relative":"a/b"},{"$class":"NSColor","$space":"deviceCMYK","$components":[0.0,0.5,1.0,0.25,1.0]},{"$class":"NSValue","$type":"{_NSRange=QQ}","$value":[3,4]}]}]}"#
        )
    }

    func testColoursURLsAndValuesThatAreNotExactlyTheFormStayGeneric() throws {
        let cases: [(ReadableClass, (inout TypedStreamBuilder) throws -> Void)] = [
            // A space without a readable form; components of another type than the space's; a
            // named colour of two objects.
            (.color, { b in try self.group(&b, "c") { try $0.integer(7) } }),
            (
                .color,
                { b in
                    try self.group(&b, "c") { try $0.integer(6) }
                    try self.group(&b, "@@") {
                        try $0.object(nil)
                        try $0.object(nil)
                    }
                }
            ),
            (
                .color,
                { b in
                    try self.group(&b, "c") { try $0.integer(3) }
                    try self.group(&b, "ffff") { b in for _ in 0..<4 { try b.float(1) } }
                }
            ),
            // A relative flag other than 0 or 1; a flag of 1 without a base.
            (
                .url,
                { b in
                    try self.group(&b, "c") { try $0.integer(2) }
                    try self.group(&b, "@") { try $0.object(nil) }
                }
            ),
            (
                .url,
                { b in
                    try self.group(&b, "c") { try $0.integer(1) }
                    try self.group(&b, "@") { try $0.object(nil) }
                }
            ),
            // A value of a type string of two types.
            (
                .value,
                { b in
                    try self.group(&b, "*") { try $0.cString(Array("ii".utf8)) }
                    try self.group(&b, "ii") {
                        try $0.integer(1)
                        try $0.integer(2)
                    }
                }
            )
        ]
        for (readable, groups) in cases {
            let bytes = try stream { b, c in try object(&b, try c.of(&b, readable), groups) }
            try assertRoundTrip(bytes, holding: [#""$classes":[["\#(readable.name)",0]"#])
        }
    }

    // MARK: JSON written by hand

    func testReadableFormsWrittenByHandEncodeAndReadBackTheSame() throws {
        let document =
            #"{"$typedstream":[{"@":{"a":[1,2.5,true,"s",{"$data":"AA=="},{"$class":"NSMutableArray","$array":[]},{"$number":3,"$type":"S"},{"$class":"NSMutableString","$id":9,"$string":"m"},{"$ref":9}],"$$b":{}}}]}"#
        let bytes = try RoundTrip.encode(Array(document.utf8))
        let again = try RoundTrip.text(bytes)
        XCTAssertEqual(again, document.replacingOccurrences(of: "\"$id\":9", with: "\"$id\":10").replacingOccurrences(of: "{\"$ref\":9}", with: "{\"$ref\":10}"))
        XCTAssertEqual(try RoundTrip.encode(Array(again.utf8)), bytes)
    }

    func testGenericAndReadableFormsOfOneObjectAreTheSameBytes() throws {
        let generic =
            #"{"$typedstream":[{"@":{"$class":"NSArray","$classes":[["NSArray",0],["NSObject",0]],"$groups":[{"i":1},{"@":{"$class":"NSString","$classes":[["NSString",1],["NSObject",0]],"$groups":[{"+":"x"}]}}]}}]}"#
        XCTAssertEqual(try RoundTrip.encode(Array(generic.utf8)), try RoundTrip.encode(Array(#"{"$typedstream":[{"@":["x"]}]}"#.utf8)))
    }

    func testMalformedReadableFormsAreRefusedWhereTheyStand() throws {
        for (value, needle, path) in [
            (#"{"$string":5}"#, "$string is text", "$string"),
            (#"{"$class":"NSFoo","$string":"x"}"#, "NSString or NSMutableString", "$class"),
            (#"{"$number":"x"}"#, "NSNumber's value", "$number"),
            (#"{"$number":1,"$type":"x"}"#, "$type is one of", "$type"),
            (#"{"$number":1.5,"$type":"i"}"#, "integer", "$number"),
            (#"{"$number":300,"$type":"c"}"#, "300", "$number"),
            (#"{"$number":true,"$type":"d"}"#, "true or false", "$number"),
            (#"{"$type":"i"}"#, "$type goes with $number", "$type"),
            (#"{"$array":{}}"#, "$array is an array", "$array"),
            (#"{"$dict":[[1]]}"#, "[key, value]", "$dict"),
            (#"{"$data":"***"}"#, "base64", "$data"),
            (#"{"$string":"x","$array":[]}"#, "one content", "[\"@\"]"),
            (#"{"$bogus":1}"#, "unknown key", "$bogus"),
            (#"{"$id":"one","$string":"x"}"#, "$id is an integer", "$id"),
            (#"{"$class":"NSAttributedString","$string":"x","$runs":[{"$length":1,"$attributesOf":0}]}"#, "$attributesOf is the index", "$attributesOf"),
            (#"{"$class":"NSAttributedString","$string":"x","$runs":[{"$length":-1,"$attributes":{}}]}"#, "not negative", "$length"),
            (#"{"$class":"NSAttributedString","$string":"x","$runs":[{"$length":1}]}"#, "a run is", "$runs"),
            (#"{"$class":"NSAttributedString","$string":"x","$runs":[{"$length":1,"$attributes":{},"$more":1}]}"#, "a run has", "$more"),
            (#"{"$class":"NSString","$string":"x","$runs":[]}"#, "NSAttributedString or NSMutableAttributedString", "$class"),
            (#"[{"$id":1,"$string":"a"},{"$id":1,"$string":"b"}]"#, "no other object has", "$id")
        ] {
            let document = #"{"$typedstream":[{"@":\#(value)}]}"#
            XCTAssertThrowsError(try RoundTrip.encode(Array(document.utf8)), document) { error in
                guard let error = error as? CodecError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.kind, .invalidDocument, document)
                XCTAssertTrue(needle.isEmpty || error.message.contains(needle), "\(document): \(error.message)")
                XCTAssertTrue(error.jsonPath?.contains(path) ?? false, "\(document): at \(error.jsonPath ?? "nowhere")")
            }
        }
    }

    /// Arrays nested 100,000 deep are written and encoded without recursion, their nesting
    /// measured right.
    func testDeeplyNestedArrays() throws {
        let levels = 100_000
        let bytes = try stream { b, c in
            let array = try c.of(&b, .array)
            for _ in 0..<levels {
                _ = try b.beginObject(class: array)
                try group(&b, "i") { try $0.integer(1) }
                try b.beginGroup("@")
            }
            try b.object(nil)
            for _ in 0..<levels {
                try b.end()
                try b.endObject()
            }
        }
        let json = try RoundTrip.json(bytes)
        XCTAssertEqual(try Archive(parsing: bytes).depth(of: .readable), levels + 3)
        XCTAssertEqual(try JSONDocument(parsing: json).depth, levels + 3)
        XCTAssertEqual(try RoundTrip.encode(json), bytes)
    }
}
