import XCTest

@testable import ArchiveCodec

/// `ReadableShape` is the one description of the readable view's layout: these tests read it
/// directly, form by form, for an archive encoded from a document that holds every form.
final class ReadableShapeTests: XCTestCase {
    private static let document = """
        {"array": [1, "two"], "mutable": {"$class": "NSMutableArray", "$array": [3]}, "set": {"$set": [4]},
         "ordered": {"$orderedSet": ["p", "q", "r"]}, "pairs": {"$dict": [[5, "five"]]},
         "wrappedDict": {"$class": "NSMutableDictionary", "$dict": {"k": 6}},
         "team": {"$class": "Team", "wins": 7, "name": "Bears", "raw": {"$inline": [8, {"x": 9}]}},
         "uuid": {"$uuid": "54CD5574-E957-4499-8A09-DAB688C0B586"}, "plain": {"$plist": {"a": 1}}}
        """

    /// The root's children by key: each child's value UID.
    private func withShape(_ body: (ReadableShape, [String: Int]) throws -> Void) throws {
        let bytes = try JSONDocument(parsing: Array(Self.document.utf8)).archive(format: .binary)
        let archive = try KeyedArchive(parsing: bytes)
        try archive.plist.withView { view in
            let shape = ReadableShape(archive: archive, view: view)
            let top = view.header(of: archive.topRef)
            let root = view.uidValue(of: view.childRef(top, 1))
            let layout = shape.layout(of: root, carriesID: false)
            XCTAssertEqual(layout.opening, .bare)
            XCTAssertEqual(layout.children.walk, .keyedReferences)
            XCTAssertTrue(layout.containerIsObject)
            var byKey: [String: Int] = [:]
            for position in 0..<layout.children.count {
                let child = try XCTUnwrap(shape.child(layout.children, at: position))
                XCTAssertEqual(child.role, .reference)
                let key = String(decoding: view.payload(view.header(of: child.key)), as: UTF8.self)
                byKey[key] = view.uidValue(of: child.value)
            }
            try body(shape, byKey)
        }
    }

    func testEachFormHasItsLayout() throws {
        try withShape { shape, uid in
            let expected: [(String, BodyLayout.Opening, ChildList.Walk, Int, DefaultClass)] = [
                ("array", .bare, .references, 2, .array),
                ("mutable", .wrapped, .references, 1, .array),
                ("set", .wrapped, .references, 1, .set),
                ("ordered", .wrapped, .ordered, 3, .orderedSet),
                ("pairs", .wrapped, .pairs, 2, .dictionary),
                ("wrappedDict", .wrapped, .keyedReferences, 1, .dictionary),
                ("team", .members, .objectMembers, 4, .none),
                ("uuid", .value, .references, 0, .uuid),
                ("plain", .plist, .inlineMembers, 1, .none)
            ]
            for (key, opening, walk, count, defaultClass) in expected {
                let layout = shape.layout(of: try XCTUnwrap(uid[key], key), carriesID: false)
                XCTAssertEqual(layout.opening, opening, key)
                XCTAssertEqual(layout.children.walk, walk, key)
                XCTAssertEqual(layout.children.count, count, key)
                XCTAssertEqual(layout.defaultClass, defaultClass, key)
            }
        }
    }

    /// With `$id` a bare array or dictionary takes its wrapper; the levels and closings follow.
    func testCarryingAnIDWrapsABareCollection() throws {
        try withShape { shape, uid in
            let array = try XCTUnwrap(uid["array"])
            XCTAssertTrue(shape.wrapsWhenCarryingID(array))
            XCTAssertEqual(shape.layout(of: array, carriesID: true).opening, .wrapped)
            XCTAssertEqual(shape.layout(of: array, carriesID: true).wrapperKey.description, "$array")
            XCTAssertEqual(shape.layout(of: array, carriesID: false).childLevel, 1)
            XCTAssertEqual(shape.layout(of: array, carriesID: true).childLevel, 2)
            XCTAssertEqual(shape.layout(of: array, carriesID: false).closing, [.array])
            XCTAssertEqual(shape.layout(of: array, carriesID: true).closing, [.array, .wrapper])
            XCTAssertFalse(shape.wrapsWhenCarryingID(try XCTUnwrap(uid["mutable"])))
            let pairs = shape.layout(of: try XCTUnwrap(uid["pairs"]), carriesID: false)
            XCTAssertEqual(pairs.childLevel, 3)
            XCTAssertEqual(pairs.wrapperKey.description, "$dict")
            XCTAssertEqual(shape.layout(of: try XCTUnwrap(uid["team"]), carriesID: false).closing, [.wrapper])
            XCTAssertEqual(shape.layout(of: try XCTUnwrap(uid["plain"]), carriesID: false).closing, [.object, .wrapper])
        }
    }

    /// An instance's members leave `$class` out and are keyed values; pairs alternate key and
    /// value; an ordered set's children come in index order.
    func testChildrenComeInDocumentOrder() throws {
        try withShape { shape, uid in
            let view = shape.view
            let team = shape.layout(of: try XCTUnwrap(uid["team"]), carriesID: false).children
            let members = (0..<team.count).compactMap { shape.child(team, at: $0) }
            XCTAssertEqual(members.count, 3, "$class is left out")
            XCTAssertTrue(members.allSatisfy { $0.role == .keyedValue && $0.key >= 0 })
            let forms = members.map { shape.keyedValueForm(view.header(of: $0.value)) }
            XCTAssertEqual(forms.filter { $0 == .number }.count, 1)
            XCTAssertEqual(forms.filter { $0 == .reference }.count, 1)
            XCTAssertEqual(forms.filter { $0 == .inline }.count, 1)

            let pairs = shape.layout(of: try XCTUnwrap(uid["pairs"]), carriesID: false).children
            let pairChildren = (0..<pairs.count).map { shape.child(pairs, at: $0)! }
            XCTAssertTrue(pairChildren.allSatisfy { $0.key == -1 && $0.role == .reference })
            XCTAssertEqual(shape.forms[view.uidValue(of: pairChildren[0].value)], .integer)
            XCTAssertEqual(shape.forms[view.uidValue(of: pairChildren[1].value)], .string)

            let ordered = shape.layout(of: try XCTUnwrap(uid["ordered"]), carriesID: false).children
            let values = ReadableShape.orderedSetValues(ordered, view)
            let texts = (0..<ordered.count).map { position -> String in
                let entry = view.uidValue(of: shape.orderedChild(values, at: position).value)
                return String(decoding: view.payload(view.header(at: Int(shape.archive.entryOffsets[entry]))), as: UTF8.self)
            }
            XCTAssertEqual(texts, ["p", "q", "r"])
        }
    }

    /// The envelope's `$top` entries are `topValue`s, each with its key.
    func testTopEntries() throws {
        try withShape { shape, _ in
            let top = shape.topChildren()
            XCTAssertEqual(top.walk, .topEntries)
            XCTAssertEqual(top.count, 1)
            let root = try XCTUnwrap(shape.child(top, at: 0))
            XCTAssertEqual(root.role, .topValue)
            XCTAssertEqual(String(decoding: shape.view.payload(shape.view.header(of: root.key)), as: UTF8.self), "root")
        }
    }
}
