import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

final class ReadablePathTests: XCTestCase {
    private func steps(_ text: String) throws -> [ReadablePath.Step] { try ReadablePath(parsing: text).steps }

    func testPathsReadAsJqWritesThem() throws {
        XCTAssertEqual(try steps("."), [])
        XCTAssertEqual(try steps(".teams[1].name"), [.key("teams"), .index(1), .key("name")])
        XCTAssertEqual(try steps(#"."key with spaces".x"#), [.key("key with spaces"), .key("x")])
        XCTAssertEqual(try steps(#".["a.b"][-1]"#), [.key("a.b"), .index(-1)])
        XCTAssertEqual(try steps(#"[0]."q\"uote""#), [.index(0), .key(#"q"uote"#)])
        XCTAssertEqual(try steps(".$class"), [.key("$class")])
        for wrong in ["", "x", ".a.", ".a..b", ".a[", ".a[x]", #"."open"#, ".a]"] {
            XCTAssertThrowsError(try ReadablePath(parsing: wrong), wrong)
        }
        XCTAssertEqual(try ReadablePath(parsing: #".teams[1]."a b""#).description, #".teams[1]."a b""#)
        // Keys that are not identifiers are quoted as JSON strings, which jq and the parser read back.
        let odd = ReadablePath(steps: [.key("café"), .key("0"), .key("tab\tand \"quote\""), .key("$class"), .key("_x1")])
        XCTAssertEqual(odd.description, #"."café"."0"."tab\tand \"quote\"".$class._x1"#)
        XCTAssertEqual(try ReadablePath(parsing: odd.description), odd)
        XCTAssertEqual(try steps(#"."\u00e9\ud83d\ude00\/\n""#), [.key("é😀/\n")])
        for wrong in [#"."\q""#, #"."\u12""#, #"."\ud83d\u0041""#, #"."\udc00""#] {
            XCTAssertThrowsError(try ReadablePath(parsing: wrong), wrong)
        }
    }

    private func lookup(_ json: String, _ path: String) throws -> String {
        let document = try JSONDocument(parsing: Array(json.utf8))
        return String(decoding: try document.valueText(at: try ReadablePath(parsing: path)), as: UTF8.self)
    }

    /// Steps go through the mapping's wrappers and follow references; the text is the value's.
    func testStepsGoThroughWrappersAndReferences() throws {
        let save = #"""
            {"$top":{"root":{"$class":"League","teams":{"$class":"NSMutableArray","$array":[{"$class":"Team","$id":1,"name":"Bears"},{"$ref":1}]},
            "byName":{"$class":"NSMutableDictionary","Bears":{"$ref":1},"$$odd":2},
            "pairs":{"$dict":[[{"$string":"k"},"v"],[3,"three"]]},
            "tags":{"$set":["a","b"]},
            "payload":{"$data":{"$keyedArchive":{"inner":[10,20]}}},
            "colour":{"$bytes":{"$components":[0.5,1],"$hex":"#80FF"}}}}}
            """#
        XCTAssertEqual(try lookup(save, ".root.teams[0].name"), #""Bears""#)
        XCTAssertEqual(try lookup(save, ".root.teams[1].name"), #""Bears""#)
        XCTAssertEqual(try lookup(save, ".root.teams[-1]"), #"{"$class":"Team","$id":1,"name":"Bears"}"#)
        XCTAssertEqual(try lookup(save, ".root.byName.Bears.name"), #""Bears""#)
        XCTAssertEqual(try lookup(save, ".root.byName.$odd"), "2")
        XCTAssertEqual(try lookup(save, ".root.byName.$class"), #""NSMutableDictionary""#)
        XCTAssertEqual(try lookup(save, ".root.pairs.k"), #""v""#)
        XCTAssertEqual(try lookup(save, ".root.tags[1]"), #""b""#)
        XCTAssertEqual(try lookup(save, ".root.payload.inner[1]"), "20")
        XCTAssertEqual(try lookup(save, ".root.colour.$hex"), ##""#80FF""##)
        XCTAssertEqual(try lookup(save, "."), save)
    }

    /// An envelope whose `$top` holds one root under a key other than `root` (Apple's
    /// `goios_dict.bin`): a step the envelope and `$top` do not have goes on in that root, as
    /// the plain view shows the document; the key still names it. With several roots, only
    /// their keys do.
    func testOneRootUnderAnotherKeyIsGoneThrough() throws {
        let one = #"{"$top":{"$$0":{"int":1,"array":{"$class":"NSMutableArray","$array":[true,"Hello"]}}}}"#
        XCTAssertEqual(try lookup(one, ".array[1]"), #""Hello""#)
        XCTAssertEqual(try lookup(one, ".int"), "1")
        XCTAssertEqual(try lookup(one, #"."$0".int"#), "1")
        let two = #"{"$top":{"$$0":{"int":1},"$$1":{"int":2}}}"#
        XCTAssertThrowsError(try lookup(two, ".int"))
        XCTAssertEqual(try lookup(two, #"."$1".int"#), "2")
    }

    /// A typedstream's groups are gone through as the plain view writes them: one group is the
    /// document's value, a group taken from several is its value; a member the plain view
    /// renames (`hex` for `$hex`) is found by that name too, where no data key has it.
    func testPlainViewPathsOfTypedStreams() throws {
        let one = #"{"$typedstream":[{"@":{"key":123}}]}"#
        XCTAssertEqual(try lookup(one, ".key"), "123")
        let several = ##"{"$typedstream":[{"i":1},{"@":{"$class":"NSColor","$space":"calibratedRGB","$components":[0,0,0,1],"$hex":"#000000"}}]}"##
        XCTAssertEqual(try lookup(several, ".[0]"), #"{"i":1}"#)
        XCTAssertEqual(try lookup(several, ".[1].hex"), ##""#000000""##)
        XCTAssertEqual(try lookup(several, ".[1].components[3]"), "1")
        XCTAssertEqual(try lookup(several, ".[1].$space"), #""calibratedRGB""#)
        XCTAssertThrowsError(try lookup(several, ".key"))
        XCTAssertEqual(try lookup(several, ".$typedstream[1].$class"), #""NSColor""#)
        // Index steps index the groups as they stand (`.[0]` is the first group, as compare's
        // places name it), whatever the one group holds; key steps go through it.
        let array = #"{"$typedstream":[{"@":["abc",123,0.5]}]}"#
        XCTAssertEqual(try lookup(array, ".[0]"), #"{"@":["abc",123,0.5]}"#)
        XCTAssertEqual(try lookup(array, #".[0]["@"][1]"#), "123")
        XCTAssertThrowsError(try lookup(array, ".[1]"))
        XCTAssertEqual(try lookup(array, #".$typedstream[0]["@"][1]"#), "123")
        XCTAssertEqual(try lookup(one, ".[0]"), #"{"@":{"key":123}}"#)
        XCTAssertEqual(try lookup(one, #".[0]["@"].key"#), "123")
        // A renamed name is looked for only past the wrappers: an envelope's `$version` is not
        // the root's `version`.
        let envelope = #"{"$version":99999,"$top":{"root":{"version":"v-in-root"}}}"#
        XCTAssertEqual(try lookup(envelope, ".version"), #""v-in-root""#)
        // A data key of the plain name wins over the renamed member.
        XCTAssertEqual(try lookup(##"{"$class":"T","$hex":"#000000","hex":5}"##, ".hex"), "5")
    }

    /// A `$ref` names an `$id` of the document it stands in: a nested payload's identities are
    /// its own, whatever numbers the document around it uses.
    func testReferencesNameTheirOwnDocumentsIdentities() throws {
        let json = #"""
            {"$class":"Holder","$id":1,"name":"outer","data":{"$data":{"$keyedArchive":{"$class":"Inner","$id":1,"name":"inner","me":{"$ref":1}}}},"self":{"$ref":1},
            "list":{"$data":{"$propertyList":[{"$id":1,"$string":"listed"},{"$ref":1}]}}}
            """#
        XCTAssertEqual(try lookup(json, ".self.name"), #""outer""#)
        XCTAssertEqual(try lookup(json, ".data.me.name"), #""inner""#)
        XCTAssertEqual(try lookup(json, ".data.$data.$keyedArchive.me.name"), #""inner""#)
        XCTAssertEqual(try lookup(json, ".list[1]"), #"{"$id":1,"$string":"listed"}"#)
        XCTAssertEqual(try lookup(json, ".self.data.me.me.name"), #""inner""#)
    }

    /// A mutable dictionary's string keys may stand in a `$dict` object beside `$class` (the
    /// form the decoder writes when its entries' order asks for it): a key step looks into it
    /// as into the members, `$$` keys included; `$dict` pairs are still found by their key.
    func testStepsGoThroughADictObject() throws {
        let json = #"""
            {"$class":"NSMutableDictionary","$dict":{"a":{"$class":"NSMutableArray","$id":1,"$array":[1,{"$ref":2}]},"b":{"$class":"NSMutableArray","$id":2,"$array":[{"$ref":1},"x"]},"$$c":3}}
            """#
        XCTAssertEqual(try lookup(json, ".a[0]"), "1")
        XCTAssertEqual(try lookup(json, ".a[1][1]"), #""x""#)
        XCTAssertEqual(try lookup(json, ".b[0][1][0]"), #"{"$class":"NSMutableArray","$id":1,"$array":[1,{"$ref":2}]}"#)
        XCTAssertEqual(try lookup(json, ".$c"), "3")
        XCTAssertEqual(try lookup(json, ".$class"), #""NSMutableDictionary""#)
        // A data key beginning with `$` in the `$dict` object wins over the mapping's own key.
        let keys = #"{"$class":"NSMutableDictionary","$id":1,"$dict":{"a":1,"$$class":2,"$$dict":3,"me":{"$ref":1}}}"#
        XCTAssertEqual(try lookup(keys, ".$class"), "2")
        XCTAssertEqual(try lookup(keys, ".$dict"), "3")
        XCTAssertEqual(try lookup(keys, ".me.me.a"), "1")
        XCTAssertThrowsError(try lookup(json, ".d"))
        // A `$dict` that is neither pairs nor an object is no wrapper.
        XCTAssertThrowsError(try lookup(#"{"$dict":"a"}"#, ".a"))
    }

    /// A key step takes the data key written `$$…` before the mapping's own key, and either
    /// before a `$dict` pair, wherever each stands among the members.
    func testAKeyStepPrefersADataKeyThenTheMappingKeyThenADictPair() throws {
        for members in [
            #""$$kind":"data","$kind":"mapping","$dict":[["$kind","pair"],["only","pair"]]"#,
            #""$dict":[["$kind","pair"],["only","pair"]],"$kind":"mapping","$$kind":"data""#
        ] {
            XCTAssertEqual(try lookup("{\(members)}", ".$kind"), #""data""#, members)
            XCTAssertEqual(try lookup("{\(members)}", ".only"), #""pair""#, members)
        }
        XCTAssertEqual(try lookup(#"{"$dict":[["$kind","pair"]],"$kind":"mapping"}"#, ".$kind"), #""mapping""#)
        XCTAssertEqual(try lookup(#"{"$dict":[["$kind","pair"]]}"#, ".$kind"), #""pair""#)
        XCTAssertEqual(try lookup(#"{"$dict":[["x","pair"]],"x":"member"}"#, ".x"), #""member""#)
    }

    func testAPathThatLeadsNowhereSaysHowFarItGot() throws {
        let json = #"{"a":{"$array":[1,2]},"s":"text","r":{"$ref":9}}"#
        let cases = [
            (".a[5]", "no value at .a[5]: .a holds 2 elements"),
            (".b", #"no value at .b: . has no key "b""#),
            (".s.x", "no value at .s.x: .s is a string"),
            (".a.x", "no value at .a.x: .a is an array: index it with [n]"),
            (".r", #".r is {"$ref": 9}, and no object has "$id": 9"#)
        ]
        for (path, message) in cases {
            XCTAssertThrowsError(try lookup(json, path), path) { error in
                XCTAssertEqual((error as? JSONDocument.PathFailure)?.description, message, path)
            }
        }
    }

    func testDataBytes() throws {
        let document = try JSONDocument(parsing: Array(#"{"d":{"$data":"AAEC"},"t":{"$text":"hi"},"n":5,"list":{"$array":[{"$data":"/w=="}]}}"#.utf8))
        XCTAssertEqual(try document.dataBytes(at: ReadablePath(parsing: ".d")), [0, 1, 2])
        XCTAssertEqual(try document.dataBytes(at: ReadablePath(parsing: ".t")), Array("hi".utf8))
        XCTAssertEqual(try document.dataBytes(at: ReadablePath(parsing: ".list[0]")), [0xFF])
        XCTAssertNil(try document.dataBytes(at: ReadablePath(parsing: ".n")))
    }

    func testRawStrings() throws {
        let document = try JSONDocument(parsing: Array(#"{"a":"tab\there","b":{"$class":"NSMutableString","$string":"x"},"c":1}"#.utf8))
        XCTAssertEqual(try document.stringText(at: ReadablePath(parsing: ".a")), Array("tab\there".utf8))
        XCTAssertEqual(try document.stringText(at: ReadablePath(parsing: ".b")), Array("x".utf8))
        XCTAssertNil(try document.stringText(at: ReadablePath(parsing: ".c")))
    }

    /// A wrapper key is one look through the object: the first of the mapping's wrapper keys in
    /// their order wins wherever it stands, an escaped spelling counts as the key, and a `$data`
    /// or `$bytes` that holds base64 text is no wrapper.
    func testWrappersAreFoundInOneLook() throws {
        XCTAssertEqual(try lookup(#"{"x":{"$class":"C","$set":[7],"$array":[5]}}"#, ".x[0]"), "5")
        XCTAssertEqual(try lookup(#"{"x":{"\u0024array":[5]}}"#, ".x[0]"), "5")
        XCTAssertEqual(try lookup(#"{"x":{"$data":"AAEC","$bytes":{"$components":[1,2]}}}"#, ".x.$components[1]"), "2")
        XCTAssertThrowsError(try lookup(#"{"x":{"$data":"AAEC"}}"#, ".x[0]"))
    }

    /// The archive `.a[n].back[n].back…` walks: `a` holds n elements and the last refers back to
    /// `a`, so each step of the path looks through all of them again.
    private func cycle(elements: Int, rounds: Int) throws -> (JSONDocument, ReadablePath) {
        var json = #"{"a":{"$id":1,"$array":["#
        json += String(repeating: "0,", count: elements - 1)
        json += #"{"back":{"$ref":1}}]}}"#
        let round = "[\(elements - 1)].back"
        let path = try ReadablePath(parsing: ".a" + String(repeating: round, count: rounds))
        return (try JSONDocument(parsing: Array(json.utf8)), path)
    }

    /// A path that goes round `$ref`s through a large array is refused once it has looked
    /// through more than a few times the document's values, as over a limit; a path that comes
    /// round a few times is answered.
    func testAPathGoingRoundReferencesIsBounded() throws {
        let (document, short) = try cycle(elements: 1_000, rounds: 3)
        // The `$ref` at the path's end is followed: `a` itself.
        XCTAssertTrue(String(decoding: try document.valueText(at: short), as: UTF8.self).hasPrefix(#"{"$id":1,"$array":[0,0,"#))
        let (_, long) = try cycle(elements: 1_000, rounds: 1_000)
        XCTAssertThrowsError(try document.valueText(at: long)) { error in
            let failure = error as? JSONDocument.PathFailure
            XCTAssertEqual(failure?.refusal?.kind, .limitExceeded, "\(error)")
            XCTAssertEqual(failure?.refusal?.limit, JSONDocument.PathWalk.stepsPerValue * (document.valueCount + 1))
        }
        // An edit follows the path as a lookup does.
        XCTAssertThrowsError(try document.edited(at: long, .remove)) { error in
            XCTAssertEqual((error as? JSONDocument.PathFailure)?.refusal?.kind, .limitExceeded, "\(error)")
        }
    }

    /// The path's length and the array's size grow together: unbounded, the walk is their
    /// product.
    func testAPathGoingRoundReferencesIsLinear() throws {
        let result = try ScalingCheck.measure(startingAt: 1_000, maximumSize: 64_000) { size in
            try cycle(elements: size, rounds: size / 4)
        } run: { (document, path) in
            _ = try? document.valueText(at: path)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }

    /// The walk reads the thread's deadline: a passed one stops it as a refusal.
    func testAPathWalkStopsAtTheDeadline() throws {
        let (document, long) = try cycle(elements: 10_000, rounds: 4)
        XCTAssertThrowsError(try ConversionDeadline.run(seconds: 0) { () throws(JSONDocument.PathFailure) in try document.valueText(at: long) }) { error in
            XCTAssertEqual((error as? JSONDocument.PathFailure)?.refusal?.kind, .timedOut, "\(error)")
        }
    }
}
