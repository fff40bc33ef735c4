import XCTest

@testable import ArchiveCodec

/// A difference is named in the first document's readable JSON (docs/archive-tool.md,
/// "compare"): a path through its keys and `$id`s, both values shown short.
final class DocumentDifferenceTests: XCTestCase {
    private func encode(_ json: String) throws -> [UInt8] {
        try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
    }

    /// Where the documents `a` and `b` (JSON) differ, the first one's decoded JSON beside it.
    private func difference(_ a: String, _ b: String) throws -> (text: String?, decoded: String) {
        let (x, y) = (try Archive(parsing: encode(a)), try Archive(parsing: encode(b)))
        return (x.difference(from: y), String(decoding: try x.json(view: .readable, pretty: false), as: UTF8.self))
    }

    /// The `$id` the readable view writes for the object that holds `member` (`"name":"Bears"`).
    private func writtenID(in decoded: String, before member: String) throws -> String {
        let object = try XCTUnwrap(decoded.range(of: member)).lowerBound
        let id = try XCTUnwrap(decoded[..<object].ranges(of: /"\$id":(\d+)/).last)
        return String(decoded[id].dropFirst(6))
    }

    func testPlacesFromTheRoot() throws {
        XCTAssertEqual(try difference(#"{"name":"Bears","wins":3}"#, #"{"name":"Lions","wins":3}"#).text, #".name: "Bears" ≠ "Lions""#)
        XCTAssertEqual(try difference(#"{"name":"Bears","wins":3}"#, #"{"name":"Bears","wins":4}"#).text, ".wins: 3 ≠ 4")
        XCTAssertEqual(
            try difference(#"{"$class":"NSMutableArray","$array":[1,2,3]}"#, #"{"$class":"NSMutableArray","$array":[1,5,3]}"#).text, ".$array[1]: 2 ≠ 5")
        XCTAssertEqual(try difference(#"[1,[2,{"x":true}]]"#, #"[1,[2,{"x":false}]]"#).text, ".[1][1].x: true ≠ false")
        XCTAssertEqual(
            try difference(#"{"$class":"Record","play":{"$bytes":"JAAE"}}"#, #"{"$class":"Record","play":{"$bytes":"JAAF"}}"#).text,
            #".play: {"$bytes": "JAAE"} ≠ {"$bytes": "JAAF"}"#)
        // An inline container inside another is `{"$inline": …}` again; a JSON array there is an NSArray.
        let inline = #"{"$class":"T","n":{"$inline":[1,{"$inline":[2]},[4]]}}"#
        XCTAssertEqual(try difference(inline, inline.replacingOccurrences(of: "[2]", with: "[3]")).text, ".n.$inline[1].$inline[0]: 2 ≠ 3")
        XCTAssertEqual(try difference(inline, inline.replacingOccurrences(of: "[4]", with: "[5]")).text, ".n.$inline[2][0]: 4 ≠ 5")
        XCTAssertEqual(try difference(#"{"a":1,"b":2}"#, #"{"b":2,"a":1}"#).text, #".a: key "a" ≠ key "b""#)
        XCTAssertEqual(try difference(#"{"$$odd":1,"NS.rgb":2}"#, #"{"$$odd":1,"NS.rgb":3}"#).text, #".["NS.rgb"]: 2 ≠ 3"#)
        XCTAssertEqual(try difference(#"{"$$odd":1}"#, #"{"$$odd":2}"#).text, ".$$odd: 1 ≠ 2")
        XCTAssertNil(try difference(#"{"a":[1,2]}"#, #"{"a":[1,2]}"#).text)
    }

    func testPlacesInTheEnvelopeAndDeepChains() throws {
        let envelope = #"{"$top":{"$$0":{"a":[1,2]},"x":{"$class":"N","v":1}}}"#
        XCTAssertEqual(try difference(envelope, envelope.replacingOccurrences(of: "[1,2]", with: "[1,3]")).text, ".$top.$$0.a[1]: 2 ≠ 3")
        XCTAssertEqual(
            try difference(envelope, envelope.replacingOccurrences(of: #""x":"#, with: #""y":"#)).text, #".$top: keys "x" only in the first; keys "y" only in the second"#)
        // An unshared chain nests as deep as it is long: the path keeps its ends.
        func chain(_ last: Int) -> String { String(repeating: #"{"$class":"Node","next":"#, count: 60) + "\(last)" + String(repeating: "}", count: 60) }
        let deep = try XCTUnwrap(try difference(chain(1), chain(2)).text)
        XCTAssertEqual(deep, String(repeating: ".next", count: 12) + " …(12 steps)… " + String(repeating: ".next", count: 36) + ": 1 ≠ 2")
    }

    /// Inside an attributed string read as text in runs: its text and each run's attributes.
    func testPlacesInAttributedStringRuns() throws {
        let runs = #"{"$class":"NSAttributedString","$string":"abc","$runs":[{"$length":1,"$attributes":{"f":1}},{"$length":1,"$attributes":{"f":2}},{"$length":1,"$attributesOf":0}]}"#
        XCTAssertEqual(try difference(runs, runs.replacingOccurrences(of: #""f":2"#, with: #""f":3"#)).text, ".$runs[1].$attributes.f: 2 ≠ 3")
        XCTAssertEqual(try difference(runs, runs.replacingOccurrences(of: "abc", with: "abd")).text, #".$string: "abc" ≠ "abd""#)
        let one = #"{"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":2,"$attributes":{"f":1}}]}"#
        XCTAssertEqual(try difference(one, one.replacingOccurrences(of: #""f":1"#, with: #""f":4"#)).text, ".$runs[0].$attributes.f: 1 ≠ 4")
    }

    /// Below a shared object the path starts at its `$id`, the number the view writes.
    func testPlacesBelowASharedObjectStartAtItsID() throws {
        let a = #"{"$class":"League","teams":[{"$class":"Team","$id":"t","name":"Bears"}],"best":{"$ref":"t"}}"#
        let b = a.replacingOccurrences(of: "Bears", with: "Lions")
        let (text, decoded) = try difference(a, b)
        XCTAssertEqual(text, "$id \(try writtenID(in: decoded, before: #""name":"Bears""#)) .name: \"Bears\" ≠ \"Lions\"")
    }

    func testStructureAndClassesInWords() throws {
        XCTAssertEqual(try difference(#"{"a":[1,2,3]}"#, #"{"a":[1,2]}"#).text, ".a: 3 elements ≠ 2")
        XCTAssertEqual(try difference(#"{"$class":"T","a":1}"#, #"{"$class":"T","b":1}"#).text, #".: keys "a" only in the first; keys "b" only in the second"#)
        XCTAssertEqual(try difference(#"{"x":{"$class":"A"}}"#, #"{"x":{"$class":"B"}}"#).text, #".x: {"$class": "A", …} ≠ {"$class": "B", …}"#)
        XCTAssertEqual(try difference(#"{"x":null}"#, #"{"x":{"$class":"B"}}"#).text, #".x: null ≠ {"$class": "B", …}"#)
        XCTAssertEqual(try difference(#"{"x":"1"}"#, #"{"x":1}"#).text, #".x: "1" ≠ 1"#)
        // Equal strings are one entry: a value edited where it was shared differs as a value.
        XCTAssertEqual(try difference(#"{"a":"hello","b":"hello"}"#, #"{"a":"hello","b":"bye"}"#).text, #".b: "hello" ≠ "bye""#)
        XCTAssertEqual(
            try difference(#"{"a":"x","b":{"$id":8,"$string":"x"}}"#, #"{"a":"x","b":"x"}"#).text, #".b: "x" ≠ "x" (equal values, shared in one archive and not in the other)"#)
        let shared = #"{"$class":"P","a":{"$class":"N","$id":1},"b":{"$ref":1}}"#
        let copies = #"{"$class":"P","a":{"$class":"N"},"b":{"$class":"N"}}"#
        XCTAssertTrue(try XCTUnwrap(difference(shared, copies).text).contains("≠ another object (the second does not share it here)"))
        XCTAssertEqual(try XCTUnwrap(difference(copies, shared).text), (".b: an object of its own ≠ the object at .a (the second shares it here)"))
    }

    /// Long text is cut around where the two differ.
    func testLongValuesAreCutAroundTheDifference() throws {
        let long = String(repeating: "abcdefghij", count: 10)
        let other = String(long.prefix(60)) + "X" + String(long.dropFirst(61))
        let text = try XCTUnwrap(try difference(#"{"s":"\#(long)"}"#, #"{"s":"\#(other)"}"#).text)
        XCTAssertEqual(text, #".s: "…ijabcdefghijabcdefghijabcdefghijabcdefgh…" ≠ "…ijabcdefghijXbcdefghijabcdefghijabcdefgh…""#)
    }

    func testPlainPropertyListPaths() throws {
        let a = #"{"$propertyList":{"a":[1,{"b":"x","$$c":{"$data":"AAAA"}}]}}"#
        XCTAssertEqual(try difference(a, a.replacingOccurrences(of: #""x""#, with: #""y""#)).text, #".$propertyList.a[1].b: "x" ≠ "y""#)
        XCTAssertEqual(try difference(a, a.replacingOccurrences(of: "AAAA", with: "AAAB")).text, #".$propertyList.a[1].$$c: {"$data": "AAAA"} ≠ {"$data": "AAAB"}"#)
        XCTAssertEqual(try difference(a, a.replacingOccurrences(of: "[1,", with: "[2,")).text, ".$propertyList.a[0]: 1 ≠ 2")
    }

    func testTypedStreamPaths() throws {
        let a = #"{"$typedstream":[{"i":1},{"@":{"$class":"NSMutableArray","$array":["one",{"k":"two"}]}}]}"#
        XCTAssertEqual(try difference(a, a.replacingOccurrences(of: "two", with: "три")).text, #".$typedstream[1].@.$array[1].k: "two" ≠ "три""#)
        XCTAssertEqual(try difference(a, a.replacingOccurrences(of: #"{"i":1}"#, with: #"{"i":2}"#)).text, ".$typedstream[0].i: 1 ≠ 2")
    }

    /// The path goes on inside a nested payload, as `decode --nested` writes it.
    func testPathsGoOnInsidePayloads() throws {
        func holding(_ payload: String) throws -> String {
            var base64: [UInt8] = []
            try encode(payload).withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
            return #"{"$propertyList":{"blob":{"$data":""# + String(decoding: base64, as: UTF8.self) + #""}}}"#
        }
        let text = try difference(holding(#"{"$class":"Pair","x":1}"#), holding(#"{"$class":"Pair","x":2}"#)).text
        XCTAssertEqual(text, ".$propertyList.blob.$data.$keyedArchive.x: 1 ≠ 2")
    }

    func testPathNotation() {
        XCTAssertEqual(DocumentPath().description, ".")
        XCTAssertEqual(DocumentPath([.index(2), .member("a b"), .member("$id")]).description, #".[2]["a b"].$id"#)
        XCTAssertEqual(DocumentPath([.anchor(47), .member("home"), .member("0")]).description, #"$id 47 .home["0"]"#)
        XCTAssertEqual(DocumentPath([.member("x"), .member("$data"), .member("$keyedArchive"), .anchor(5), .index(1)]).description, ".x.$data.$keyedArchive $id 5 .[1]")
        let deep = DocumentPath(Array(repeating: .member("next"), count: 1_000))
        XCTAssertEqual(deep.description, String(repeating: ".next", count: 12) + " …(952 steps)… " + String(repeating: ".next", count: 36))
    }
}
