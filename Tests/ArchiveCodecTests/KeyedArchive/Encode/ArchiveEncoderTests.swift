import XCTest

@testable import ArchiveCodec

/// `ArchiveEncoder` concern by concern, driven through `JSONDocument.archive(format:)`: each
/// document is encoded (binary and XML: the two builders share the encoder), decoded back with
/// the readable view and compared with what went in, and where the layout matters the archive
/// itself is compared in the raw view. Then every refusal, with its kind, place and path.
/// (`EncodeErrorPathTests` holds the paths of errors met while filling deferred objects.)
final class ArchiveEncoderTests: XCTestCase {
    // MARK: Helpers

    private func encode(_ json: String, format: PlistFormat = .binary) throws -> [UInt8] {
        try JSONDocument(parsing: Array(json.utf8)).archive(format: format)
    }

    private func readable(_ archive: [UInt8], exactIntegers: Bool = false) throws -> String {
        let decoded = try KeyedArchive(parsing: archive)
        let plan = try decoded.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: exactIntegers))
        return String(decoding: try decoded.json(view: .readable, pretty: false, plan: plan), as: UTF8.self)
    }

    private func raw(_ archive: [UInt8]) throws -> String {
        String(decoding: try KeyedArchive(parsing: archive).json(view: .raw, pretty: false), as: UTF8.self)
    }

    /// `json` encodes in each of `formats` and decodes back to `expected` (by default, itself).
    private func assertDecodes(
        _ json: String, to expected: String? = nil, exactIntegers: Bool = false, formats: [PlistFormat] = [.binary, .xml],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for format in formats {
            let back = try readable(encode(json, format: format), exactIntegers: exactIntegers)
            XCTAssertEqual(back, expected ?? json, "\(format)", file: file, line: line)
        }
    }

    /// The archive `json` encodes to, in the raw view (the same from binary and from XML).
    private func assertRaw(_ json: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try raw(encode(json)), expected, "binary", file: file, line: line)
        XCTAssertEqual(try raw(encode(json, format: .xml)), expected, "XML", file: file, line: line)
    }

    /// The raw view of an archive with the usual envelope and `root` as its only top key.
    private func rooted(_ objects: String, root: Int = 1) -> String {
        #"{"$version":100000,"$archiver":"NSKeyedArchiver","$top":{"root":{"$uid":\#(root)}},"$objects":["$null"\#(objects.isEmpty ? "" : ",")\#(objects)]}"#
    }

    private func refusal(_ json: String, format: PlistFormat = .binary) -> CodecError? {
        do throws(CodecError) {
            _ = try JSONDocument(parsing: Array(json.utf8)).archive(format: format)
            return nil
        } catch {
            return error
        }
    }

    /// `json` is refused as `invalidDocument` at byte `offset` and JSON path `path`, with a
    /// message that holds `fragment`; binary and XML refuse it alike.
    private func assertRefused(
        _ json: String, path: String?, offset: Int, saying fragment: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let error = refusal(json) else { return XCTFail("accepted: \(json)", file: file, line: line) }
        XCTAssertEqual(error.kind, .invalidDocument, "\(json): \(error)", file: file, line: line)
        if let path { XCTAssertEqual(error.jsonPath, path, "\(json): \(error)", file: file, line: line) }
        XCTAssertEqual(error.byteOffset, offset, "\(json): \(error)", file: file, line: line)
        XCTAssertTrue(error.message.contains(fragment), "\(json): \(error) does not say \(fragment)", file: file, line: line)
        XCTAssertEqual(refusal(json, format: .xml), error, "\(json): XML", file: file, line: line)
    }

    // MARK: The document

    /// A document without `$top` is the root object; `$top` gives the envelope, with its own
    /// archiver, version and several top keys (`$$` escaped, `$inline` values in place).
    func testRootAndEnvelope() throws {
        for json in ["null", "5", #""s""#, "true", "[]", "{}"] {
            try assertDecodes(json)
        }
        try assertRaw("null", rooted("", root: 0))
        try assertRaw("5", rooted("5"))
        try assertRaw("[]", rooted(#"{"NS.objects":[],"$class":{"$uid":2}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#))

        let envelope = #"{"$archiver":"MyArchiver","$version":7,"$top":{"first":{"$class":"T"},"$$second":"s","third":{"$inline":5},"none":null}}"#
        try assertDecodes(envelope)
        try assertRaw(
            envelope,
            #"{"$version":7,"$archiver":"MyArchiver","$top":{"first":{"$uid":1},"$second":{"$uid":2},"third":5,"none":{"$uid":0}},"$objects":["$null",{"$class":{"$uid":3}},"s",{"$classname":"T","$classes":["T","NSObject"]}]}"#
        )
        // The version as exact text, as large as a plist integer goes.
        try assertRaw(
            #"{"$top":{"x":1},"$version":{"$integer":"18446744073709551615"}}"#,
            #"{"$version":18446744073709551615,"$archiver":"NSKeyedArchiver","$top":{"x":{"$uid":1}},"$objects":["$null",1]}"#)
        try assertRaw(#"{"$top":{}}"#, #"{"$version":100000,"$archiver":"NSKeyedArchiver","$top":{},"$objects":["$null"]}"#)
        // An envelope with the usual fields and the one key root is the plain document.
        XCTAssertEqual(try encode(#"{"$top":{"root":[1,"a"]}}"#), try encode(#"[1,"a"]"#))
        XCTAssertEqual(try encode(#"{"$top":{"root":{"$class":"T"}},"$archiver":"NSKeyedArchiver","$version":100000}"#), try encode(#"{"$class":"T"}"#))
    }

    // MARK: Identity: $id and $ref

    /// `$ref`s resolve backward, forward and around cycles, to integer and string ids alike;
    /// each object is one entry, and its `$id` comes back numbered in the order the readable
    /// view places bodies (1, 2, 3 …, breadth-first in document order).
    func testIDsAndReferences() throws {
        let cycle = #"{"$class":"Node","$id":"a","name":"a","next":{"$class":"Node","$id":"b","name":"b","next":{"$ref":"a"}},"other":{"$ref":"b"}}"#
        try assertDecodes(cycle, to: #"{"$class":"Node","$id":1,"name":"a","next":{"$class":"Node","$id":2,"name":"b","next":{"$ref":1}},"other":{"$ref":2}}"#)
        try assertRaw(
            cycle,
            rooted(
                #"{"name":{"$uid":2},"next":{"$uid":3},"other":{"$uid":3},"$class":{"$uid":4}},"a",{"name":{"$uid":5},"next":{"$uid":1},"$class":{"$uid":4}},{"$classname":"Node","$classes":["Node","NSObject"]},"b""#
            ))

        // A reference before its object reserves the UID the object then fills.
        let forward = #"[{"$ref":7},{"$class":"T","$id":7},{"$ref":7}]"#
        try assertDecodes(forward, to: #"[{"$class":"T","$id":1},{"$ref":1},{"$ref":1}]"#)
        try assertRaw(
            forward,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":2},{"$uid":2}],"$class":{"$uid":3}},{"$class":{"$uid":4}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]},{"$classname":"T","$classes":["T","NSObject"]}"#
            ))
        // A collection that holds itself, referenced before its body.
        try assertDecodes(#"[{"$ref":"late"},[{"$id":"late","$array":[{"$ref":"late"}]}]]"#, to: #"[{"$id":1,"$array":[{"$ref":1}]},[{"$ref":1}]]"#)
        // A decoded document's ids are its own numbering: it encodes back to itself.
        try assertDecodes(#"{"$class":"T","$id":1,"self":{"$ref":1},"list":[{"$ref":1}]}"#)
        // 1 and "1" are different ids; the full integer range is available; `$id` may be escaped.
        try assertDecodes(
            #"[{"$class":"T","$id":1},{"$class":"U","$id":"1"},{"$ref":"1"},{"$ref":1},{"$class":"V","$id":18446744073709551615},{"$ref":18446744073709551615},{"$class":"W","$id":-3},{"$ref":-3},{"$class":"X","\u0024id":"e"},{"$ref":"e"}]"#,
            to: #"[{"$class":"T","$id":1},{"$class":"U","$id":2},{"$ref":2},{"$ref":1},{"$class":"V","$id":3},{"$ref":3},{"$class":"W","$id":4},{"$ref":4},{"$class":"X","$id":5},{"$ref":5}]"#)
        // Value objects with `$id` stay entries of their own beside equal bare values.
        try assertDecodes(#"["a",{"$id":1,"$string":"a"},{"$ref":1},"a",5,{"$id":2,"$number":5},{"$ref":2},5]"#)
        try assertRaw(
            #"["a",{"$id":"s","$string":"a"},{"$ref":"s"},"a"]"#,
            rooted(#"{"NS.objects":[{"$uid":2},{"$uid":3},{"$uid":3},{"$uid":2}],"$class":{"$uid":4}},"a","a",{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#))
    }

    func testReferenceToAnUndefinedIDIsRefusedWithItsPath() {
        assertRefused(
            #"{"$class":"T","kids":[{"$class":"T","$id":"k"},{"$class":"T","next":{"$ref":"ghost"}}],"k":{"$ref":"k"}}"#,
            path: "$.kids[1].next.$ref", offset: 76, saying: #"$ref to $id "ghost", which no object in the document defines"#)
        assertRefused(#"{"odd key":[{"$ref":7}]}"#, path: #"$["odd key"][0].$ref"#, offset: 20, saying: "$ref to $id 7, which no object")
        // A string id is not the integer with the same digits.
        assertRefused(#"[{"$class":"T","$id":1},{"$ref":"1"}]"#, path: "$[1].$ref", offset: 32, saying: #"$id "1""#)
    }

    /// An `$id` names one object. The refusal, made while ids are collected before anything is
    /// encoded, carries the byte offset of the second `$id` value (and no JSON path).
    func testRepeatedIDIsRefused() {
        let cases: [(String, Int, String)] = [
            (#"[{"$class":"T","$id":1},{"$class":"T","$id":1}]"#, 44, "$id 1 is defined twice"),
            (#"[{"$class":"T","$id":"a"},{"$id":"a","$array":[]}]"#, 33, "$id a is defined twice"),
            (#"{"$class":"T","$id":"r","k":{"$class":"U","x":{"$id":"r","$string":"s"}}}"#, 53, "$id r is defined twice")
        ]
        for (json, offset, fragment) in cases {
            assertRefused(json, path: nil, offset: offset, saying: fragment)
        }
    }

    /// `$id` and `$ref` take integers or strings; the refusal carries the byte offset of the
    /// value (and no JSON path).
    func testIDsAndReferencesTakeIntegersOrStrings() {
        let cases: [(String, Int)] = [
            (#"[{"$class":"T","$id":1.5}]"#, 21),
            (#"[{"$class":"T","$id":true}]"#, 21),
            (#"[{"$class":"T","$id":null}]"#, 21),
            (#"[{"$class":"T","$id":[1]}]"#, 21),
            (#"[{"$ref":1.5}]"#, 9),
            (#"[{"$ref":{"id":1}}]"#, 9)
        ]
        for (json, offset) in cases {
            assertRefused(json, path: nil, offset: offset, saying: "$id and $ref take an integer or a string")
        }
    }

    // MARK: Objects

    /// A class instance: each archived key's value in its own form — inline numbers and
    /// booleans, referenced strings, numbers, objects and null, inline bytes and plist values.
    func testGenericInstance() throws {
        let json =
            #"{"$class":"T","$id":1,"i":5,"r":5.0,"b":true,"n":{"$number":5},"s":"x","big":18446744073709551615,"nan":{"$real":"NaN"},"bytes":{"$bytes":"AAEC"},"inl":{"$inline":{"a":1}},"nil":null,"child":{"$class":"U","parent":{"$ref":1}}}"#
        try assertDecodes(json)
        try assertRaw(
            json,
            rooted(
                #"{"i":5,"r":5.0,"b":true,"n":{"$uid":2},"s":{"$uid":3},"big":18446744073709551615,"nan":{"$real":"NaN"},"bytes":{"$data":"AAEC"},"inl":{"a":1},"nil":{"$uid":0},"child":{"$uid":4},"$class":{"$uid":5}},5,"x",{"parent":{"$uid":1},"$class":{"$uid":6}},{"$classname":"T","$classes":["T","NSObject"]},{"$classname":"U","$classes":["U","NSObject"]}"#
            ))
        // Data keys that begin with $ (written $$), which the instance holds without the escape.
        try assertDecodes(#"{"$class":"T","$$id":"not an id","$$ref":1,"$$class2":[]}"#)
        try assertRaw(
            #"{"$class":"T","$$id":"x"}"#,
            rooted(#"{"$id":{"$uid":2},"$class":{"$uid":3}},"x",{"$classname":"T","$classes":["T","NSObject"]}"#))
    }

    // MARK: Classes

    /// Class entries: the usual chain is implied and written; another chain, none
    /// (`$classes: null`) or hints make entries of their own; Foundation classes get
    /// Foundation's chains.
    func testClassChainsAndHints() throws {
        let json =
            #"[{"$class":"T","n":1},{"$class":"T","$classes":["T","Base","NSObject"]},{"$class":"T","$classes":null},{"$class":"T","$classhints":["Hint"]},{"$class":"T","$classes":["T","Base"],"$classhints":["H1","H2"]},{"$class":"NSMutableArray","$array":[]},{"$class":"NSMutableDictionary","$dict":{}}]"#
        try assertDecodes(json)
        try assertRaw(
            json,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":3},{"$uid":4},{"$uid":5},{"$uid":6},{"$uid":7},{"$uid":8}],"$class":{"$uid":9}},{"n":1,"$class":{"$uid":16}},{"$class":{"$uid":15}},{"$class":{"$uid":14}},{"$class":{"$uid":13}},{"$class":{"$uid":12}},{"NS.objects":[],"$class":{"$uid":11}},{"NS.keys":[],"NS.objects":[],"$class":{"$uid":10}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]},{"$classname":"NSMutableDictionary","$classes":["NSMutableDictionary","NSDictionary","NSObject"]},{"$classname":"NSMutableArray","$classes":["NSMutableArray","NSArray","NSObject"]},{"$classname":"T","$classes":["T","Base"],"$classhints":["H1","H2"]},{"$classname":"T","$classes":["T","NSObject"],"$classhints":["Hint"]},{"$classname":"T"},{"$classname":"T","$classes":["T","Base","NSObject"]},{"$classname":"T","$classes":["T","NSObject"]}"#
            ))
        // Writing out the usual chain changes nothing.
        XCTAssertEqual(try encode(#"{"$class":"T","$classes":["T","NSObject"],"k":1}"#), try encode(#"{"$class":"T","k":1}"#))
        XCTAssertEqual(
            try encode(#"{"$class":"NSMutableArray","$classes":["NSMutableArray","NSArray","NSObject"],"$array":[]}"#),
            try encode(#"{"$class":"NSMutableArray","$array":[]}"#))
    }

    /// One class entry per distinct (name, chain, hints), however many instances use it and in
    /// whatever order they come.
    func testClassEntriesAreSharedBetweenInstances() throws {
        let json =
            #"[{"$class":"T","n":1},{"$class":"T","$classes":["T","Base","NSObject"]},{"$class":"T","n":2},{"$class":"T","$classes":["T","Base","NSObject"]},{"$class":"T","$classes":["T","NSObject"]}]"#
        try assertDecodes(json, to: #"[{"$class":"T","n":1},{"$class":"T","$classes":["T","Base","NSObject"]},{"$class":"T","n":2},{"$class":"T","$classes":["T","Base","NSObject"]},{"$class":"T"}]"#)
        try assertRaw(
            json,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":3},{"$uid":4},{"$uid":5},{"$uid":6}],"$class":{"$uid":7}},{"n":1,"$class":{"$uid":8}},{"$class":{"$uid":9}},{"n":2,"$class":{"$uid":8}},{"$class":{"$uid":9}},{"$class":{"$uid":8}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]},{"$classname":"T","$classes":["T","NSObject"]},{"$classname":"T","$classes":["T","Base","NSObject"]}"#
            ))
        // The same hints, or the same missing chain, share an entry too.
        let unusual = #"[{"$class":"T","$classhints":["H"]},{"$class":"T","$classes":null},{"$class":"T","$classhints":["H"]},{"$class":"T","$classes":null}]"#
        try assertDecodes(unusual)
        try assertRaw(
            unusual,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":3},{"$uid":4},{"$uid":5}],"$class":{"$uid":6}},{"$class":{"$uid":8}},{"$class":{"$uid":7}},{"$class":{"$uid":8}},{"$class":{"$uid":7}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]},{"$classname":"T"},{"$classname":"T","$classes":["T","NSObject"],"$classhints":["H"]}"#
            ))
        // Many instances of three classes, in a nested layout: four class entries in all
        // (NSArray too), and every instance names one of them.
        let items = (0..<600).map { index in
            let name = ["A", "B", "C"][index % 3]
            return index % 2 == 0 ? #"{"$class":"\#(name)","i":\#(index)}"# : #"[{"$class":"\#(name)","i":\#(index)}]"#
        }
        let archive = try encode("[" + items.joined(separator: ",") + "]")
        let text = try raw(archive)
        XCTAssertEqual(text.components(separatedBy: #""$classname""#).count - 1, 4)
        for name in ["A", "B", "C", "NSArray"] {
            XCTAssertEqual(text.components(separatedBy: #"{"$classname":"\#(name)","#).count - 1, 1, name)
        }
        XCTAssertEqual(try readable(archive), "[" + items.joined(separator: ",") + "]")
    }

    // MARK: Values

    /// Integers and reals stay apart (1 and 1.0 are two entries, and true a third); equal
    /// bare values share one entry; integers are exact over -2^63 … 2^64-1.
    func testNumbersKeepIntegerAndRealApart() throws {
        let json = "[1,1.0,true,-1,1000.0,1e-07,9223372036854775807,9223372036854775808,18446744073709551615,-9223372036854775808,false,0,-0.0,0.0,1,1.0,true]"
        try assertDecodes(json)
        try assertRaw(
            json,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":3},{"$uid":4},{"$uid":5},{"$uid":6},{"$uid":7},{"$uid":8},{"$uid":9},{"$uid":10},{"$uid":11},{"$uid":12},{"$uid":13},{"$uid":14},{"$uid":15},{"$uid":2},{"$uid":3},{"$uid":4}],"$class":{"$uid":16}},1,1.0,true,-1,1000.0,1e-07,9223372036854775807,9223372036854775808,18446744073709551615,-9223372036854775808,false,0,-0.0,0.0,{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#
            ))
        // Other spellings of the same numbers: one entry per value, written the usual way.
        try assertDecodes("[1e3,1E3,10.0e2,-0,0.5e1,1.0E-7,100000000000000000000.0]", to: "[1000.0,1000.0,1000.0,0,5.0,1e-07,1e+20]")
        // Inside an instance, bare numbers are inline and `$number` a referenced entry.
        try assertRaw(
            #"{"$class":"T","i":1,"r":1.0,"n":{"$number":1},"m":{"$number":1.0},"t":{"$number":true}}"#,
            rooted(#"{"i":1,"r":1.0,"n":{"$uid":2},"m":{"$uid":3},"t":{"$uid":4},"$class":{"$uid":5}},1,1.0,true,{"$classname":"T","$classes":["T","NSObject"]}"#))
    }

    /// `{"$integer": "…"}` is read wherever a bare integer may stand, and is the same entry
    /// as the bare integer; the exact-integers view writes it back.
    func testExactIntegersEverywhere() throws {
        let json =
            #"[{"$integer":"18446744073709551615"},{"$integer":"-9223372036854775808"},{"$integer":"5"},5,{"$number":{"$integer":"7"}},{"$dict":[[{"$integer":"9"},"nine"]]},{"$class":"T","k":{"$integer":"-1"},"i":{"$inline":[{"$integer":"3"}]},"n":{"$number":{"$integer":"9007199254740993"}}}]"#
        try assertDecodes(json, to: #"[18446744073709551615,-9223372036854775808,5,5,7,{"$dict":[[9,"nine"]]},{"$class":"T","k":-1,"i":{"$inline":[3]},"n":{"$number":9007199254740993}}]"#)
        try assertDecodes(
            json,
            to:
                #"[{"$integer":"18446744073709551615"},{"$integer":"-9223372036854775808"},5,5,7,{"$dict":[[9,"nine"]]},{"$class":"T","k":-1,"i":{"$inline":[3]},"n":{"$number":{"$integer":"9007199254740993"}}}]"#,
            exactIntegers: true)
        try assertRaw(
            json,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":3},{"$uid":4},{"$uid":4},{"$uid":5},{"$uid":6},{"$uid":7}],"$class":{"$uid":8}},18446744073709551615,-9223372036854775808,5,7,{"NS.keys":[{"$uid":11}],"NS.objects":[{"$uid":12}],"$class":{"$uid":13}},{"k":-1,"i":[3],"n":{"$uid":9},"$class":{"$uid":10}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]},9007199254740993,{"$classname":"T","$classes":["T","NSObject"]},9,"nine",{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]}"#
            ))
        // Past 2^53 the exact view wraps what a double cannot hold; bare input reads exactly.
        try assertDecodes(
            "[9007199254740993,-9007199254740993,9007199254740991]",
            to: #"[{"$integer":"9007199254740993"},{"$integer":"-9007199254740993"},9007199254740991]"#, exactIntegers: true)
    }

    /// `$real` for NaN and the infinities (a NaN's own bits kept in binary), as entries and inline.
    func testNonFiniteReals() throws {
        try assertDecodes(#"[{"$real":"NaN"},{"$real":"Infinity"},{"$real":"-Infinity"},{"$class":"T","k":{"$real":"-Infinity"},"n":{"$number":{"$real":"NaN"}}}]"#)
        // XML writes every NaN as "nan": a NaN with other bits is binary only.
        try assertDecodes(#"[{"$real":"NaN:fff8000000000001"}]"#, formats: [.binary])
        XCTAssertEqual(refusal(#"[{"$real":"NaN:fff8000000000001"}]"#, format: .xml)?.kind, .invalidDocument)
        try assertRaw(
            #"[{"$real":"NaN"},{"$real":"NaN"},{"$real":"Infinity"}]"#,
            rooted(#"{"NS.objects":[{"$uid":2},{"$uid":2},{"$uid":3}],"$class":{"$uid":4}},{"$real":"NaN"},{"$real":"Infinity"},{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#))
    }

    /// `$data` is a data entry (or NSMutableData's content), `$bytes` inline data in an instance.
    func testDataAndBytes() throws {
        let json = #"{"d":{"$data":"AAE="},"e":{"$data":""},"md":{"$class":"NSMutableData","$data":"AAE="},"k":{"$class":"T","b":{"$bytes":"AAEC"},"r":{"$data":"AAEC"}}}"#
        try assertDecodes(json)
        try assertRaw(
            json,
            rooted(
                #"{"NS.keys":[{"$uid":2},{"$uid":4},{"$uid":6},{"$uid":9}],"NS.objects":[{"$uid":3},{"$uid":5},{"$uid":7},{"$uid":10}],"$class":{"$uid":11}},"d",{"$data":"AAE="},"e",{"$data":""},"md",{"NS.data":{"$data":"AAE="},"$class":{"$uid":8}},{"$classname":"NSMutableData","$classes":["NSMutableData","NSData","NSObject"]},"k",{"b":{"$data":"AAEC"},"r":{"$uid":12},"$class":{"$uid":13}},{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]},{"$data":"AAEC"},{"$classname":"T","$classes":["T","NSObject"]}"#
            ))
    }

    /// `$date` is an NSDate (a real `NS.time`), `$plistDate` a plist date; both take text or
    /// seconds since 2001. XML plist dates hold whole seconds.
    func testDatesAndPlistDates() throws {
        let json = #"{"d1":{"$date":"2020-11-01T17:44:28.427940Z"},"d2":{"$plistDate":"2001-01-01T00:00:00Z"},"d3":{"$plistDate":"2001-01-01T00:00:12.250Z"},"d4":{"$date":{"$real":"Infinity"}}}"#
        try assertDecodes(json, formats: [.binary])
        try assertDecodes(json, to: json.replacingOccurrences(of: "00:00:12.250Z", with: "00:00:12Z"), formats: [.xml])
        XCTAssertEqual(
            try raw(encode(json)),
            rooted(
                #"{"NS.keys":[{"$uid":2},{"$uid":5},{"$uid":7},{"$uid":9}],"NS.objects":[{"$uid":3},{"$uid":6},{"$uid":8},{"$uid":10}],"$class":{"$uid":11}},"d1",{"NS.time":625945468.42794,"$class":{"$uid":4}},{"$classname":"NSDate","$classes":["NSDate","NSObject"]},"d2",{"$date":"2001-01-01T00:00:00Z"},"d3",{"$date":"2001-01-01T00:00:12.250Z"},"d4",{"NS.time":{"$real":"Infinity"},"$class":{"$uid":4}},{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]}"#
            ))
        // Seconds as numbers.
        try assertDecodes(
            #"[{"$date":0},{"$date":-1.5},{"$plistDate":12},{"$date":625945468}]"#,
            to: #"[{"$date":"2001-01-01T00:00:00Z"},{"$date":"2000-12-31T23:59:58.500Z"},{"$plistDate":"2001-01-01T00:00:12Z"},{"$date":"2020-11-01T17:44:28Z"}]"#)
        // Equal dates are one NSDate only when they share an `$id`.
        try assertRaw(
            #"[{"$date":0},{"$date":0}]"#,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":4}],"$class":{"$uid":5}},{"NS.time":0.0,"$class":{"$uid":3}},{"$classname":"NSDate","$classes":["NSDate","NSObject"]},{"NS.time":0.0,"$class":{"$uid":3}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#
            ))
    }

    /// Strings: equal ones are one entry (keys included), `$string` alone is the bare string,
    /// NSMutableString holds its text inline; data keys that begin with `$` are written `$$`.
    func testStringsAndEscapedKeys() throws {
        let json = #"{"$$odd":"v","$$$x":1,"plain":{"$$class":"not a class"},"s":"v","t":{"$class":"T","$$id":"not an id","$$ref":1},"u":"é 😀 \"q\" \\ \u0001"}"#
        try assertDecodes(json)
        try assertRaw(
            #"{"$$odd":"v","$$$x":"$odd","s":"v"}"#,
            rooted(
                #"{"NS.keys":[{"$uid":2},{"$uid":4},{"$uid":5}],"NS.objects":[{"$uid":3},{"$uid":2},{"$uid":3}],"$class":{"$uid":6}},"$odd","v","$$x","s",{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]}"#
            ))
        try assertDecodes(
            #"{"ms":{"$class":"NSMutableString","$string":"abc"},"s":{"$string":"abc"},"x":"abc"}"#,
            to: #"{"ms":{"$class":"NSMutableString","$string":"abc"},"s":"abc","x":"abc"}"#)
        try assertRaw(
            #"{"ms":{"$class":"NSMutableString","$string":"abc"},"s":{"$string":"abc"},"x":"abc"}"#,
            rooted(
                #"{"NS.keys":[{"$uid":2},{"$uid":5},{"$uid":7}],"NS.objects":[{"$uid":3},{"$uid":6},{"$uid":6}],"$class":{"$uid":8}},"ms",{"NS.string":"abc","$class":{"$uid":4}},{"$classname":"NSMutableString","$classes":["NSMutableString","NSString","NSObject"]},"s","abc","x",{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]}"#
            ))
    }

    // MARK: Collections

    /// Arrays, sets and ordered sets, under their default classes or a given one.
    func testArraysAndSets() throws {
        let json =
            #"{"a":[],"n":[[1,[2]],"x"],"s":{"$set":[1,"x"]},"o":{"$orderedSet":["x","y","x"]},"m":{"$class":"NSMutableArray","$array":[1]},"ms":{"$class":"NSMutableSet","$set":[]},"w":{"$id":1,"$array":[{"$ref":1}]}}"#
        // The self-holding array is the document's first (and only) object with an id.
        try assertDecodes(json)
        try assertRaw(#"{"$set":[1,"x"]}"#, rooted(#"{"NS.objects":[{"$uid":2},{"$uid":3}],"$class":{"$uid":4}},1,"x",{"$classname":"NSSet","$classes":["NSSet","NSObject"]}"#))
        // An ordered set's members are numbered keys.
        try assertRaw(
            #"{"$orderedSet":["x","y","x"]}"#,
            rooted(#"{"NS.object.0":{"$uid":2},"NS.object.1":{"$uid":3},"NS.object.2":{"$uid":2},"$class":{"$uid":4}},"x","y",{"$classname":"NSOrderedSet","$classes":["NSOrderedSet","NSObject"]}"#))
        try assertRaw(
            #"[[],[]]"#,
            rooted(
                #"{"NS.objects":[{"$uid":2},{"$uid":3}],"$class":{"$uid":4}},{"NS.objects":[],"$class":{"$uid":4}},{"NS.objects":[],"$class":{"$uid":4}},{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#
            ))
    }

    /// Dictionaries with string keys (a JSON object, or `$dict` with an object) and with keys
    /// of any kind (`$dict` with [key, value] pairs).
    func testDictionaries() throws {
        let json = #"{"b":{},"g":{"$$k":1},"h":{"$class":"NSMutableDictionary","$dict":{"k":2}},"p":{"$dict":[[1,"one"],[{"$class":"K"},null],[[1],{"$data":"AA=="}],[null,true]]}}"#
        try assertDecodes(json)
        // `$dict` with an object is the plain dictionary, all its keys data keys.
        XCTAssertEqual(try encode(#"{"$dict":{"$$k":1,"a":[]}}"#), try encode(#"{"$$k":1,"a":[]}"#))
        // A key and an equal string value are one entry.
        try assertRaw(#"{"a":"a"}"#, rooted(#"{"NS.keys":[{"$uid":2}],"NS.objects":[{"$uid":2}],"$class":{"$uid":3}},"a",{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]}"#))
        try assertRaw(
            #"{"$dict":[[1,"one"],[{"$class":"K"},null]]}"#,
            rooted(
                #"{"NS.keys":[{"$uid":2},{"$uid":4}],"NS.objects":[{"$uid":3},{"$uid":0}],"$class":{"$uid":5}},1,"one",{"$class":{"$uid":6}},{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]},{"$classname":"K","$classes":["K","NSObject"]}"#
            ))
    }

    /// `$plist` stores a plain plist container as an entry; `$inline` holds plist values in
    /// place (strings in its containers are references, `{"$inline": …}` marks those held in place).
    func testPlistAndInlineValues() throws {
        let json =
            #"{"p":{"$plist":{"a":[1,"x"],"$$k":true}},"pa":{"$plist":[1,{"$inline":[2]}]},"t":{"$class":"T","k":{"$inline":[null,"a",{"$inline":"b"},1,{"$inline":[2]},{"$bytes":"AA=="},{"$inline":{"$plistDate":"2001-01-01T00:00:00Z"}}]}}}"#
        try assertDecodes(json)
        try assertRaw(
            json,
            rooted(
                #"{"NS.keys":[{"$uid":2},{"$uid":4},{"$uid":6}],"NS.objects":[{"$uid":3},{"$uid":5},{"$uid":7}],"$class":{"$uid":8}},"p",{"a":{"$uid":11},"$k":true},"pa",[1,[2]],"t",{"k":[{"$uid":0},{"$uid":9},"b",1,[2],{"$data":"AA=="},{"$date":"2001-01-01T00:00:00Z"}],"$class":{"$uid":10}},{"$classname":"NSDictionary","$classes":["NSDictionary","NSObject"]},"a",{"$classname":"T","$classes":["T","NSObject"]},{"NS.objects":[{"$uid":12},{"$uid":13}],"$class":{"$uid":14}},1,"x",{"$classname":"NSArray","$classes":["NSArray","NSObject"]}"#
            ))
        // Inline leaves of every kind at the top of `$inline`.
        try assertRaw(
            #"{"$class":"T","s":{"$inline":"s"},"n":{"$inline":2.5},"d":{"$inline":{"$data":"AA=="}},"r":{"$inline":{"$real":"NaN"}},"e":{"$inline":{}}}"#,
            rooted(#"{"s":"s","n":2.5,"d":{"$data":"AA=="},"r":{"$real":"NaN"},"e":{},"$class":{"$uid":2}},{"$classname":"T","$classes":["T","NSObject"]}"#))
    }

    /// `$uuid` is an NSUUID of its 16 bytes (any case in, upper case out).
    func testUUIDAndNull() throws {
        let json = #"{"u":{"$uuid":"54cd5574-e957-4499-8a09-dab688c0b586"},"n":{"$class":"NSNull"}}"#
        try assertDecodes(json, to: #"{"u":{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B586"},"n":{"$class":"NSNull"}}"#)
        try assertRaw(
            #"{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B586"}"#,
            rooted(#"{"NS.uuidbytes":{"$data":"VM1VdOlXRJmKCdq2iMC1hg=="},"$class":{"$uid":2}},{"$classname":"NSUUID","$classes":["NSUUID","NSObject"]}"#))
    }

    /// `$table` holds bodies referenced from the document (as a nesting bound writes them):
    /// the archive is the one with the bodies in place.
    func testTableEntries() throws {
        let tabled = #"{"$top":{"a":{"$ref":"x"},"b":[{"$ref":"y"}]},"$table":[{"$class":"T","$id":"x","self":{"$ref":"x"},"y":{"$ref":"y"}},{"$id":"y","$array":[1]}]}"#
        let inPlace = #"{"$top":{"a":{"$class":"T","$id":1,"self":{"$ref":1},"y":{"$id":2,"$array":[1]}},"b":[{"$ref":2}]}}"#
        try assertDecodes(tabled, to: inPlace)
        try assertDecodes(inPlace)
        let fromTable = try KeyedArchive(parsing: encode(tabled))
        XCTAssertNil(fromTable.difference(from: try KeyedArchive(parsing: encode(inPlace))))
        try assertRaw(
            tabled,
            #"{"$version":100000,"$archiver":"NSKeyedArchiver","$top":{"a":{"$uid":1},"b":{"$uid":2}},"$objects":["$null",{"self":{"$uid":1},"y":{"$uid":3},"$class":{"$uid":6}},{"NS.objects":[{"$uid":3}],"$class":{"$uid":5}},{"NS.objects":[{"$uid":4}],"$class":{"$uid":5}},1,{"$classname":"NSArray","$classes":["NSArray","NSObject"]},{"$classname":"T","$classes":["T","NSObject"]}]}"#
        )
    }

    // MARK: Refusals

    /// Every check of the encoder (and of the mapping keys it reads), with the byte offset and
    /// JSON path of the value at fault.
    func testRefusalsNameTheValueAtFault() {
        let cases: [(json: String, path: String, offset: Int, fragment: String)] = [
            // The envelope.
            (#"{"$top":[1]}"#, "$.$top", 8, "$top must be an object"),
            (#"{"$top":{},"$table":{}}"#, "$.$table", 20, "$table must be an array of objects with $id"),
            (#"{"$top":{},"$archiver":1}"#, "$.$archiver", 23, "$archiver must be a string"),
            (#"{"$top":{},"$version":1.5}"#, "$.$version", 22, "$version must be an integer"),
            (#"{"$top":{},"$version":"1"}"#, "$.$version", 22, "$version must be an integer"),
            (#"{"$top":{},"$version":{"$integer":"x"}}"#, "$.$version.$integer", 34, "$integer takes an integer as decimal text"),
            (#"{"$top":{},"$extra":1}"#, "$.$extra", 20, "unexpected key beside $top"),
            (#"{"$top":{"$k":1}}"#, "$.$top.$k", 9, "key $k starts with $; write a data key that starts with $ as $$"),
            (#"{"$top":{"k":1},"$table":[{"$class":"T"}]}"#, "$.$table[0]", 26, "a $table entry is an object with $id"),
            (#"{"$top":{"k":1},"$table":[5]}"#, "$.$table[0]", 26, "a $table entry is an object with $id"),
            (#"[{"$top":{}}]"#, "$[0].$top", 9, "$top belongs only at the top of the document"),
            // Objects and their mapping keys.
            (#"[{"$plist":[1],"$class":"T"}]"#, "$[0]", 1, "$plist takes no $class, $classes or $classhints"),
            (#"[{"$plist":5}]"#, "$[0].$plist", 11, "$plist takes an array or an object"),
            (#"[{"a":1,"$id":"x"}]"#, "$[0]", 1, "needs $class or a value wrapper"),
            (#"[{"a":1,"$classes":["A"]}]"#, "$[0]", 1, "needs $class or a value wrapper"),
            (#"[{"a":1,"$classhints":["A"]}]"#, "$[0]", 1, "needs $class or a value wrapper"),
            (#"[{"$class":"T","$$class":1}]"#, "$[0]", 1, "the key $class is taken by the archive format"),
            (#"[{"$ref":1,"a":2}]"#, "$[0]", 1, "$ref stands alone in its object"),
            (#"[{"$class":""}]"#, "$[0].$class", 11, "$class takes a class name"),
            (#"[{"$class":5}]"#, "$[0].$class", 11, "$class takes a class name"),
            (#"[{"$class":"T","$classes":"A"}]"#, "$[0].$classes", 26, "expected an array of class names"),
            (#"[{"$class":"T","$classhints":["A",2]}]"#, "$[0].$classhints[1]", 34, "expected an array of class names"),
            (#"[{"$array":[],"$set":[]}]"#, "$[0].$set", 21, "an object holds one value wrapper, not two"),
            (#"[{"$array":[],"x":1}]"#, "$[0]", 1, "$array objects hold no data keys"),
            (#"{"k":{"$class":"T","$Class":1}}"#, "$.k.$Class", 19, "unknown key $Class"),
            // Value wrappers.
            (#"[{"$string":5}]"#, "$[0].$string", 12, "$string takes a string"),
            (#"[{"$class":"NSMutableString","$string":null}]"#, "$[0].$string", 39, "$string takes a string"),
            (#"[{"$data":5}]"#, "$[0].$data", 10, "expected base64 text"),
            (#"[{"$data":"YWJ"}]"#, "$[0].$data", 10, "invalid base64 at character 3"),
            (#"[{"$data":"YW!j"}]"#, "$[0].$data", 10, "invalid base64 at character 2"),
            (#"[{"$data":"YW Jj"}]"#, "$[0].$data", 10, "invalid base64 at character"),
            (#"[{"$number":"5"}]"#, "$[0].$number", 12, "expected a number or a boolean"),
            (#"[{"$number":5,"$class":"T"}]"#, "$[0]", 1, "$number takes no $class, $classes or $classhints"),
            (#"[{"$integer":"5","$class":"T"}]"#, "$[0]", 1, "$integer takes no $class"),
            (#"[{"$real":"NaN","$classes":["X"]}]"#, "$[0]", 1, "$real takes no $class"),
            (#"[{"$plistDate":0,"$classhints":["X"]}]"#, "$[0]", 1, "$plistDate takes no $class"),
            (#"[{"$integer":5}]"#, "$[0].$integer", 13, "$integer takes an integer as decimal text"),
            (#"[{"$integer":"5x"}]"#, "$[0].$integer", 13, "$integer takes an integer as decimal text"),
            (#"[{"$integer":"+5"}]"#, "$[0].$integer", 13, "$integer takes an integer as decimal text"),
            (#"[{"$integer":""}]"#, "$[0].$integer", 13, "$integer takes an integer as decimal text"),
            (#"[{"$integer":"18446744073709551616"}]"#, "$[0].$integer", 13, "is outside the integers a plist holds"),
            (#"[{"$integer":"-9223372036854775809"}]"#, "$[0].$integer", 13, "is outside the integers a plist holds"),
            (#"[{"$real":"nan"}]"#, "$[0].$real", 10, #"$real takes a number's text ("1.0""#),
            (#"[{"$real":5}]"#, "$[0].$real", 10, #"$real takes a number's text ("1.0""#),
            (#"[{"$date":"2020-01-01"}]"#, "$[0].$date", 10, "expected a time like 2001-01-01T00:00:00Z"),
            (#"[{"$date":{"a":1}}]"#, "$[0].$date", 10, "expected a time as text or seconds since 2001"),
            (#"[{"$date":true}]"#, "$[0].$date", 10, "expected a time as text or seconds since 2001"),
            (#"[{"$plistDate":"2001-02-29T00:00:00Z"}]"#, "$[0].$plistDate", 15, "expected a time like"),
            (#"[{"$uuid":"nope"}]"#, "$[0].$uuid", 10, "$uuid takes text like"),
            (#"[{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B58G"}]"#, "$[0].$uuid", 10, "$uuid takes text like"),
            (#"[{"$bytes":"YWJj"}]"#, "$[0]", 1, "$bytes cannot stand for an object here"),
            (#"[{"$inline":1}]"#, "$[0]", 1, "$inline cannot stand for an object here"),
            (#"{"$class":"T","k":{"$id":1,"$bytes":"AA=="}}"#, "$.k", 18, "$bytes cannot stand for an object here"),
            // Collections.
            (#"[{"$array":{}}]"#, "$[0].$array", 11, "$array takes an array"),
            (#"[{"$set":5}]"#, "$[0].$set", 9, "$set takes an array"),
            (#"[{"$orderedSet":"x"}]"#, "$[0].$orderedSet", 16, "$orderedSet takes an array"),
            (#"[{"$dict":[[1,2,3]]}]"#, "$[0].$dict[0]", 11, "$dict pairs are [key, value] arrays"),
            (#"[{"$dict":[[1,2],5]}]"#, "$[0].$dict[1]", 17, "$dict pairs are [key, value] arrays"),
            (#"[{"$dict":5}]"#, "$[0].$dict", 10, "$dict takes an object or an array of [key, value] pairs"),
            (#"[{"$dict":{"a":1,"$k":1}}]"#, "$[0].$dict.$k", 17, "key $k starts with $"),
            // Values in an instance's keys.
            (#"{"$class":"T","k":{"$inline":null}}"#, "$.k.$inline", 29, "$inline cannot hold null"),
            (#"{"$class":"T","k":{"$inline":{"$k":1}}}"#, "$.k.$inline.$k", 30, "key $k starts with $"),
            (#"{"$class":"T","k":{"$inline":[1,{"$inline":null}]}}"#, "$.k.$inline[1].$inline", 43, "$inline cannot hold null"),
            (#"{"$class":"T","k":{"$bytes":"!!!!"}}"#, "$.k.$bytes", 28, "invalid base64 at character 0"),
            (#"{"$class":"T","k":{"$real":"x"}}"#, "$.k.$real", 27, #"$real takes a number's text ("1.0""#),
            (#"{"$class":"T","k":{"$integer":"x"}}"#, "$.k.$integer", 30, "$integer takes an integer as decimal text"),
            (#"{"$class":"T","k":{"$inline":{"$plistDate":"x"}}}"#, "$.k.$inline.$plistDate", 43, "expected a time like"),
            (#"{"$class":"T","k":{"$inline":{"$data":1}}}"#, "$.k.$inline.$data", 38, "expected base64 text"),
            // Deeper, with a key that needs quoting in the path.
            (#"{"$class":"T","odd key":{"$class":"U","list":[0,{"$string":1}]}}"#, #"$["odd key"].list[1].$string"#, 59, "$string takes a string"),
            (#"{"$top":{"a":{"$plist":{"x":[{"$set":{}}]}}}}"#, "$.$top.a.$plist.x[0].$set", 37, "$set takes an array")
        ]
        for (json, path, offset, fragment) in cases {
            assertRefused(json, path: path, offset: offset, saying: fragment)
        }
    }
}
