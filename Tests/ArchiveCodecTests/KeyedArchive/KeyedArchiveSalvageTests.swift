import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Salvage of keyed archives in the readable view (docs/mapping.md, "Salvage"): real archives
/// damaged at every UID object in turn (each `$top` value, object reference, `$class`,
/// collection element and key), and at their binary plists; each entry or reference that
/// cannot be read marked where it stood, every other value as the whole archive reads.
final class KeyedArchiveSalvageTests: XCTestCase {
    private static let apple = [
        "goios_arrays.bin", "goios_dict.bin", "goios_nsuuid.bin", "goios_XCActivityRecord.bin", "goios_XCTCapabilities.bin",
        "goios_xctestconfiguration.bin", "goios_uint64-key-dictionary.bin", "scl-NSKeyedUnarchiver-ComplexTest.plist"
    ]
    private static let publicArchives = [
        "keyed-archive/bpylist2_circular_archive-synthesized.plist", "keyed-archive/imessage-exporter_payload_data-Game.plist",
        "keyed-archive/plaso_NSKeyedArchiver-pyobjc.plist", "keyed-archive/fq_recentdocs.sfl2"
    ]

    private func files() throws -> [(name: String, bytes: [UInt8])] {
        let files: [(name: String, bytes: [UInt8])] = try Self.apple.map { ($0, try Fixtures.bytes($0)) } + Self.publicArchives.map { ($0, try Fixtures.publicFile($0)) }
        for file in files { XCTAssertTrue(file.bytes.starts(with: "bplist".utf8), file.name) }
        return files
    }

    /// Every UID object given a value past `$objects`, in turn: the reference is marked at its
    /// offset at each of its places (a `$class` marks its instance, a key its dictionary, at
    /// the entry's offset); a plain root marked is refused as without salvage.
    func testEveryUIDPastObjectsIsMarked() throws {
        var salvagedTotal = 0
        // Damage a shared object or reference reaches: marked at each place, counted once.
        var sharedMarked = 0
        for (name, bytes) in try files() {
            let whole = try Archive(parsing: bytes).json(view: .readable, pretty: false)
            let plist = try BinaryPlist(bytes: bytes)
            let uids = plist.withView { view in
                (0..<plist.objectCount).compactMap { ref -> (ref: Int, offset: Int, start: Int, width: Int)? in
                    let header = view.header(of: ref)
                    return header.kind == .uid ? (ref, view.offset(of: ref), header.start, header.count) : nil
                }
            }
            var salvaged = 0
            for uid in uids {
                var damaged = bytes
                for index in 0..<uid.width { damaged[uid.start + index] = 0xFF }
                let label = "\(name) UID object \(uid.ref) at \(uid.offset)"
                let expected = Set([uid.offset] + entriesUsing(uid.ref, plist))
                guard (try? Archive(parsing: damaged)) == nil else { continue }
                if (try? Archive(parsing: damaged, salvaging: true)) == nil {
                    try checkRefusedAsWithoutSalvage(damaged, label)
                    continue
                }
                try checkSalvage(damaged, whole: whole, expectedOffsets: expected, label)
                let archive = try Archive(parsing: damaged, salvaging: true)
                if try BrokenMarks.find(in: try archive.json(view: .readable, pretty: false)).count > archive.breaks { sharedMarked += 1 }
                salvaged += 1
            }
            // A plain root's own UIDs mark the root: nothing else would be read (goios_nsuuid.bin).
            XCTAssertTrue(salvaged > 0 || name == "goios_nsuuid.bin", name)
            salvagedTotal += salvaged
        }
        XCTAssertGreaterThan(salvagedTotal, 100)
        XCTAssertGreaterThan(sharedMarked, 0)
    }

    /// Every class entry's `$classname` renamed to a key a class has not: each instance is
    /// marked at its offset, counted once however many places reference it.
    func testEveryClassEntryWithoutAClassNameMarksItsInstances() throws {
        for (name, bytes) in try files() {
            let whole = try Archive(parsing: bytes).json(view: .readable, pretty: false)
            let plist = try BinaryPlist(bytes: bytes)
            // The `$classname` key objects: "$classname" made "$classnamf".
            let keys = plist.withView { view in
                (0..<plist.objectCount).filter { view.isString($0, equalTo: "$classname") }.map { view.header(of: $0).start }
            }
            XCTAssertFalse(keys.isEmpty, name)
            for start in keys {
                var damaged = bytes
                damaged[start + 9] = UInt8(ascii: "f")
                let label = "\(name) $classname at \(start)"
                guard (try? Archive(parsing: damaged, salvaging: true)) != nil else {
                    try checkRefusedAsWithoutSalvage(damaged, label)
                    continue
                }
                let instances = Set(instanceOffsets(plist))
                try checkSalvage(damaged, whole: whole, expectedOffsets: instances, label)
            }
        }
    }

    /// A dictionary whose `NS.keys` and `NS.objects` differ in count is marked at its entry.
    func testADictionaryWithUnequalListsIsMarked() throws {
        let bytes = try Fixtures.bytes("goios_dict.bin")
        let whole = try Archive(parsing: bytes).json(view: .readable, pretty: false)
        let plist = try BinaryPlist(bytes: bytes)
        // NS.keys' array shortened by one (its count in its marker).
        let (arrayOffset, dictionaryOffset) = plist.withView { view -> (Int, Int) in
            for ref in 0..<plist.objectCount {
                let header = view.header(of: ref)
                guard header.kind == .dict, let keys = view.value(in: header, forKey: "NS.keys") else { continue }
                return (view.offset(of: keys), view.offset(of: ref))
            }
            return (-1, -1)
        }
        var damaged = bytes
        XCTAssertEqual(damaged[arrayOffset] & 0xF0, 0xA0)
        damaged[arrayOffset] -= 1
        XCTAssertThrowsError(try Archive(parsing: damaged))
        try checkSalvage(damaged, whole: whole, expectedOffsets: [dictionaryOffset], "goios_dict.bin NS.keys")
    }

    /// A dictionary written in the generic form (`NS.keys` holding a value that is no UID) one
    /// of whose list elements is broken is marked whole: leaving the element out would leave
    /// its lists of unequal counts, which no archive holds.
    func testAGenericDictionaryWithABrokenElementIsMarkedWhole() throws {
        let json = #"{"$top": {"d": {"$class": "NSDictionary", "NS.keys": {"$inline": ["k", 2]}, "NS.objects": {"$inline": ["x", "y"]}}, "n": 1}}"#
        let bytes = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let whole = try Archive(parsing: bytes).json(view: .readable, pretty: false)
        XCTAssertTrue(String(decoding: whole, as: UTF8.self).contains(#""NS.objects":{"$inline":["x","y"]}"#), String(decoding: whole, as: UTF8.self))
        let plist = try BinaryPlist(bytes: bytes)
        // The UID object naming the entry "y", made to name entry 255.
        let (uidStart, dictionaryOffset) = plist.withView { view -> (Int, Int) in
            var found = (-1, -1)
            for ref in 0..<plist.objectCount {
                let header = view.header(of: ref)
                guard header.kind == .dict, let values = view.value(in: header, forKey: "NS.objects") else { continue }
                let list = view.header(of: values)
                found = (view.header(of: view.childRef(list, 1)).start, view.offset(of: ref))
            }
            return found
        }
        var damaged = bytes
        damaged[uidStart] = 0xFF
        try checkSalvage(damaged, whole: whole, expectedOffsets: [dictionaryOffset], "generic dictionary")
        let marked = String(decoding: try Archive(parsing: damaged, salvaging: true).json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(marked.hasPrefix(#"{"$top":{"d":{"$broken":{"offset":\#(dictionaryOffset),"reason":"element 1 of NS.objects of dictionary object"#), marked)
    }

    /// Damage to an archive's binary plist (what the raw view salvaged alone) is marked in the
    /// readable view too: every offset table entry set past the object area in turn.
    func testBinaryPlistDamageIsMarkedInTheReadableView() throws {
        var salvagedTotal = 0
        for (name, bytes) in try files() {
            let whole = try Archive(parsing: bytes).json(view: .readable, pretty: false)
            let trailer = try BinaryPlist.readTrailer(bytes)
            let plist = try BinaryPlist(bytes: bytes)
            for ref in 0..<trailer.objectCount {
                var damaged = bytes
                let entry = trailer.offsetTableStart + ref * trailer.offsetSize
                for index in 0..<trailer.offsetSize { damaged[entry + index] = 0xFF }
                let label = "\(name) entry \(ref)"
                guard (try? Archive(parsing: damaged, salvaging: true)) != nil else {
                    try checkRefusedAsWithoutSalvage(damaged, label)
                    continue
                }
                // The entry's own mark, or (a key, a class's text) the mark of what holds it,
                // or where the entry now points when that is inside the file.
                let pointed = Int(BinaryPlist.readBigEndian(damaged, at: entry, size: trailer.offsetSize))
                let objects = plist.withView { view in (0..<plist.objectCount).map { view.offset(of: $0) } }
                try checkSalvage(damaged, whole: whole, expectedOffsets: Set([entry, pointed] + objects), label)
                salvagedTotal += 1
            }
        }
        XCTAssertGreaterThan(salvagedTotal, 50)
    }

    /// An XML archive has no byte offsets: its marks say −1 and keep no bytes.
    func testAnXMLArchiveIsMarkedWithoutOffsets() throws {
        let bytes = try Fixtures.bytes("goios_dict.xml")
        let text = String(decoding: bytes, as: UTF8.self)
        // The first <integer> inside a CF$UID dictionary made past $objects.
        let range = try XCTUnwrap(text.range(of: "<key>CF$UID</key>\n\t\t\t\t<integer>"))
        let after = text[range.upperBound...]
        let end = try XCTUnwrap(after.firstIndex(of: "<"))
        let damaged = Array((text[..<range.upperBound] + "9999" + after[end...]).utf8)
        XCTAssertThrowsError(try Archive(parsing: damaged))
        let archive = try Archive(parsing: damaged, salvaging: true)
        XCTAssertEqual(archive.breaks, 1)
        let marks = try BrokenMarks.find(in: try archive.json(view: .readable, pretty: false))
        XCTAssertFalse(marks.isEmpty)
        for mark in marks {
            XCTAssertEqual(mark.offset, -1)
            XCTAssertTrue(mark.rest.isEmpty)
            XCTAssertTrue(mark.reason.contains("UID 9999"), mark.reason)
        }
    }

    /// Pretty text holds the same marks, indented as the place they stand at.
    func testPrettyTextHoldsTheSameDocument() throws {
        let bytes = try Fixtures.bytes("goios_arrays.bin")
        let plist = try BinaryPlist(bytes: bytes)
        let start = plist.withView { view in (0..<plist.objectCount).map { view.header(of: $0) }.last { $0.kind == .uid }!.start }
        var damaged = bytes
        damaged[start] = 0xFF
        let archive = try Archive(parsing: damaged, salvaging: true)
        let compact = try JSONSerialization.jsonObject(with: Data(try archive.json(view: .readable, pretty: false))) as? NSObject
        let prettyText = try archive.json(view: .readable, pretty: true)
        let pretty = try JSONSerialization.jsonObject(with: Data(prettyText)) as? NSObject
        XCTAssertEqual(compact, pretty)
        XCTAssertTrue(String(decoding: prettyText, as: UTF8.self).contains("\"$broken\": {\n"), String(decoding: prettyText, as: UTF8.self))
    }

    /// A whole archive reads the same with salvage or without, and a broken one is refused
    /// word for word as before without it.
    func testWithoutSalvageNothingChanges() throws {
        for (name, bytes) in try files() {
            let archive = try Archive(parsing: bytes, salvaging: true)
            XCTAssertEqual(archive.breaks, 0, name)
            XCTAssertEqual(try archive.json(view: .readable, pretty: false), try Archive(parsing: bytes).json(view: .readable, pretty: false), name)
        }
    }

    /// A time zone or calendar date one of whose references is broken is written in the
    /// generic form, its mark one archived key's value: left out, the rest encodes (the form's
    /// members stand together, so a form missing one would be refused).
    func testAValueFormWithABrokenReferenceIsGeneric() throws {
        let names = [
            "keyed-archive/scl-macOS1014_DateIntervalFormatter-ValuesSetWithTemplate.archive", "keyed-archive/scl-macOS1014_ISO8601DateFormatter-OptionsSet.archive",
            "apple:scl-macOS1014_NSMutableAttributedString.archive"
        ]
        var damagedForms = 0
        for name in names {
            let bytes = name.hasPrefix("apple:") ? try Fixtures.bytes(String(name.dropFirst(6))) : try Fixtures.publicFile(name)
            let plist = try BinaryPlist(bytes: bytes)
            // The UID objects NS.name, NS.data, NS.format and NS.timezone hold.
            let starts = plist.withView { view in
                (0..<plist.objectCount).flatMap { ref -> [Int] in
                    let header = view.header(of: ref)
                    guard header.kind == .dict else { return [] }
                    let keys: [StaticString] = ["NS.name", "NS.data", "NS.format", "NS.timezone", "NSString", "NSAttributes", "NSAttributeInfo"]
                    return keys.compactMap { key in
                        view.value(in: header, forKey: key).map { view.header(of: $0) }.flatMap { $0.kind == .uid ? $0.start : nil }
                    }
                }
            }
            for start in Set(starts) {
                var damaged = bytes
                damaged[start] = 0xFF
                let label = "\(name) UID at \(start)"
                guard let archive = try? Archive(parsing: damaged, salvaging: true) else { continue }
                let document = try JSONDocument(parsing: try archive.json(view: .readable, pretty: false))
                let back = try document.droppingBroken().archive(format: .binary)
                XCTAssertEqual(try Archive(parsing: back).breaks, 0, label)
                damagedForms += 1
            }
        }
        XCTAssertGreaterThan(damagedForms, 2)
    }

    // MARK: Placeholder text

    /// A placeholder's nonce is the first candidate the input holds after `~brk~` in no
    /// encoding: the first 63 planted (ASCII, big- and little-endian UTF-16 in turn) leave the
    /// 64th; all 64 planted leave none (refused, not guessed). Near misses rule nothing out.
    func testTheNonceIsOneTheInputDoesNotHold() {
        let candidates = BrokenToken.candidates
        XCTAssertEqual(BrokenToken.nonce(absentFrom: Array("plain bytes ~brk~ ~brk".utf8)), BrokenToken.spelled(candidates[0]))
        func planted(_ count: Int) -> [UInt8] {
            var bytes: [UInt8] = Array("head".utf8)
            for index in 0..<count {
                let text = Array("~brk~".utf8) + BrokenToken.spelled(candidates[index]) + Array("~00000001".utf8)
                switch index % 3 {
                case 0: bytes += text
                case 1: bytes += text.flatMap { [0, $0] }
                default: bytes += text.flatMap { [$0, 0] }
                }
                bytes.append(UInt8(ascii: "x"))
            }
            return bytes
        }
        XCTAssertEqual(BrokenToken.nonce(absentFrom: planted(1)), BrokenToken.spelled(candidates[1]))
        XCTAssertEqual(BrokenToken.nonce(absentFrom: planted(63)), BrokenToken.spelled(candidates[63]))
        XCTAssertNil(BrokenToken.nonce(absentFrom: planted(64)))
        // A nonce at the very end of the input is read; one cut short, in capitals or with a
        // digit changed is not the nonce.
        XCTAssertEqual(BrokenToken.nonce(absentFrom: Array(("~brk~" + String(decoding: BrokenToken.spelled(candidates[0]), as: UTF8.self)).utf8)), BrokenToken.spelled(candidates[1]))
        let first = String(decoding: BrokenToken.spelled(candidates[0]), as: UTF8.self)
        for miss in ["~brk~" + first.dropLast(), "~brk~" + first.uppercased(), "~brk~0" + first.dropFirst(), "~brk" + first] where miss != "~brk~" + first {
            XCTAssertEqual(BrokenToken.nonce(absentFrom: Array(miss.utf8)), BrokenToken.spelled(candidates[0]), miss)
        }
    }

    /// An archive whose own string is the text the first placeholder would have: the string
    /// reads as itself and the damage is marked once, with the next nonce.
    func testAStringThatSpellsAPlaceholderReadsAsItself() throws {
        let planted = "~brk~" + String(decoding: BrokenToken.spelled(BrokenToken.candidates[0]), as: UTF8.self) + "~00000000"
        let json = #"{"$top":{"root":[""# + planted + #"",{"$class":"NSMutableArray","$array":[1,2]}]}}"#
        let bytes = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let plist = try BinaryPlist(bytes: bytes)
        let start = plist.withView { view in (0..<plist.objectCount).map { view.header(of: $0) }.last { $0.kind == .uid }!.start }
        var damaged = bytes
        damaged[start] = 0xFF
        let archive = try Archive(parsing: damaged, salvaging: true)
        XCTAssertEqual(archive.breaks, 1)
        let text = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(text.contains("\"" + planted + "\""), text)
        XCTAssertEqual(text.components(separatedBy: "\"$broken\"").count, 2, text)
    }

    // MARK: Checks

    /// The offsets of the entries that use UID object `ref` as their `$class` or as a key in
    /// `NS.keys`: where the damage of that object is marked instead of at itself.
    private func entriesUsing(_ ref: Int, _ plist: BinaryPlist) -> [Int] {
        plist.withView { view in
            (0..<plist.objectCount).filter { entry in
                let header = view.header(of: entry)
                guard header.kind == .dict else { return false }
                if view.value(in: header, forKey: "$class") == ref { return true }
                guard let keys = view.value(in: header, forKey: "NS.keys") else { return false }
                let list = view.header(of: keys)
                return list.kind == .array && (0..<list.count).contains { view.childRef(list, $0) == ref }
            }.map { view.offset(of: $0) }
        }
    }

    private func instanceOffsets(_ plist: BinaryPlist) -> [Int] {
        plist.withView { view in
            (0..<plist.objectCount).filter { view.header(of: $0).kind == .dict && view.value(in: view.header(of: $0), forKey: "$class") != nil }.map { view.offset(of: $0) }
        }
    }

    private func checkRefusedAsWithoutSalvage(_ damaged: [UInt8], _ label: String) throws {
        var strict: CodecError?
        var salvaged: CodecError?
        do { _ = try Archive(parsing: damaged) } catch { strict = error }
        do { _ = try Archive(parsing: damaged, salvaging: true) } catch { salvaged = error }
        XCTAssertNotNil(strict, label)
        XCTAssertEqual(salvaged?.message, strict?.message, label)
        XCTAssertEqual(salvaged?.byteOffset, strict?.byteOffset, label)
    }

    /// The salvaged decode of `damaged`: valid JSON, each counted mark at one of the expected
    /// offsets, every other value as `whole` has it (shared objects compared through their
    /// `$id`s, wherever their bodies stand); encode refuses it, and leaving the marks out
    /// writes an archive that reads whole and encodes again to the same bytes.
    private func checkSalvage(_ damaged: [UInt8], whole: [UInt8], expectedOffsets: Set<Int>, _ label: String) throws {
        XCTAssertThrowsError(try Archive(parsing: damaged), label)
        let archive = try Archive(parsing: damaged, salvaging: true)
        XCTAssertGreaterThan(archive.breaks, 0, label)
        let json = try archive.json(view: .readable, pretty: false)
        XCTAssertFalse(String(decoding: json, as: UTF8.self).contains("~brk~"), label)
        let marks = try BrokenMarks.find(in: json)
        XCTAssertFalse(marks.isEmpty, label)
        XCTAssertEqual(Set(marks.map { "\($0.offset) \($0.reason)" }).count, archive.breaks, label)
        for mark in marks {
            XCTAssertTrue(expectedOffsets.contains(mark.offset), "\(label): mark at \(mark.offset) (\(mark.reason)), expected one of \(expectedOffsets.sorted())")
            XCTAssertEqual(Array(mark.rest.prefix(1)), Array(damaged[mark.offset..<(mark.offset + 1)]), label)
        }
        try checkSameOutsideMarks(json, whole, label)
        try checkEncode(json, label)
    }

    private func checkEncode(_ json: [UInt8], _ label: String) throws {
        let document = try JSONDocument(parsing: json)
        XCTAssertThrowsError(try document.archive(format: .binary), label) { error in
            XCTAssertEqual((error as? CodecError)?.remedy, .dropBroken, label)
        }
        let dropped = try document.droppingBroken()
        XCTAssertFalse(String(decoding: dropped.source, as: UTF8.self).contains("$broken"), label)
        let written: [UInt8]
        do {
            written = try dropped.archive(format: .binary)
        } catch {
            XCTFail("\(label): \(error) writing \(String(decoding: dropped.source, as: UTF8.self)) from \(String(decoding: json, as: UTF8.self))")
            return
        }
        let again = try Archive(parsing: written)
        XCTAssertEqual(again.breaks, 0, label)
        let text = try again.json(view: .readable, pretty: false)
        XCTAssertFalse(String(decoding: text, as: UTF8.self).contains("$broken"), label)
        XCTAssertEqual(try JSONDocument(parsing: text).archive(format: .binary), written, label)
    }

    /// Every value of `salvaged` that is not a mark is the value `whole` has at its place.
    /// `$ref`s are followed to their bodies (a body may stand elsewhere once a place holding
    /// it is marked) and `$id` numbers are left aside (they count the objects placed before).
    private func checkSameOutsideMarks(_ salvaged: [UInt8], _ whole: [UInt8], _ label: String) throws {
        let options: JSONSerialization.ReadingOptions = [.fragmentsAllowed]
        let left = try JSONSerialization.jsonObject(with: Data(salvaged), options: options)
        let right = try JSONSerialization.jsonObject(with: Data(whole), options: options)
        func bodies(_ root: Any) -> [Int: [String: Any]] {
            var found: [Int: [String: Any]] = [:]
            var pending = [root]
            while let value = pending.popLast() {
                if let object = value as? [String: Any] {
                    if let id = object["$id"] as? Int { found[id] = object }
                    pending += Array(object.values)
                } else if let array = value as? [Any] {
                    pending += array
                }
            }
            return found
        }
        let (leftBodies, rightBodies) = (bodies(left), bodies(right))
        var compared = Set<String>()
        func resolve(_ value: Any, _ bodies: [Int: [String: Any]]) -> (Any, Int?) {
            guard let object = value as? [String: Any], object.count == 1, let id = object["$ref"] as? Int, let body = bodies[id] else { return (value, nil) }
            return (body, id)
        }
        func normal(_ value: Any) -> Any {
            guard var object = value as? [String: Any] else { return value }
            object["$id"] = nil
            if object.count == 1, let scalar = object["$string"] ?? object["$number"] { return scalar }
            return object
        }
        func same(_ left: Any, _ right: Any, _ path: String) {
            if let object = left as? [String: Any], object["$broken"] != nil || object.values.contains(where: { ($0 as? [String: Any])?["$broken"] != nil }) && !(right is [String: Any]) {
                return
            }
            let (leftValue, leftID) = resolve(left, leftBodies)
            let (rightValue, rightID) = resolve(right, rightBodies)
            if leftID != nil || rightID != nil {
                guard compared.insert("\(leftID ?? -1) \(rightID ?? -1)").inserted else { return }
            }
            switch (normal(leftValue), normal(rightValue)) {
            case (let left as [String: Any], let right as [String: Any]):
                // An object holding a mark is written in the generic form (its readable form
                // would pass off what was read as the whole): its other members compare.
                let holdsMark = left.values.contains { value in
                    guard let member = value as? [String: Any] else { return false }
                    return member["$broken"] != nil || ((member["$inline"] as? [Any])?.contains { ($0 as? [String: Any])?["$broken"] != nil } ?? false)
                }
                if !holdsMark { XCTAssertEqual(Set(left.keys), Set(right.keys), "\(label) at \(path)") }
                for (key, value) in left { if let other = right[key] { same(value, other, path + "." + key) } }
            case (let left as [Any], let right as [Any]):
                XCTAssertEqual(left.count, right.count, "\(label) at \(path)")
                for (index, (value, other)) in zip(left, right).enumerated() { same(value, other, "\(path)[\(index)]") }
            case (let left, let right):
                XCTAssertEqual(left as? NSObject, right as? NSObject, "\(label) at \(path)")
            }
        }
        same(left, right, "$")
    }
}
