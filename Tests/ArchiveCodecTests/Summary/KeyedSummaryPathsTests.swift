import TestSupport
import XCTest

@testable import ArchiveCodec

/// The places of the largest values (`KeyedSummaryPaths` for keyed archives, the plain
/// property list's own): each path, followed in the document's readable JSON as
/// `decode --nested` writes it, leads to the value (a string that the view writes as a
/// dictionary's key, to the member it names). A value in an entry nothing refers to has no
/// place: the readable view leaves such entries out.
final class KeyedSummaryPathsTests: XCTestCase {
    /// One step of a path's text: a member, an element, or `$id n`.
    private enum Token: Equatable {
        case member(String)
        case index(Int)
        case anchor(Int)
    }

    /// The steps of `path` as `DocumentPath.description` writes them.
    private func tokens(_ path: String) -> [Token] {
        let text = Array(path.utf8)
        var tokens: [Token] = []
        var position = 0
        func number() -> Int {
            let start = position
            while position < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position]) { position += 1 }
            return Int(String(decoding: text[start..<position], as: UTF8.self))!
        }
        while position < text.count {
            switch text[position] {
            case UInt8(ascii: " "): position += 1
            case UInt8(ascii: "$") where text[position...].starts(with: "$id ".utf8):
                position += 4
                tokens.append(.anchor(number()))
            case UInt8(ascii: "."):
                position += 1
                let start = position
                while position < text.count, ![UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: " ")].contains(text[position]) { position += 1 }
                if position > start { tokens.append(.member(String(decoding: text[start..<position], as: UTF8.self))) }
            case UInt8(ascii: "["):
                position += 1
                if text[position] == UInt8(ascii: "\"") {
                    let start = position
                    position += 1
                    while text[position] != UInt8(ascii: "\"") { position += text[position] == UInt8(ascii: "\\") ? 2 : 1 }
                    position += 1
                    guard case .string(let key) = TestJSON.parse(Array(text[start..<position])) else { preconditionFailure() }
                    tokens.append(.member(key))
                } else {
                    tokens.append(.index(number()))
                }
                position += 1
            default: preconditionFailure("unexpected \(path)")
            }
        }
        return tokens
    }

    /// The object written with `"$id": n` in `document`.
    private func anchor(_ id: Int, in document: TestJSON) -> TestJSON? {
        var pending = [document]
        while let value = pending.popLast() {
            switch value {
            case .object(let members):
                if value["$id"]?.integer == id { return value }
                pending += members.map(\.value)
            case .array(let items): pending += items
            default: break
            }
        }
        return nil
    }

    /// The value at `path` in `document`, or the member name the last step names when that is
    /// what `text` is (a dictionary key).
    private func follow(_ path: String, in document: TestJSON, expecting text: String?) -> TestJSON? {
        var current = document
        var base = document
        let steps = tokens(path)
        for (number, step) in steps.enumerated() {
            switch step {
            case .anchor(let id):
                guard let found = anchor(id, in: base) else { return nil }
                current = found
            case .index(let index):
                guard let items = current.elements, index < items.count else { return nil }
                current = items[index]
            case .member(let key):
                guard let next = current[key] else { return nil }
                if number == steps.count - 1, let text, next.text != text, key == text || key == "$" + text { return .string(text) }
                current = next
                // A nested archive's `$id`s are its own.
                if key == "$keyedArchive" { base = next }
            }
        }
        return current
    }

    private func files() throws -> [(String, [UInt8])] {
        var files: [(String, [UInt8])] = []
        for name in Fixtures.names() { files.append((name, try Fixtures.bytes(name))) }
        for folder in ["keyed-archive", "plain-plist", "plain-plist-with-nested-archive"] {
            for name in Fixtures.publicNames(folder) { files.append((name, try Fixtures.publicFile(name))) }
        }
        return files
    }

    func testEveryPathLeadsToItsValue() throws {
        var named = 0
        for (name, bytes) in try files() {
            let archive = try Archive(parsing: bytes)
            let summary = try archive.summary(nested: true)
            let plan = try archive.plan(view: .readable, pretty: false, nested: DecodePolicy(depthLimit: 10_000))
            var text: [UInt8] = []
            try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
            let document = TestJSON.parse(text)
            for value in summary.largestStrings {
                // Unnamed: in an object nothing refers to, which the readable view leaves out.
                guard let path = value.path else { continue }
                let start = value.preview.hasSuffix("…") ? String(value.preview.dropLast()) : value.preview
                let found = follow(path, in: document, expecting: start)
                XCTAssertTrue(found?.text?.hasPrefix(start) ?? false, "\(name) \(path): \(String(describing: found))")
                named += 1
            }
            for value in summary.largestData {
                guard let path = value.path else { continue }
                let found = follow(path, in: document, expecting: nil)
                switch found {
                case .string, .object: named += 1
                // An attributed string's run data, written as its runs.
                case .array where path.hasSuffix(".$runs"): named += 1
                default: XCTFail("\(name) \(path): \(String(describing: found))")
                }
            }
        }
        XCTAssertGreaterThan(named, 300)
    }

    /// A chain of `depth` instances, each holding the next under one key of `keyLength`
    /// bytes, the last a string of 200 bytes: the largest value, its path as deep as the chain.
    private func keyChain(depth: Int, keyLength: Int) -> [UInt8] {
        // By hand, the key's text interned once (`buildArchive` would hash it per entry).
        var plist = TestPlistBuilder()
        let (classKey, key) = (plist.string("$class"), plist.string(String(repeating: "k", count: keyLength)))
        var objects = [plist.string("$null")]
        objects += (0..<depth).map { plist.add(.dict([(key: classKey, value: plist.uid(depth + 2)), (key: key, value: plist.uid($0 + 2))])) }
        objects.append(plist.string(String(repeating: "x", count: 200)))
        let chain = plist.add(.array([plist.string("Node"), plist.string("NSObject")]))
        objects.append(plist.add(.dict([(key: plist.string("$classname"), value: plist.string("Node")), (key: plist.string("$classes"), value: chain)])))
        return plist.keyedArchive(objects: objects)
    }

    /// A path too long to write is not built: the walk up stops past the steps a written path
    /// holds, and reads a key's text only on the path and when it could be written.
    func testPathsTooLongToWriteAreNotBuilt() throws {
        let shallow = try Archive(parsing: keyChain(depth: 2, keyLength: 2)).summary()
        XCTAssertEqual(shallow.largestStrings.first?.path, ".kk.kk")
        XCTAssertNil(try Archive(parsing: keyChain(depth: 2, keyLength: 2_000)).summary().largestStrings.first?.path)
        XCTAssertNil(try Archive(parsing: keyChain(depth: 60, keyLength: 2)).summary().largestStrings.first?.path)
        let result = try ScalingCheck.measure(startingAt: 3_000, maximumSize: 6_000, make: { try Archive(parsing: keyChain(depth: $0, keyLength: 100 * $0)) }) {
            XCTAssertNil(try $0.summary().largestStrings.first?.path)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }
}
