import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The plain view of whole documents, through `Archive` (the path `archive-tool decode
/// --plain` and `/v1/decode?view=plain` take): every format, nested payloads, and the plain
/// view read back by `encode` as hand-written JSON.
final class PlainViewArchiveTests: XCTestCase {
    private func plain(_ bytes: [UInt8], nested: Bool = false) throws -> String {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plainViewPlan(nested: nested ? DecodePolicy(depthLimit: .max) : nil)
        let collector = Collector()
        try archive.writePlainJSON(pretty: false, plan: plan) { collector.bytes.append(contentsOf: $0) }
        return String(decoding: collector.bytes, as: UTF8.self)
    }

    private final class Collector {
        var bytes: [UInt8] = []
    }

    func testKeyedArchive() throws {
        XCTAssertEqual(
            try plain(Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")),
            #"{"array":[null,"hello",34545,{"key":"val"}],"string":"hello","url":{"base":"https://www.swift.org","relative":"index.xml"},"uuid":"71DC068E-3420-45FF-919E-3A267D55EC22"}"#
        )
        // One `$top` key that is not `root`: the document is still its value.
        XCTAssertEqual(try plain(Fixtures.bytes("goios_dict.bin")), #"{"int":1,"string":"string","array":[true,"Hello, World!",42]}"#)
        XCTAssertEqual(String(decoding: try Archive(parsing: Fixtures.bytes("goios_dict.bin")).plainJSON(pretty: false), as: UTF8.self), try plain(Fixtures.bytes("goios_dict.bin")))
    }

    func testTypedStream() throws {
        XCTAssertEqual(try plain(Fixtures.typedStream("imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin")), #""Test 3""#)
        XCTAssertEqual(try plain(Fixtures.typedStream("uetchy-typedstream_NSArchiver-NSDictionary.bin")), #"{"key":123}"#)
        XCTAssertEqual(
            try plain(Fixtures.typedStream("mac-setup_nvALT-NoteBodyFont.bin")), #"{"$class":"NSFont","version":30,"name":"InconsolataLGC","size":13.0,"flags":[0,1,0,0]}"#)
    }

    func testPlainPropertyList() throws {
        XCTAssertEqual(
            try plain(Fixtures.publicFile("plain-plist/imessage-exporter_message_summary_info-Deleted.plist")), #"{"amc":0,"ust":true,"otr":{"0":{"lo":0,"le":13}},"rp":[0]}"#)
    }

    /// With nested payloads, a Terminal theme's colours are their plain view in place; without,
    /// their bytes as base64.
    func testNestedPayloads() throws {
        let theme = try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let nested = try plain(theme, nested: true)
        XCTAssertTrue(nested.hasPrefix(#"{"ANSIBlackColor":{"$class":"NSColor","NSRGB":[0.1764705882,0.1960784314,0.2549019608],"NSColorSpace":1},"#), nested)
        XCTAssertFalse(nested.contains("\"$data\""))
        let bytes = try plain(theme)
        XCTAssertTrue(bytes.hasPrefix(#"{"ANSIBlackColor":"YnBsaXN0MDDU"#), bytes)
    }

    /// No `$` key but `$class`, `$id`, `$ref` (and `$array` beside `$id`) in the plain view of any
    /// fixture; data keys that begin with `$` keep their `$$`.
    func testOnlyIdentityAndClassKeysRemain() throws {
        let names =
            Fixtures.names().map { "apple/" + $0 } + Fixtures.publicNames("typedstream").map { "public/" + $0 }
            + Fixtures.publicNames("plain-plist-with-nested-archive").map { "public/" + $0 } + Fixtures.publicNames("keyed-archive").map { "public/" + $0 }
        var checked = 0
        for name in names {
            let bytes = try Array(Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
            guard (try? Archive(parsing: bytes).json(view: .readable, pretty: false)) != nil else { continue }
            let text = try plain(bytes, nested: true)
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            var keys = Set<String>()
            collectKeys(object, into: &keys)
            let marked = keys.filter { $0.hasPrefix("$") && !$0.hasPrefix("$$") }
            XCTAssertTrue(marked.isSubset(of: ["$class", "$id", "$ref", "$array"]), "\(name): \(marked.sorted())")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 50)
    }

    private func collectKeys(_ value: Any, into keys: inout Set<String>) {
        var pending: [Any] = [value]
        while let next = pending.popLast() {
            if let object = next as? [String: Any] {
                keys.formUnion(object.keys)
                pending.append(contentsOf: object.values)
            } else if let array = next as? [Any] {
                pending.append(contentsOf: array)
            }
        }
    }

    /// `encode` reads the plain view as hand-written JSON, and what it writes reads back as the
    /// same graph: the plain view of the encoded archive encodes to an equivalent archive
    /// (classes, values, shared objects and cycles; bodies may stand elsewhere, as placement puts
    /// them closest to the root of the new graph). Checked on every fixture that decodes.
    func testPlainViewEncodesBackToTheSameGraph() throws {
        let names =
            Fixtures.names().map { "apple/" + $0 } + Fixtures.publicNames("typedstream").map { "public/" + $0 }
            + Fixtures.publicNames("plain-plist").map { "public/" + $0 } + Fixtures.publicNames("keyed-archive").map { "public/" + $0 }
        var checked = 0
        for name in names {
            let bytes = try Array(Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
            guard (try? Archive(parsing: bytes).json(view: .readable, pretty: false)) != nil else { continue }
            let encoded = try JSONDocument(parsing: Array(try plain(bytes).utf8)).archive(format: .binary)
            let again = try JSONDocument(parsing: Array(try plain(encoded).utf8)).archive(format: .binary)
            XCTAssertNil(try Archive(parsing: again).difference(from: Archive(parsing: encoded)), name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// The plain view of one value (`get --plain`, `?view=plain&path=`) is whole in itself on
    /// every fixture: each `$ref` in it names an `$id` in it, and `encode` takes it. The paths
    /// are the first places of each document, breadth first, through wrappers and references.
    func testEveryValueAloneIsWholeInItself() throws {
        let names =
            Fixtures.names().map { "apple/" + $0 } + Fixtures.publicNames("typedstream").map { "public/" + $0 }
            + Fixtures.publicNames("plain-plist-with-nested-archive").map { "public/" + $0 } + Fixtures.publicNames("keyed-archive").map { "public/" + $0 }
        var (checked, withReferences) = (0, 0)
        for name in names {
            let bytes = try Array(Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
            guard let archive = try? Archive(parsing: bytes), (try? archive.json(view: .readable, pretty: false)) != nil else { continue }
            let plan = try archive.plainViewPlan(nested: DecodePolicy(depthLimit: .max))
            let document = try archive.decodedDocument(view: .readable, plan: plan, hold: nil) { _ in 0 }
            for path in places(in: document, count: 40) {
                var text: [UInt8] = []
                try document.writePlainValue(at: path, pretty: false, limit: .max) { text.append(contentsOf: $0) }
                let object = try JSONSerialization.jsonObject(with: Data(text), options: .fragmentsAllowed)
                var (ids, refs) = (Set<Int>(), Set<Int>())
                collectIdentities(object, ids: &ids, refs: &refs)
                XCTAssertTrue(refs.isSubset(of: ids), "\(name) \(path): \(String(decoding: text, as: UTF8.self).prefix(300))")
                if !refs.isEmpty { withReferences += 1 }
                XCTAssertNoThrow(try JSONDocument(parsing: text).archive(format: .binary), "\(name) \(path)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 1_000)
        XCTAssertGreaterThan(withReferences, 20)
    }

    /// Up to `count` paths of `document`, breadth first: each member and element of what the
    /// walk reached, through wrappers (`JSONDocument.wrapped`) and `$ref`s.
    private func places(in document: JSONDocument, count: Int) -> [ReadablePath] {
        var paths: [ReadablePath] = []
        var queue: [(JSONDocument.Value, [ReadablePath.Step])] = [(document.root, [])]
        var next = 0
        while next < queue.count, paths.count < count {
            var (value, steps) = queue[next]
            next += 1
            paths.append(ReadablePath(steps: steps))
            var walk = JSONDocument.PathWalk(document: document)
            value = (try? document.followingReference(value, walk: &walk, path: ReadablePath(steps: []))) ?? value
            while document.kind(value) == .object, let inner = document.wrapped(value) { value = inner }
            var cursor = document.children(of: value)
            if document.kind(value) == .array {
                var index = 0
                while let element = document.nextElement(&cursor) {
                    queue.append((element, steps + [.index(index)]))
                    index += 1
                }
            } else if document.kind(value) == .object {
                while let (key, member) = document.nextMember(&cursor) {
                    let text = document.withString(key) { String(decoding: Array($0), as: UTF8.self) }
                    queue.append((member, steps + [.key(text.hasPrefix("$$") ? String(text.dropFirst()) : text)]))
                }
            }
        }
        return paths
    }

    private func collectIdentities(_ value: Any, ids: inout Set<Int>, refs: inout Set<Int>) {
        var pending: [Any] = [value]
        while let next = pending.popLast() {
            if let object = next as? [String: Any] {
                if let id = object["$id"] as? Int { ids.insert(id) }
                if let ref = object["$ref"] as? Int { refs.insert(ref) }
                pending.append(contentsOf: object.values)
            } else if let array = next as? [Any] {
                pending.append(contentsOf: array)
            }
        }
    }

    /// A shared object and a cycle in the plain view encode back to one shared object.
    func testIdentityEncodesBackToASharedObject() throws {
        let text =
            #"{"$class":"League","teams":[{"$class":"Team","$id":1,"name":"Bears","league":{"$ref":2}}],"best":{"$ref":1},"me":{"$class":"Box","$id":2,"items":{"$id":3,"$array":[{"$ref":3}]}}}"#
        let encoded = try JSONDocument(parsing: Array(text.utf8)).archive(format: .binary)
        // The team's body now stands closest to the root, in `best`.
        XCTAssertEqual(
            try plain(encoded),
            #"{"$class":"League","teams":[{"$ref":1}],"best":{"$class":"Team","$id":1,"name":"Bears","league":{"$ref":2}},"me":{"$class":"Box","$id":2,"items":{"$id":3,"$array":[{"$ref":3}]}}}"#
        )
        let lossless = String(decoding: try Archive(parsing: encoded).json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(lossless.contains(#""teams":[{"$ref":1}]"#), lossless)
        XCTAssertTrue(lossless.contains(#""$array":[{"$ref":3}]"#), lossless)
    }
}
