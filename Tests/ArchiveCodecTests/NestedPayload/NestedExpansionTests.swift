import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Nested payloads decoded in place: real files, limits over the whole document, edits that
/// reach the nested archive, and random nestings that round-trip.
final class NestedExpansionTests: XCTestCase {
    private let roomy = DecodePolicy(depthLimit: 10_000)

    private func decode(_ bytes: [UInt8], pretty: Bool = false, maxDepth: Int? = nil, policy: DecodePolicy? = nil) throws -> [UInt8] {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: pretty, maxDepth: maxDepth, nested: policy ?? roomy)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: pretty, plan: plan, parallelism: .serial) { text += $0 }
        return text
    }

    private func encode(_ json: [UInt8], format: PlistFormat = .binary) throws -> [UInt8] {
        try JSONDocument(parsing: json).archive(format: format)
    }

    private func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private func realFiles() throws -> [(String, [UInt8])] {
        var files: [(String, [UInt8])] = []
        for folder in ["plain-plist", "plain-plist-with-nested-archive", "keyed-archive"] {
            for name in Fixtures.publicNames(folder) { files.append((name, try Fixtures.publicFile(name))) }
        }
        for name in Fixtures.typedStreamNames() { files.append((name, try Fixtures.typedStream(name))) }
        for name in Fixtures.names() { files.append((name, try Fixtures.bytes(name))) }
        return files
    }

    /// Every real file decodes with its payloads, encodes back, and is equivalent to itself;
    /// the files known to carry archives show them decoded.
    func testRealFilesRoundTripWithTheirPayloadsDecoded() throws {
        var decodedPayloads = 0
        for (name, bytes) in try realFiles() {
            guard let archive = try? Archive(parsing: bytes) else { continue }
            let json = try decode(bytes)
            let payloads = string(json).components(separatedBy: #""$data":{"$"#).count - 1
            decodedPayloads += payloads
            let format: PlistFormat = archive.sourceFormat
            let again = try Archive(parsing: encode(json, format: format))
            XCTAssertNil(archive.difference(from: again), name)
        }
        XCTAssertGreaterThan(decodedPayloads, 60)
        let theme = string(try decode(Fixtures.publicFile("plain-plist-with-nested-archive/dracula-terminal-app_Dracula.terminal")))
        XCTAssertTrue(theme.contains(#""ANSIBlackColor":{"$data":{"$keyedArchive":{"$class":"NSColor","#), theme)
        let history = string(try decode(Fixtures.publicFile("plain-plist-with-nested-archive/imessage-exporter_message_summary_info-Edited.plist")))
        XCTAssertTrue(history.contains(#"{"$data":{"$typedstream":["#), history)
        XCTAssertTrue(history.contains(#""First message  ""#), history)
        // A link preview: Apple's keyed archive in an NSData of an iMessage body, which our
        // encoder writes in fewer bytes (the typedstream's NSData follows its length).
        let link = string(try decode(Fixtures.typedStream("imessage-exporter_attributedBody-URL.bin")))
        XCTAssertTrue(link.contains(#""$data":{"$keyedArchive":{"$top":{"version":1,"dd-result":{"$class":"DDScannerResult","#), link)
    }

    /// Without `nested` the output is what it always was; indented output is the same document.
    func testPlainAndIndentedOutput() throws {
        let bytes = try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let archive = try Archive(parsing: bytes)
        XCTAssertFalse(string(try archive.json(view: .readable, pretty: false)).contains("$keyedArchive"))
        let compact = try decode(bytes)
        let pretty = try decode(bytes, pretty: true)
        XCTAssertEqual(pretty.last, 0x0A)
        let a = try JSONSerialization.jsonObject(with: Data(compact)) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: Data(pretty)) as? NSDictionary
        XCTAssertNotNil(a)
        XCTAssertEqual(a, b)
        XCTAssertTrue(string(pretty).contains("\n      \"$data\": {\n        \"$keyedArchive\": {\n          \"$class\": \"NSColor\",\n"), string(pretty))
    }

    /// An edit inside a nested typedstream reaches the bytes inside the plain plist.
    func testAnEditReachesTheNestedArchive() throws {
        let bytes = try Fixtures.publicFile("plain-plist-with-nested-archive/imessage-exporter_message_summary_info-Edited.plist")
        let edited = string(try decode(bytes)).replacingOccurrences(of: "First message  ", with: "Changed words!!")
        let written = try encode(Array(edited.utf8))
        XCTAssertNotNil(archiveDifference(written, bytes))
        let again = string(try decode(written))
        XCTAssertTrue(again.contains("Changed words!!"), again)
        XCTAssertFalse(again.contains("First message"), again)
    }

    private func archiveDifference(_ a: [UInt8], _ b: [UInt8]) -> String? {
        guard let x = try? Archive(parsing: a), let y = try? Archive(parsing: b) else { return "unreadable" }
        return x.difference(from: y)
    }

    /// The whole document's depth is the plan's: the policy sees it, and `maxDepth` bounds it.
    func testLimitsCountTheWholeDocument() throws {
        // A chain of ten nodes, nesting ten levels as JSON.
        var chain = "null"
        for _ in 0..<10 { chain = #"{"$class": "Node", "next": "# + chain + "}" }
        let inner = try encode(Array(chain.utf8))
        var base64: [UInt8] = []
        inner.withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
        let outer = try encode(Array((#"{"$propertyList": {"a": {"b": {"$data": ""# + string(base64) + #""}}}}"#).utf8))
        let archive = try Archive(parsing: outer)
        let alone = try archive.plan(view: .readable, pretty: false).depth
        let whole = try archive.plan(view: .readable, pretty: false, nested: roomy)
        XCTAssertEqual(alone, 4)
        // {"$propertyList": {"a": {"b": {"$data": {"$keyedArchive": {Node {Node …}}}}}}}
        XCTAssertEqual(whole.depth, 4 + 1 + 10)
        XCTAssertEqual(try JSONDocument(parsing: decode(outer)).depth, whole.depth)
        let tight = try archive.plan(view: .readable, pretty: false, nested: DecodePolicy(depthLimit: 5))
        XCTAssertGreaterThan(tight.depth, 5, "refused by the policy: the caller sees a depth past its limit")
        // A bound moves the payload's objects to its own $table.
        let bounded = try decode(outer, maxDepth: 12)
        XCTAssertLessThanOrEqual(try JSONDocument(parsing: bounded).depth, 12)
        XCTAssertTrue(string(bounded).contains("$table"), string(bounded))
        XCTAssertNil(archiveDifference(try encode(bounded), outer))
        XCTAssertThrowsError(try decode(outer, maxDepth: 6)) { error in
            let error = error as? CodecError
            XCTAssertEqual(error?.kind, .depthBoundTooSmall)
            XCTAssertGreaterThan(error?.found ?? 0, 6)
        }
    }

    /// Payloads that stand for more JSON than the limit allows are refused before more than the
    /// limit is held, and the caller's `hold` is asked as the parts grow.
    func testSizeAndMemoryAreBoundedWhilePlanning() throws {
        // 2,000 references to one 40 KB string: about 80 MB of JSON from an archive of a few KB.
        let long = String(repeating: "x", count: 40_000)
        let amplifier = try encode(Array((#"{"$class": "Box", "items": ["# + Array(repeating: #""\#(long)""#, count: 2_000).joined(separator: ",") + "]}").utf8))
        XCTAssertLessThan(amplifier.count, 100_000)
        var base64: [UInt8] = []
        amplifier.withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
        let outer = try encode(Array((#"{"$propertyList": [{"$data": ""# + string(base64) + #""}]}"#).utf8))
        let archive = try Archive(parsing: outer)
        XCTAssertThrowsError(try archive.plan(view: .readable, pretty: false, nested: roomy)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded, "\(error)")
        }
        let theme = try Archive(parsing: Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal"))
        let outerSize = try theme.json(view: .readable, pretty: false).count
        var asked: [Int] = []
        var read: [Int] = []
        XCTAssertThrowsError(
            try theme.plan(view: .readable, pretty: false, nested: roomy) { held, reading in
                if let reading { read.append(reading.count) } else { asked.append(held) }
                return held < outerSize + 2_000
            }
        ) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded, "\(error)")
        }
        XCTAssertGreaterThan(asked.count, 1)
        XCTAssertEqual(asked, asked.sorted())
        XCTAssertFalse(read.isEmpty, "each payload's bytes are shown before they are read")
    }

    /// Bytes that only look like a document (a broken plist, a typedstream header alone) stay
    /// bytes, and text stays text.
    func testLookalikesStayBytes() throws {
        let lookalikes = [Array("bplist00 and then nothing".utf8), [4, 11] + Array("streamtyped".utf8), Array("<?xml version=\"1.0\"?><html/>".utf8)]
        for bytes in lookalikes {
            var base64: [UInt8] = []
            bytes.withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
            let json = #"{"$propertyList":{"$data":""# + string(base64) + #""}}"#
            XCTAssertEqual(string(try decode(encode(Array(json.utf8)))), json)
        }
    }

    /// Archives in plists in typedstreams in archives, at random, come back equivalent, with
    /// every payload decoded.
    func testRandomNestingsRoundTrip() throws {
        var random = SplitMix64(seed: 0x4E45_5354)
        for round in 0..<60 {
            let levels = Int(random.next() % 5) + 1
            var bytes = try encode(Array(#"{"$class": "Leaf", "round": \#(round)}"#.utf8))
            for level in 0..<levels {
                var base64: [UInt8] = []
                bytes.withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
                let data = string(base64)
                switch random.next() % 5 {
                case 0: bytes = try encode(Array(#"{"$propertyList": {"level": \#(level), "blob": {"$data": "\#(data)"}}}"#.utf8))
                case 1: bytes = try encode(Array(#"{"$propertyList": [{"$data": "\#(data)"}, \#(level)]}"#.utf8), format: .xml)
                case 2: bytes = try encode(Array(#"{"$class": "Box", "level": \#(level), "blob": {"$data": "\#(data)"}}"#.utf8))
                case 3: bytes = try encode(Array(#"{"$class": "Box", "inline": {"$bytes": "\#(data)"}}"#.utf8), format: .xml)
                default: bytes = try encode(Array(#"{"$typedstream": [{"i": \#(bytes.count)}, {"[\#(bytes.count)c]": {"$data": "\#(data)"}}]}"#.utf8))
                }
            }
            let json = try decode(bytes)
            XCTAssertEqual(string(json).components(separatedBy: #"{"$"#).count - 1 >= levels, true)
            XCTAssertTrue(string(json).contains(#""round":\#(round)"#), "round \(round): every level decoded: \(string(json))")
            let format = try Archive(parsing: bytes).sourceFormat
            XCTAssertNil(archiveDifference(try encode(json, format: format), bytes), "round \(round): \(string(json))")
        }
    }
}
