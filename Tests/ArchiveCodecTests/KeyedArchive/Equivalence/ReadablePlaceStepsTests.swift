import TestSupport
import XCTest

@testable import ArchiveCodec

/// `ReadablePlaceSteps` names places as the readable writer lays bodies out: both take a body's
/// key from `ReadableShape`. These tests walk the JSON the writer wrote beside the archive, body
/// by body, and check the place steps against it: the first step into each body is the key the
/// writer opened it with (or none for a bare body or an instance's members), and the steps to
/// each child lead to that child's body.
final class ReadablePlaceStepsTests: XCTestCase {
    typealias Label = EquivalenceChecker.Label

    /// What a walk of one archive checked.
    private struct Checked {
        var forms: Set<ObjectForm> = []
        var bodies = 0
        var wrappers: Set<String> = []
    }

    /// The key a body opens with, as written: its first member past `$class`, `$classes`,
    /// `$classhints` and `$id` when that is one of the mapping's keys; nil for an array, or for
    /// an object whose members are data keys.
    private func writtenKey(_ body: TestJSON) -> String? {
        guard case .object(let members) = body else { return nil }
        let meta = [MappingKeys.className, MappingKeys.classes, MappingKeys.classHints, MappingKeys.identity].map { String(describing: $0) }
        guard let first = members.first(where: { !meta.contains($0.key) }) else { return nil }
        let isMappingKey = Array(first.key.utf8).withUnsafeBufferPointer { MappingKeys.isMappingKey($0) }
        return isMappingKey ? first.key : nil
    }

    /// The value `steps` lead to from `value` (nil: they lead nowhere).
    private func follow(_ steps: [DocumentPath.Step], from value: TestJSON) -> TestJSON? {
        var current = value
        for step in steps {
            switch step {
            case .member(let key):
                guard let next = current[key] else { return nil }
                current = next
            case .index(let index):
                guard let items = current.elements, index < items.count else { return nil }
                current = items[index]
            case .anchor: return nil
            }
        }
        return current
    }

    /// Every UID in plist object `ref` (an entry's own, or an inline container in it), with the
    /// labels that lead to it; `$class` is left out.
    private func references(in ref: Int, _ archive: KeyedArchive, _ view: BinaryPlistView, labels: [Label] = []) -> [(labels: [Label], uid: Int)] {
        let header = view.header(of: ref)
        var found: [(labels: [Label], uid: Int)] = []
        guard header.kind == .dict || header.kind == .array else { return [] }
        let values = header.kind == .dict ? header.count : 0
        for position in 0..<header.count {
            let label: Label
            if header.kind == .dict {
                let key = view.childRef(header, position)
                if archive.classKeys.contains(key) { continue }
                label = .key(view.text(of: key) ?? "")
            } else {
                label = .index(position)
            }
            let child = view.childRef(header, values + position)
            let childHeader = view.header(of: child)
            if childHeader.kind == .uid {
                found.append((labels + [label], Int(view.uid(childHeader))))
            } else {
                found += references(in: child, archive, view, labels: labels + [label])
            }
        }
        return found
    }

    /// Walks the readable JSON of `archive` from the bodies written with `$id` and from the
    /// root, checking each body reached against the place steps.
    private func check(_ archive: KeyedArchive, name: String) throws -> Checked {
        let placement = archive.defaultPlacement()
        let document = TestJSON.parse(try archive.render(view: .readable, placement: placement, pretty: false, sink: nil))
        var checked = Checked()
        archive.plist.withView { view in
            let places = ReadablePlaceSteps(archive: archive, view: view, placement: placement)
            var byWrittenID: [Int: Int] = [:]
            for uid in 0..<archive.objectCount where placement.carriesID[uid] { byWrittenID[placement.writtenID(of: uid)] = uid }
            var pending: [(uid: Int, body: TestJSON)] = []
            // The bodies written with `$id`.
            var values = [document]
            while let value = values.popLast() {
                switch value {
                case .object(let members):
                    if let id = value[String(describing: MappingKeys.identity)]?.integer, let uid = byWrittenID[id], !archive.forms[uid].isScalar {
                        pending.append((uid, value))
                    }
                    values += members.map(\.value)
                case .array(let items): values += items
                default: break
                }
            }
            // The root's body: the document, or what `$top` holds.
            if placement.envelope {
                for (labels, uid) in references(in: archive.topRef, archive, view) {
                    guard case .key(let key) = labels[0] else { continue }
                    let (steps, _) = places.translate([.top(key)] + labels.dropFirst(), in: nil)
                    if let body = follow(steps, from: document), !archive.forms[uid].isScalar, uid != 0, !placement.carriesID[uid] { pending.append((uid, body)) }
                }
            } else {
                pending.append((places.rootUID, document))
            }
            let folds = archive.attributedRuns
            while let (uid, body) = pending.popLast() {
                // A folded attributed string and its parts are written as runs, not as bodies.
                if !folds.isEmpty, folds.index(of: uid) != nil || folds.index(ofPart: uid) != nil { continue }
                let form = archive.forms[uid]
                checked.forms.insert(form)
                checked.bodies += 1
                let first = places.translate([], in: uid).0.first
                // A decimal, calendar date or time zone holds its members in its body, as an
                // instance does: its first `$` key is one of them, not a content key.
                let expected = [ObjectForm.decimal, .calendarDate, .timeZone].contains(form) ? nil : writtenKey(body)
                XCTAssertEqual(first, expected.map { DocumentPath.Step.member($0) }, "\(name): entry \(uid) (\(form)) opens with \(expected ?? "no key")")
                if let expected { checked.wrappers.insert(expected) }
                for (labels, child) in references(in: archive.entryRef(uid, view), archive, view) {
                    guard child != 0, !archive.forms[child].isScalar, !placement.carriesID[child] else { continue }
                    let (steps, _) = places.translate(labels, in: uid)
                    guard let childBody = follow(steps, from: body) else {
                        XCTFail("\(name): the steps \(DocumentPath(steps)) from entry \(uid) (\(form)) lead nowhere")
                        continue
                    }
                    pending.append((child, childBody))
                }
            }
        }
        return checked
    }

    /// Every body of every keyed fixture: each form met opens as its places say.
    func testEveryBodyOfTheFixturesOpensWithItsFirstStep() throws {
        var forms: Set<ObjectForm> = []
        var bodies = 0
        for (name, _, archive) in Fixtures.archives() {
            let checked = try check(archive, name: name)
            forms.formUnion(checked.forms)
            bodies += checked.bodies
        }
        XCTAssertGreaterThan(bodies, 100)
        for form in [ObjectForm.array, .set, .orderedSet, .stringKeyDictionary, .date, .uuid, .generic] {
            XCTAssertTrue(forms.contains(form), "no \(form) body in the fixtures")
        }
    }

    /// A document with every form, bare and wrapped, some shared (written with `$id`).
    func testEveryFormOpensWithItsFirstStep() throws {
        let document = """
            {"array": [1, "two", {"$id": 1, "$array": [7]}, {"$ref": 1}], "mutable": {"$class": "NSMutableArray", "$array": [3]}, "set": {"$set": [4]},
             "ordered": {"$orderedSet": ["p", "q", "r"]}, "pairs": {"$dict": [[5, "five"]]},
             "wrappedDict": {"$class": "NSMutableDictionary", "$dict": {"k": 6}}, "shared": {"$id": 2, "$dict": {"k": [8]}}, "again": {"$ref": 2},
             "team": {"$class": "Team", "wins": 7, "name": "Bears", "raw": {"$inline": [8, {"x": 9}]}},
             "uuid": {"$uuid": "54CD5574-E957-4499-8A09-DAB688C0B586"}, "date": {"$date": "2001-01-01T00:00:00Z"},
             "text": {"$class": "NSMutableString", "$string": "m"}, "bytes": {"$class": "NSMutableData", "$data": "AAEC"},
             "plain": {"$plist": {"a": 1}}, "plainArray": {"$plist": [1, 2]}}
            """
        let archive = try KeyedArchive(parsing: try JSONDocument(parsing: Array(document.utf8)).archive(format: .binary))
        let checked = try check(archive, name: "every form")
        XCTAssertEqual(
            checked.forms,
            [.array, .set, .orderedSet, .stringKeyDictionary, .pairDictionary, .mutableString, .classData, .date, .uuid, .generic, .rawDict, .rawArray])
        XCTAssertEqual(checked.wrappers, ["$array", "$set", "$orderedSet", "$dict", "$string", "$data", "$date", "$uuid", "$plist"])
    }
}
