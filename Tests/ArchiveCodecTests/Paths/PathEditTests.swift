import XCTest

@testable import ArchiveCodec

/// `JSONDocument.edited(at:_:)`: one place of the readable JSON changed, found as `get` finds
/// it, everything else left as it was, and no reference left pointing at nothing.
final class PathEditTests: XCTestCase {
    private let save = #"""
        {"$top":{"root":{"$class":"League","teams":{"$class":"NSMutableArray","$array":[{"$class":"Team","$id":1,"name":"Bears"},{"$ref":1},{"$class":"Team","name":"Lions"}]},"byName":{"$class":"NSMutableDictionary","Bears":{"$ref":1},"$$odd":2},"pairs":{"$dict":[[{"$string":"k"},"v"],[3,"three"]]},"empty":[],"none":{}}}}
        """#

    private func edited(_ path: String, _ edit: PathEdit, in json: String? = nil) throws -> String {
        let document = try JSONDocument(parsing: Array((json ?? save).utf8))
        let text = try document.edited(at: ReadablePath(parsing: path), edit)
        // The result is always one JSON document.
        _ = try JSONDocument(parsing: text)
        return String(decoding: text, as: UTF8.self)
    }

    private func set(_ json: String) -> PathEdit { .set(json: Array(json.utf8)) }
    private func insert(_ json: String) -> PathEdit { .insert(json: Array(json.utf8)) }

    private func value(_ json: String, _ path: String) throws -> String {
        let document = try JSONDocument(parsing: Array(json.utf8))
        return String(decoding: try document.valueText(at: ReadablePath(parsing: path)), as: UTF8.self)
    }

    func testSetReplacesOnlyThatPlace() throws {
        let renamed = try edited(".root.teams[2].name", set(#""Tigers""#))
        XCTAssertEqual(renamed, save.replacingOccurrences(of: #""Lions""#, with: #""Tigers""#))
        // Through a reference on the way: the shared object's member changes, for every place.
        let shared = try edited(".root.teams[1].name", set(#""Cubs""#))
        XCTAssertEqual(try value(shared, ".root.teams[0].name"), #""Cubs""#)
        XCTAssertEqual(try value(shared, ".root.byName.Bears.name"), #""Cubs""#)
        // A reference at the place itself is replaced; the object stays for its other places.
        let slot = try edited(".root.teams[1]", set("7"))
        XCTAssertEqual(try value(slot, ".root.teams[1]"), "7")
        XCTAssertEqual(try value(slot, ".root.byName.Bears.name"), #""Bears""#)
        // Data keys (`$$odd`), `$dict` entries, mapping keys.
        XCTAssertEqual(try value(try edited(".root.byName.$odd", set("3")), ".root.byName.$odd"), "3")
        XCTAssertEqual(try value(try edited(".root.pairs.k", set("[1]")), ".root.pairs.k"), "[1]")
        XCTAssertEqual(try value(try edited(".root.$class", set(#""Cup""#)), ".root.$class"), #""Cup""#)
    }

    func testRemoveTakesTheEntryAndItsComma() throws {
        XCTAssertEqual(
            try value(try edited(".root.teams[2]", .remove), ".root.teams"),
            #"{"$class":"NSMutableArray","$array":[{"$class":"Team","$id":1,"name":"Bears"},{"$ref":1}]}"#)
        XCTAssertEqual(try value(try edited(".root.teams[-2]", .remove), ".root.teams.$array[1]"), #"{"$class":"Team","name":"Lions"}"#)
        XCTAssertEqual(try value(try edited(".root.byName.Bears", .remove), ".root.byName"), #"{"$class":"NSMutableDictionary","$$odd":2}"#)
        XCTAssertEqual(try value(try edited(".root.byName.$odd", .remove), ".root.byName"), #"{"$class":"NSMutableDictionary","Bears":{"$ref":1}}"#)
        XCTAssertEqual(try value(try edited(".root.pairs.k", .remove), ".root.pairs"), #"{"$dict":[[3,"three"]]}"#)
        XCTAssertEqual(try value(try edited(".only", .remove, in: #"{"only":1}"#), "."), "{}")
    }

    /// A colour's `$space` labels are the decoder's account of its other members: an edit
    /// leaves out those it did not write (wherever they stand, first or last in their form),
    /// and keeps one its change touches.
    func testAnEditLeavesOutTheColourLabelsItDidNotWrite() throws {
        let colours =
            ##"[{"$class":"NSColor","NSColorSpace":1,"NSRGB":{"$bytes":{"$components":[1,0,0],"$hex":"#FF0000","$space":"calibratedRGB"}}},{"$class":"NSColor","NSColorSpace":3,"NSWhite":{"$data":{"$space":"calibratedWhite","$components":[0.5]}}},{"$class":"Other","$data":{"$space":"kept: not beside $components"}}]"##
        XCTAssertEqual(
            try edited(".[0].NSColorSpace", set("2"), in: colours),
            ##"[{"$class":"NSColor","NSColorSpace":2,"NSRGB":{"$bytes":{"$components":[1,0,0],"$hex":"#FF0000"}}},{"$class":"NSColor","NSColorSpace":3,"NSWhite":{"$data":{"$components":[0.5]}}},{"$class":"Other","$data":{"$space":"kept: not beside $components"}}]"##
        )
        XCTAssertEqual(
            try value(try edited(".[0].NSRGB.$bytes.$space", set(#""deviceRGB""#), in: colours), ".[0].NSRGB"),
            ##"{"$bytes":{"$components":[1,0,0],"$hex":"#FF0000","$space":"deviceRGB"}}"##)
        // Removing the member before it takes the comma the label's removal would: the label
        // stays (the edit changed nothing it is read from).
        XCTAssertEqual(
            try value(try edited(".[0].NSRGB.$bytes.$hex", .remove, in: colours), ".[0].NSRGB"),
            ##"{"$bytes":{"$components":[1,0,0],"$space":"calibratedRGB"}}"##)
        XCTAssertEqual(try value(try edited(".[1]", .remove, in: colours), ".[0].NSRGB"), ##"{"$bytes":{"$components":[1,0,0],"$hex":"#FF0000"}}"##)
    }

    func testInsertBeforeAnElementOrAsANewKey() throws {
        XCTAssertEqual(try value(try edited(".root.teams[0]", insert("0")), ".root.teams.$array[0]"), "0")
        XCTAssertEqual(try value(try edited(".root.teams[3]", insert("9")), ".root.teams.$array[3]"), "9")
        XCTAssertEqual(try value(try edited(".root.teams[-1]", insert("8")), ".root.teams.$array[2]"), "8")
        XCTAssertEqual(try value(try edited(".root.empty[0]", insert(#""a""#)), ".root.empty"), #"["a"]"#)
        XCTAssertEqual(try value(try edited(".root.none.k", insert("1")), ".root.none"), #"{"k":1}"#)
        XCTAssertEqual(try value(try edited(".root.motto", insert(#""Go""#)), ".root.motto"), #""Go""#)
        // A new key that begins with `$` is a data key; a `$dict` gains a pair.
        XCTAssertEqual(try value(try edited(".root.none.$k", insert("1")), ".root.none"), #"{"$$k":1}"#)
        XCTAssertEqual(try value(try edited(".root.pairs.new", insert("2")), ".root.pairs"), #"{"$dict":[[{"$string":"k"},"v"],[3,"three"],["new",2]]}"#)
        XCTAssertThrowsError(try edited(".root.teams[4]", insert("1")))
        XCTAssertThrowsError(try edited(".root.byName.Bears", insert("1"))) { error in
            XCTAssertTrue((error as? JSONDocument.PathFailure)?.description.contains("there already") == true, "\(error)")
        }
    }

    /// A mutable dictionary whose keys stand in a `$dict` object: set, insert and remove
    /// change its members as they would members beside `$class`.
    func testEditsInADictObject() throws {
        let json = #"{"$class":"NSMutableDictionary","$dict":{"a":1,"$$b":2}}"#
        XCTAssertEqual(try edited(".a", set("5"), in: json), #"{"$class":"NSMutableDictionary","$dict":{"a":5,"$$b":2}}"#)
        XCTAssertEqual(try edited(".$b", set("6"), in: json), #"{"$class":"NSMutableDictionary","$dict":{"a":1,"$$b":6}}"#)
        XCTAssertEqual(try edited(".c", insert("7"), in: json), #"{"$class":"NSMutableDictionary","$dict":{"a":1,"$$b":2,"c":7}}"#)
        XCTAssertEqual(try edited(".a", .remove, in: json), #"{"$class":"NSMutableDictionary","$dict":{"$$b":2}}"#)
        XCTAssertThrowsError(try edited(".a", insert("1"), in: json))
        // A data key beginning with `$` in the `$dict` object is the place, not the mapping's key.
        let keys = #"{"$class":"NSMutableDictionary","$dict":{"$$class":2,"$$dict":3}}"#
        XCTAssertEqual(try edited(".$class", set(#""Foo""#), in: keys), #"{"$class":"NSMutableDictionary","$dict":{"$$class":"Foo","$$dict":3}}"#)
        XCTAssertEqual(try edited(".$dict", .remove, in: keys), #"{"$class":"NSMutableDictionary","$dict":{"$$class":2}}"#)
    }

    /// Edits take the places `get` reads: a group's value by a key step through it, a renamed
    /// name only past the wrappers (not an envelope's `$version`).
    func testEditsFollowThePlainViewsPaths() throws {
        let dictionary = #"{"$typedstream":[{"@":{"a":1,"b":2}}]}"#
        XCTAssertEqual(try edited(".a", .remove, in: dictionary), #"{"$typedstream":[{"@":{"b":2}}]}"#)
        XCTAssertEqual(try edited(#".[0]["@"].b"#, set("3"), in: dictionary), #"{"$typedstream":[{"@":{"a":1,"b":3}}]}"#)
        XCTAssertEqual(try edited(#".[0]["@"][1]"#, insert("7"), in: #"{"$typedstream":[{"@":["abc",123]}]}"#), #"{"$typedstream":[{"@":["abc",7,123]}]}"#)
        let envelope = #"{"$version":99999,"$top":{"root":{"version":"v","a":1}}}"#
        XCTAssertEqual(try edited(".version", .remove, in: envelope), #"{"$version":99999,"$top":{"root":{"a":1}}}"#)
        let colour = ##"{"$typedstream":[{"@":{"$class":"NSColor","$space":"calibratedRGB","$components":[0,0,0,1],"$hex":"#000000"}}]}"##
        XCTAssertEqual(try edited(".hex", set(##""#000000""##), in: colour), colour)
    }

    /// A reference names an `$id` of its own document: a nested payload whose numbers repeat
    /// the outer document's is not referred to from outside, and can be changed.
    func testReferencesAreCheckedInTheirOwnDocument() throws {
        let json = #"{"$class":"Holder","$id":1,"name":"outer","data":{"$data":{"$keyedArchive":{"$class":"Inner","$id":1,"me":{"$ref":1}}}},"self":{"$ref":1}}"#
        XCTAssertEqual(try edited(".data", .remove, in: json), #"{"$class":"Holder","$id":1,"name":"outer","self":{"$ref":1}}"#)
        XCTAssertEqual(try edited(".data", set(#""x""#), in: json), #"{"$class":"Holder","$id":1,"name":"outer","data":"x","self":{"$ref":1}}"#)
        // The outer object is still referred to (from `self`): its place is kept.
        let wrapped = #"{"list":[{"$class":"Holder","$id":1,"self":{"$ref":1}},{"$ref":1}],"data":{"$data":{"$keyedArchive":{"$class":"I","x":{"$ref":1},"$id":1}}}}"#
        XCTAssertThrowsError(try edited(".list[0]", .remove, in: wrapped))
        XCTAssertEqual(try edited(".data.x", .remove, in: wrapped), #"{"list":[{"$class":"Holder","$id":1,"self":{"$ref":1}},{"$ref":1}],"data":{"$data":{"$keyedArchive":{"$class":"I","$id":1}}}}"#)
    }

    /// The place that holds a shared object cannot be replaced or removed while others refer
    /// to it; one nobody else refers to can.
    func testASharedObjectsPlaceIsKept() throws {
        for edit in [PathEdit.remove, set("1")] {
            XCTAssertThrowsError(try edited(".root.teams[0]", edit)) { error in
                let text = (error as? JSONDocument.PathFailure)?.description ?? ""
                XCTAssertTrue(text.contains(#""$id": 1"#) && text.contains("2 other places"), text)
            }
        }
        XCTAssertNoThrow(try edited(".root.teams[2]", .remove))
        let alone = #"{"a":[{"$class":"T","$id":4,"self":{"$ref":4}}]}"#
        XCTAssertEqual(try edited(".a[0]", .remove, in: alone), #"{"a":[]}"#)
    }

    func testWhatCannotBeEdited() throws {
        XCTAssertThrowsError(try edited(".", set("1")))
        XCTAssertThrowsError(try edited(".root.nothing", set("1")))
        XCTAssertThrowsError(try edited(".root.teams[9]", .remove))
        XCTAssertThrowsError(try edited(".root.name", set("not json"))) { error in
            XCTAssertTrue((error as? JSONDocument.PathFailure)?.description.contains("not JSON") == true, "\(error)")
        }
    }
}
