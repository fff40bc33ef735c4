import TestSupport
import XCTest

@testable import ArchiveCodec

/// The plain view made from lossless JSON (`PlainView`): each lossless form's plain form, as
/// docs/mapping.md's table "The plain view" gives it.
final class PlainViewTests: XCTestCase {
    private func plain(_ lossless: String, pretty: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        String(decoding: try PlainView.json(JSONDocument(parsing: Array(lossless.utf8)), pretty: pretty), as: UTF8.self)
    }

    private func assertPlain(_ lossless: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try plain(lossless), expected, lossless, file: file, line: line)
    }

    func testCollectionsAreArraysAndObjects() throws {
        try assertPlain(#"[1,"a",true,null,1.5]"#, #"[1,"a",true,null,1.5]"#)
        try assertPlain(#"{"$class":"NSMutableArray","$array":[1,{"$class":"NSMutableArray","$array":[]}]}"#, "[1,[]]")
        try assertPlain(#"{"$set":["a","b"]}"#, #"["a","b"]"#)
        try assertPlain(#"{"$class":"NSMutableSet","$set":[1]}"#, "[1]")
        try assertPlain(#"{"$orderedSet":[3,2]}"#, "[3,2]")
        try assertPlain(#"{"$class":"NSMutableOrderedSet","$orderedSet":[3]}"#, "[3]")
        try assertPlain(#"{"a":{"b":[]},"$$odd":1}"#, #"{"a":{"b":[]},"$$odd":1}"#)
        try assertPlain(#"{"$class":"NSMutableDictionary","a":1}"#, #"{"a":1}"#)
    }

    /// `$dict`: an object when every key is a distinct string (text objects and references to
    /// them included), else `{"key": …, "value": …}` pairs.
    func testDictionaries() throws {
        try assertPlain(#"{"$dict":[["a",1],["$b",2]]}"#, #"{"a":1,"$$b":2}"#)
        try assertPlain(
            #"{"$class":"NSMutableDictionary","$dict":[[{"$id":3,"$string":"k"},1],[{"$class":"NSMutableString","$string":"m"},{"$ref":3}]]}"#,
            #"{"k":1,"m":"k"}"#)
        try assertPlain(#"[{"$dict":[[{"$ref":3},1]]},{"$dict":[[{"$id":3,"$string":"k"},2]]}]"#, #"[{"k":1},{"k":2}]"#)
        try assertPlain(#"{"$dict":[[40400,{"a":1}],["x",2]]}"#, #"[{"key":40400,"value":{"a":1}},{"key":"x","value":2}]"#)
        try assertPlain(
            #"{"$dict":[[{"$id":1,"$string":"k"},1],[{"$id":2,"$string":"k"},2]]}"#, #"[{"key":"k","value":1},{"key":"k","value":2}]"#)
        try assertPlain(#"{"$dict":[]}"#, "{}")
    }

    func testValuesAreTheirValues() throws {
        try assertPlain(#"{"$class":"NSMutableString","$string":"x\"y"}"#, #""x\"y""#)
        try assertPlain(#"{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B586"}"#, #""54CD5574-E957-4499-8A09-DAB688C0B586""#)
        try assertPlain(#"{"$number":5}"#, "5")
        try assertPlain(#"{"$number":{"$real":"NaN"},"$type":"i"}"#, #""NaN""#)
        try assertPlain(#"{"$inline":{"a":[1]}}"#, #"{"a":[1]}"#)
        try assertPlain(#"{"$plist":[1,2]}"#, "[1,2]")
        try assertPlain(#"{"$uid":7}"#, "7")
        try assertPlain(#"{"$class":"NSNull"}"#, "null")
        try assertPlain(#"{"$class":"NSValue","$type":"{CGSize=dd}","$value":[826.0,615.0]}"#, "[826.0,615.0]")
    }

    func testExactNumbersAreNumbers() throws {
        try assertPlain(#"{"$integer":"18446744073709551615"}"#, "18446744073709551615")
        try assertPlain(#"{"$integer":"-9223372036854775808"}"#, "-9223372036854775808")
        try assertPlain(#"{"$real":"1.0"}"#, "1.0")
        try assertPlain(#"{"$real":"-0.0"}"#, "-0.0")
        try assertPlain(#"{"$real":"1e+300"}"#, "1e+300")
        try assertPlain(#"[{"$real":"NaN"},{"$real":"-Infinity"},{"$real":"Infinity"},{"$real":"NaN:fff8000000000001"}]"#, #"["NaN","-Infinity","Infinity","NaN:fff8000000000001"]"#)
        try assertPlain(#"{"$integer":"12x"}"#, #""12x""#)
    }

    func testDatesAreText() throws {
        try assertPlain(#"{"$date":"2020-11-01T17:44:28.427940Z"}"#, #""2020-11-01T17:44:28.427940Z""#)
        try assertPlain(#"{"$plistDate":"2001-01-01T00:00:00Z"}"#, #""2001-01-01T00:00:00Z""#)
        // Seconds whose text would not read back exactly: ISO text to the nanosecond.
        try assertPlain(#"{"$date":0.0000000001}"#, #""2001-01-01T00:00:00.000000000Z""#)
        try assertPlain(#"{"$date":0.5}"#, #""2001-01-01T00:00:00.500Z""#)
        // Outside years 1 … 9999: the seconds.
        try assertPlain(#"{"$date":1e300}"#, "1e300")
    }

    func testDataIsTextOrBase64OrItsAccount() throws {
        try assertPlain(#"{"$data":"AAE="}"#, #""AAE=""#)
        try assertPlain(#"{"$class":"NSMutableData","$data":"AAE="}"#, #""AAE=""#)
        try assertPlain(#"{"$text":"hello"}"#, #""hello""#)
        try assertPlain(#"{"$class":"NSMutableData","$text":"hi"}"#, #""hi""#)
        try assertPlain(#"{"$bytes":"JAAE"}"#, #""JAAE""#)
        try assertPlain(#"{"$bytesText":"abc"}"#, #""abc""#)
        try assertPlain(#"{"$data":"Ym9vaw==","$bookmark":{"path":["Applications"],"created":{"$date":"2020-06-06T06:44:56Z"}}}"#, #"{"path":["Applications"],"created":"2020-06-06T06:44:56Z"}"#)
        try assertPlain(#"{"$bytes":"AAAA","$alias":{"version":2}}"#, #"{"version":2}"#)
        try assertPlain(##"{"$bytes":{"$components":[0.1,0.2,0.3],"$hex":"#1A334D"}}"##, "[0.1,0.2,0.3]")
        try assertPlain(#"{"$data":{"$components":[1.0],"$nulTerminated":false}}"#, "[1.0]")
        try assertPlain(#"{"$class":"NSMutableData","$data":{"$ranges":[[0,50],[{"$integer":"9223372036854775757"},50]]}}"#, "[[0,50],[9223372036854775757,50]]")
        try assertPlain(#"{"$bytes":{"$indexes":[4,8]}}"#, "[4,8]")
        try assertPlain(#"{"$bytes":{"$runs":[[1,0],[2,1]]}}"#, "[[1,0],[2,1]]")
    }

    func testAttributedStringsAreTheirText() throws {
        try assertPlain(
            #"{"$class":"NSAttributedString","$string":"0123","$runs":[{"$length":1,"$attributes":{}},{"$length":3,"$attributesOf":0}]}"#, #""0123""#)
        try assertPlain(
            #"{"$class":"NSMutableAttributedString","$string":{"$class":"NSMutableString","$string":"ab"},"$runs":[{"$length":2,"$attributes":{"F":1}}]}"#,
            #""ab""#)
        try assertPlain(#"{"$class":"NSAttributedString","NSString":"kept keys","NSAttributes":{"F":1}}"#, #""kept keys""#)
    }

    func testClassesKeepTheirNameAndMembers() throws {
        try assertPlain(
            #"{"$class":"Team","$classes":["Team","Club","NSObject"],"$classhints":["Club"],"name":"Bears","play":{"$bytes":"AA=="},"rating":{"$real":"70.0"},"big":{"$integer":"18446744073709551615"},"n":{"$number":5}}"#,
            #"{"$class":"Team","name":"Bears","play":"AA==","rating":70.0,"big":18446744073709551615,"n":5}"#)
        try assertPlain(#"{"$class":"NSURL","NS.base":null,"NS.relative":"https://www.swift.org"}"#, #""https://www.swift.org""#)
        try assertPlain(
            #"{"$class":"NSURL","NS.base":{"$class":"NSURL","NS.base":null,"NS.relative":"https://www.swift.org"},"NS.relative":"index.xml"}"#,
            #"{"base":"https://www.swift.org","relative":"index.xml"}"#)
    }

    func testDocumentsAreTheirRootValue() throws {
        try assertPlain(#"{"$propertyList":{"amc":0,"d":{"$date":"2022-12-14T19:05:26.862793Z"},"u":{"$uid":3}}}"#, #"{"amc":0,"d":"2022-12-14T19:05:26.862793Z","u":3}"#)
        try assertPlain(#"{"$top":{"$$0":{"a":1}},"$archiver":"Other"}"#, #"{"a":1}"#)
        try assertPlain(#"{"$top":{"$$0":1,"b":2},"$version":99999}"#, #"{"$$0":1,"b":2}"#)
        try assertPlain(#"{"k":{"$data":{"$keyedArchive":{"$class":"NSColor","NSRGB":{"$bytes":{"$components":[0.5]}}}}}}"#, #"{"k":{"$class":"NSColor","NSRGB":[0.5]}}"#)
        try assertPlain(#"{"k":{"$data":{"$propertyList":[1],"$format":"xml"}}}"#, #"{"k":[1]}"#)
        try assertPlain(#"{"k":{"$bytes":{"$typedstream":[{"@":"text"}]}}}"#, #"{"k":"text"}"#)
    }

    /// A typedstream is its one group's value, or an array of its groups' values; readable
    /// forms are their values, NSColor and NSFont their members without `$`, a generic object
    /// its class and `groups`.
    func testTypedStreams() throws {
        try assertPlain(#"{"$typedstream":[{"@":{"$class":"NSMutableString","$string":"x"}}]}"#, #""x""#)
        try assertPlain(#"{"$typedstream":[{"i":1},{"iI":[1,6]},{"@":null}],"$byteOrder":"big","$systemVersion":900}"#, "[1,[1,6],null]")
        try assertPlain(
            #"{"$typedstream":[{"@":{"$class":"NSFont","$version":30,"$name":"Inconsolata","$size":13.0,"$flags":[0,1,0,0]}}]}"#,
            #"{"$class":"NSFont","version":30,"name":"Inconsolata","size":13.0,"flags":[0,1,0,0]}"#)
        try assertPlain(
            #"{"$typedstream":[{"@":{"$class":"NSColor","$space":"calibratedRGB","$components":[1.0,0.5,0.0,1.0]}}]}"#,
            #"{"$class":"NSColor","space":"calibratedRGB","components":[1.0,0.5,0.0,1.0]}"#)
        try assertPlain(
            ##"{"$typedstream":[{"@":{"$class":"NSColor","$space":"calibratedRGB","$components":[1.0,0.5,0.0,1.0],"$hex":"#FF8000"}}]}"##,
            ##"{"$class":"NSColor","space":"calibratedRGB","components":[1.0,0.5,0.0,1.0],"hex":"#FF8000"}"##)
        try assertPlain(#"{"$typedstream":[{"@":{"$class":"NSColor","$named":["System","textColor",null]}}]}"#, #"{"$class":"NSColor","named":["System","textColor",null]}"#)
        try assertPlain(
            #"{"$typedstream":[{"@":{"$class":"Widget","$classes":[["Widget",3],["NSObject",0]],"$id":1,"$groups":[{"i":7},{"@":{"$ref":1}},{"ff":[1.0,2.0]}]}}]}"#,
            #"{"$class":"Widget","$id":1,"groups":[7,{"$ref":1},[1.0,2.0]]}"#)
        try assertPlain(#"{"$typedstream":[{"@":{"$number":5,"$type":"i"}}]}"#, "5")
        try assertPlain(#"{"$typedstream":[{"@":{"$class":"NSURL","$relative":"https://a.b"}}]}"#, #""https://a.b""#)
        try assertPlain(
            #"{"$typedstream":[{"@":{"$class":"NSMutableDictionary","$dict":[[{"$id":3,"$string":"k"},1]]}},{"@":{"$dict":[[{"$ref":3},2]]}}]}"#,
            #"[{"k":1},{"k":2}]"#)
        try assertPlain(#"{"$typedstream":[]}"#, "[]")
    }

    /// Objects that keep an identity are written once, numbered in the order the plain view
    /// reaches them; a reference may come before the body.
    func testSharedObjectsAndCycles() throws {
        try assertPlain(
            #"{"$class":"Node","$id":5,"next":{"$class":"Node","next":{"$ref":5}}}"#, #"{"$class":"Node","$id":1,"next":{"$class":"Node","next":{"$ref":1}}}"#)
        try assertPlain(
            #"{"$class":"League","a":[{"$ref":7},{"$ref":"t"}],"teams":{"$class":"NSMutableArray","$array":[{"$class":"Team","$id":"t"},{"$class":"Team","$id":7}]}}"#,
            #"{"$class":"League","a":[{"$ref":1},{"$ref":2}],"teams":[{"$class":"Team","$id":2},{"$class":"Team","$id":1}]}"#)
        // A shared collection keeps its identity in an object, its elements under `$array`.
        try assertPlain(#"[{"$class":"NSMutableArray","$id":3,"$array":[{"$ref":3}]},{"$ref":3}]"#, #"[{"$id":1,"$array":[{"$ref":1}]},{"$ref":1}]"#)
        try assertPlain(#"[{"$id":2,"$set":[1]},{"$ref":2}]"#, #"[{"$id":1,"$array":[1]},{"$ref":1}]"#)
        try assertPlain(#"[{"$id":2,"a":1},{"$ref":2}]"#, #"[{"$id":1,"a":1},{"$ref":1}]"#)
        try assertPlain(#"[{"$id":2,"$dict":[["a",{"$ref":2}]]},{"$ref":2}]"#, #"[{"$id":1,"a":{"$ref":1}},{"$ref":1}]"#)
        try assertPlain(#"[{"$id":2,"$dict":[[1,2]]},{"$ref":2}]"#, #"[{"$id":1,"$array":[{"key":1,"value":2}]},{"$ref":1}]"#)
        // An identity given as a string is read by its text, escapes resolved.
        try assertPlain(#"[{"$ref":"a\u0062"},{"$class":"T","$id":"ab"}]"#, #"[{"$ref":1},{"$class":"T","$id":1}]"#)
        // A second body for one identity (which the encoder refuses) is written as a reference.
        try assertPlain(#"[{"$class":"T","$id":1,"a":1},{"$class":"T","$id":1,"a":2}]"#, #"[{"$class":"T","$id":1,"a":1},{"$ref":1}]"#)
        // A value object is written at every reference.
        try assertPlain(#"[{"$id":2,"$string":"Hello"},{"$ref":2},{"$ref":2}]"#, #"["Hello","Hello","Hello"]"#)
        try assertPlain(#"[{"$ref":4},{"$id":4,"$class":"NSMutableData","$data":"AA=="}]"#, #"["AA==","AA=="]"#)
        // A value object that names itself: the inner reference is null, not written without end.
        try assertPlain(#"{"$id":1,"$class":"NSAttributedString","$string":{"$ref":1},"$runs":[]}"#, "null")
    }

    /// A body the plain view leaves out (an attributed string's run attributes) is written at
    /// the first reference to it instead.
    func testBodyInAPartLeftOutIsPlacedAtItsFirstReference() throws {
        try assertPlain(
            #"[{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":2,"$attributes":{"$class":"Style","$id":4,"k":{"$ref":4}}}]},{"$ref":4},{"$ref":4}]"#,
            #"["ab",{"$class":"Style","$id":1,"k":{"$ref":1}},{"$ref":1}]"#)
    }

    /// Identities are per document: a payload's numbers are its own in the lossless view, and
    /// distinct numbers of the one output in the plain view.
    func testNestedPayloadIdentitiesAreSeparate() throws {
        try assertPlain(
            #"{"$class":"Holder","$id":1,"data":{"$data":{"$keyedArchive":{"$class":"Inner","$id":1,"me":{"$ref":1}}}},"self":{"$ref":1}}"#,
            #"{"$class":"Holder","$id":1,"data":{"$class":"Inner","$id":2,"me":{"$ref":2}},"self":{"$ref":1}}"#)
        // A shared data value holding a payload, written at each reference: the payload's
        // objects are written once, referred to the second time.
        try assertPlain(
            #"[{"$id":5,"$data":{"$keyedArchive":{"$class":"In","$id":1,"x":{"$ref":1}}}},{"$ref":5}]"#,
            #"[{"$class":"In","$id":1,"x":{"$ref":1}},{"$ref":1}]"#)
    }

    private func plainValue(_ lossless: String, _ path: String) throws -> String {
        let document = try JSONDocument(parsing: Array(lossless.utf8))
        var text: [UInt8] = []
        try document.writePlainValue(at: ReadablePath(parsing: path), pretty: false, limit: .max) { text.append(contentsOf: $0) }
        XCTAssertEqual(text.last, UInt8(ascii: "\n"))
        return String(decoding: text.dropLast(), as: UTF8.self)
    }

    /// One value's plain view is whole in itself: a body outside the value that it refers to
    /// is written at the first reference (numbers from 1 again), and the value, reached again
    /// from there, is a reference to itself.
    func testAValueAloneWritesWhatItRefersTo() throws {
        let lossless = #"""
            {"$class":"NSMutableDictionary","$dict":{"a":{"$class":"NSMutableArray","$id":1,"$array":[1,2,{"$ref":3}]},"b":{"$class":"NSMutableArray","$id":3,"$array":[{"$ref":1},{"$ref":1},"x"]},"s":{"$id":4,"$string":"shared"},"t":[{"$ref":4}]}}
            """#
        XCTAssertEqual(try plainValue(lossless, "."), try plain(lossless))
        XCTAssertEqual(try plainValue(lossless, ".a"), #"{"$id":1,"$array":[1,2,{"$id":2,"$array":[{"$ref":1},{"$ref":1},"x"]}]}"#)
        XCTAssertEqual(try plainValue(lossless, ".b"), #"{"$id":1,"$array":[{"$id":2,"$array":[1,2,{"$ref":1}]},{"$ref":2},"x"]}"#)
        XCTAssertEqual(try plainValue(lossless, ".a[0]"), "1")
        XCTAssertEqual(try plainValue(lossless, ".t"), #"["shared"]"#)
        XCTAssertEqual(try plainValue(lossless, ".s"), #""shared""#)
        XCTAssertThrowsError(try plainValue(lossless, ".c"))
        // Inside a nested payload, the payload's identities are the ones named.
        let nested = #"{"$class":"Holder","$id":1,"data":{"$data":{"$keyedArchive":{"$class":"Inner","$id":1,"me":{"$ref":1},"list":[{"$ref":1}]}}},"self":{"$ref":1}}"#
        // (The list holds no identity: inside the body written in it, it is written again.)
        XCTAssertEqual(try plainValue(nested, ".data.list"), #"[{"$class":"Inner","$id":1,"me":{"$ref":1},"list":[{"$ref":1}]}]"#)
        XCTAssertEqual(try plainValue(nested, ".data"), #"{"$class":"Inner","$id":1,"me":{"$ref":1},"list":[{"$ref":1}]}"#)
        // A mutable dictionary whose keys stand in a `$dict` object keeps its identity: it is
        // written once with `$id`, referred to elsewhere, however the value is entered.
        let dictionary = #"{"$class":"NSMutableDictionary","$id":1,"$dict":{"a":1,"$$class":2,"me":{"$ref":1}}}"#
        XCTAssertEqual(try plain(dictionary), #"{"$id":1,"a":1,"$$class":2,"me":{"$ref":1}}"#)
        XCTAssertEqual(try plainValue(dictionary, ".me"), #"{"$id":1,"a":1,"$$class":2,"me":{"$ref":1}}"#)
        XCTAssertEqual(try plainValue(dictionary, ".me.me.a"), "1")
        // A typedstream group is its value in the plain view, as in the whole document's.
        let stream = #"{"$typedstream":[{"i":1},{"@":{"$class":"Box","$classes":[["Box",0]],"$groups":[{"i":7}]}}]}"#
        XCTAssertEqual(try plainValue(stream, ".[0]"), "1")
        XCTAssertEqual(try plainValue(stream, ".[1]"), #"{"$class":"Box","groups":[7]}"#)
        XCTAssertEqual(try plain(stream), #"[1,{"$class":"Box","groups":[7]}]"#)
        // The limit holds for a value as for the whole.
        let document = try JSONDocument(parsing: Array(lossless.utf8))
        XCTAssertThrowsError(try document.writePlainValue(at: ReadablePath(parsing: ".b"), pretty: false, limit: 10) { _ in }) { error in
            XCTAssertEqual((error as? JSONDocument.PathFailure)?.refusal?.kind, .limitExceeded)
        }
    }

    func testRefusals() throws {
        XCTAssertThrowsError(try plain(#"{"$top":{"root":{"$ref":1}},"$table":[{"$id":1,"$array":[]}]}"#)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument)
        }
        XCTAssertThrowsError(try plain(#"[{"$ref":9}]"#)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument)
            XCTAssertEqual((error as? CodecError)?.jsonPath, "$[0]")
        }
    }

    func testOutputLimit() throws {
        let lossless = "[{\"$id\":1,\"$string\":\"\(String(repeating: "x", count: 1000))\"}" + String(repeating: ",{\"$ref\":1}", count: 100) + "]"
        let document = try JSONDocument(parsing: Array(lossless.utf8))
        XCTAssertThrowsError(try PlainView.json(document, pretty: false, limit: 50_000)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded)
        }
        XCTAssertEqual(try PlainView.json(document, pretty: false, limit: 200_000).count, 101 * 1003 + 1)
    }

    /// The working-memory bound counts brackets and `$` signs eight bytes at a time: the same
    /// counts as one byte at a time, whatever the bytes around them.
    func testWorkingBytesCountsEveryBracketAndMarker() {
        var random = SplitMix64(seed: 7)
        for length in [0, 1, 7, 8, 9, 63, 64, 1000] {
            let alphabet: [UInt8] = Array("{[$]}\"a\u{0}".utf8) + [0x7B ^ 0x80, 0xFF, 0x5B &+ 1, 0x24 &- 1]
            let bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let brackets = bytes.filter { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }.count
            let markers = bytes.filter { $0 == UInt8(ascii: "$") }.count
            let expected = brackets * PlainView.perContainer + markers * PlainView.perIdentity + length / 8 + 64 + 3 * PlainView.perFrame
            XCTAssertEqual(bytes.withUnsafeBufferPointer { PlainView.workingBytes(losslessText: $0, depth: 2) }, expected, "\(length)")
        }
    }

    func testPrettyIsIndented() throws {
        XCTAssertEqual(try plain(#"{"$class":"T","a":{"$set":[1]}}"#, pretty: true), "{\n  \"$class\": \"T\",\n  \"a\": [\n    1\n  ]\n}\n")
    }

    /// 100,000 levels: arrays, collections under a class, documents inside data. The walk
    /// keeps its own stack, so this runs on a thread's usual stack (and far smaller ones).
    func testDeepDocumentsAreWalkedWithoutRecursion() throws {
        let depth = 100_000
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        XCTAssertEqual(try plain(arrays), arrays)
        let wrapped = String(repeating: #"{"$class":"NSMutableArray","$array":["#, count: depth) + String(repeating: "]}", count: depth)
        XCTAssertEqual(try plain(wrapped), arrays)
        let payloads = String(repeating: #"{"$data":{"$propertyList":["#, count: depth / 2) + String(repeating: "]}}", count: depth / 2)
        XCTAssertEqual(try plain(payloads), String(repeating: "[", count: depth / 2) + String(repeating: "]", count: depth / 2))
        // A chain of objects, each with an identity, the last referring to the first: numbered
        // as they are reached, which is the order they have.
        let objects = (1...depth).map { #"{"$class":"Node","$id":\#($0),"n":"# }.joined() + #"{"$ref":1}"# + String(repeating: "}", count: depth)
        XCTAssertEqual(try plain(objects), objects)
    }

    /// Linear in the document: many shared objects referred to before their bodies, many
    /// dictionary keys, a long run of nested collections.
    func testScalesLinearly() throws {
        func document(_ count: Int) throws -> JSONDocument {
            var text = "{\"$class\":\"L\",\"refs\":["
            text += (1...count).map { "{\"$ref\":\($0)}" }.joined(separator: ",")
            text += "],\"bodies\":{\"$class\":\"NSMutableArray\",\"$array\":["
            text += (1...count).map { "{\"$class\":\"T\",\"$id\":\($0),\"s\":{\"$id\":\(count + $0),\"$string\":\"s\"},\"t\":{\"$ref\":\(count + $0)}}" }.joined(separator: ",")
            text += "]},\"dict\":{\"$dict\":["
            text += (1...count).map { "[\"k\($0)\",\($0)]" }.joined(separator: ",")
            text += "]},\"deep\":" + String(repeating: "{\"$set\":[", count: count) + String(repeating: "]}", count: count) + "}"
            return try JSONDocument(parsing: Array(text.utf8))
        }
        let result = try ScalingCheck.measure(startingAt: 2_000, maximumSize: 64_000, make: document) {
            _ = try PlainView.json($0, pretty: false)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }
}
