import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The value at a path of a keyed archive, written alone (`KeyedValueAtPath`,
/// `Archive.readableValueDocument`): the same text as the value at that path of the whole
/// readable document, for every path a walk through real archives takes (members, data keys
/// beginning with `$`, the mapping's own keys, steps through wrappers left out, elements from
/// either end, `$ref`s followed, steps that lead nowhere); nil, never another answer, where it
/// gives up.
final class KeyedValueAtPathTests: XCTestCase {
    private func archives() throws -> [(name: String, bytes: [UInt8])] {
        let apple = try Fixtures.names().map { ($0, try Fixtures.bytes($0)) }
        let keyed = try Fixtures.publicNames("keyed-archive").map { ($0, try Fixtures.publicFile($0)) }
        return (apple + keyed).filter { (try? Archive(parsing: $0.1).keyedArchive) != nil }
    }

    /// The whole document's answer at `path`: its text, or nil when the path leads nowhere.
    private func wholeAnswer(_ document: JSONDocument, _ path: ReadablePath) -> [UInt8]? {
        try? document.valueText(at: path)
    }

    /// The answer found before the placement (`Archive.valueDocumentBeforePlacement`), its
    /// placement's scans split in parts.
    private func earlyAnswer(_ archive: Archive, _ path: ReadablePath, depthLimit: Int = .max, _ label: String) throws -> [UInt8]? {
        let parts = Parallelism(width: 2, smallestPart: 1) { jobs, job in
            for index in (0..<jobs).reversed() { job(index) }
        }
        guard let value = try archive.valueDocumentBeforePlacement(at: path, numbers: .nonFinite, depthLimit: depthLimit, parallelism: parts, hold: nil) else {
            return nil
        }
        XCTAssertEqual(value.source, try value.valueText(at: ReadablePath(steps: [])), label)
        return value.source
    }

    private func aloneAnswer(_ archive: Archive, _ plan: WritePlan, _ path: ReadablePath, _ label: String) throws -> [UInt8]? {
        guard let value = try archive.readableValueDocument(at: path, plan: plan, hold: nil) else { return nil }
        XCTAssertEqual(value.source, try value.valueText(at: ReadablePath(steps: [])), label)
        return value.source
    }

    func testEveryWalkedPathAnswersAsTheWholeDocument() throws {
        var generator = SplitMix64(seed: 0x5EED)
        var (answered, gaveUp, nowhere, early) = (0, 0, 0, 0)
        let files = try archives()
        XCTAssertGreaterThan(files.count, 30)
        for (name, bytes) in files {
            let archive = try Archive(parsing: bytes)
            let plan = try archive.plan(view: .readable, pretty: false)
            let whole = try archive.decodedDocument(view: .readable, plan: plan, hold: nil) { _ in 0 }
            for _ in 0..<60 {
                var steps: [ReadablePath.Step] = []
                var value = whole.root
                for _ in 0..<12 {
                    var walk = JSONDocument.PathWalk(document: whole)
                    value = (try? whole.followingReference(value, walk: &walk, path: ReadablePath(steps: []))) ?? value
                    guard let step = randomStep(from: value, in: whole, &generator) else { break }
                    steps.append(step)
                    let path = ReadablePath(steps: steps)
                    let label = "\(name) \(path)"
                    let expected = wholeAnswer(whole, path)
                    let alone = try aloneAnswer(archive, plan, path, label)
                    if let answer = try earlyAnswer(archive, path, label) {
                        XCTAssertEqual(answer, expected, label)
                        early += 1
                    }
                    if let alone {
                        XCTAssertEqual(alone, expected, label)
                        answered += 1
                    } else if expected == nil {
                        nowhere += 1
                    } else {
                        gaveUp += 1
                    }
                    guard expected != nil, let next = try? whole.value(at: path) else { break }
                    value = next
                }
            }
        }
        // Nearly every path that leads somewhere is answered alone.
        XCTAssertGreaterThan(answered, 1_000)
        XCTAssertLessThan(gaveUp * 50, answered, "gave up on \(gaveUp) of \(answered + gaveUp)")
        XCTAssertGreaterThan(nowhere, 50)
        // Before the placement too (values with identity after a partial placement).
        XCTAssertGreaterThan(early * 10, answered * 9, "answered early \(early) of \(answered)")
    }

    /// A generated save: values behind `$ref`s to bodies placed elsewhere, then containers that
    /// hold those bodies, in one walk; a path going round the cycle team → player → team.
    func testReferencesAndCyclesInASave() throws {
        let json = #"""
            {"$class":"League","teams":{"$class":"NSMutableArray","$array":[
              {"$class":"Team","$id":1,"name":"A","rival":{"$ref":2},"players":[{"$class":"Player","name":"a1","team":{"$ref":1}},{"$class":"Player","name":"a2","team":{"$ref":1}}]},
              {"$class":"Team","$id":2,"name":"B","rival":{"$ref":1},"players":[{"$class":"Player","name":"b1","team":{"$ref":2}}],
               "motto":{"$id":3,"$string":"onward"}}]},
             "slogan":{"$ref":3},"best":{"$ref":2}}
            """#
        let bytes = try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false)
        let whole = try archive.decodedDocument(view: .readable, plan: plan, hold: nil) { _ in 0 }
        var cycle = ".teams[0]"
        for _ in 0..<20 { cycle += ".players[1].team.rival.rival" }
        let paths = [
            ".best", ".best.players", ".teams[0].rival.players[0].team", ".slogan", ".teams[1].motto", ".best.motto", ".teams",
            ".teams[1].rival.rival.players", ".teams[0].players[0].team.rival.motto", cycle, cycle + ".name", ".teams[2]", ".best.nope"
        ]
        for text in paths {
            let path = try ReadablePath(parsing: text)
            let alone = try aloneAnswer(archive, plan, path, text)
            XCTAssertEqual(alone, wholeAnswer(whole, path), text)
            let early = try earlyAnswer(archive, path, text)
            if let early { XCTAssertEqual(early, wholeAnswer(whole, path), text) }
            if wholeAnswer(whole, path) != nil { XCTAssertNotNil(alone, text) }
        }
    }

    /// Equal strings stored apart and referenced once each: the first the view reaches is
    /// written bare, the other with `$id` (`ScalarIdentity`, "Ties"). Before the placement
    /// neither can be told from the other: the walk places as far as it must, and answers as
    /// the whole document.
    func testTiedValuesAreAnsweredAsTheWholeDocumentWritesThem() throws {
        let json = #"""
            {"$class":"Pair","first":{"$class":"Box","label":"same"},"second":{"$class":"Box","label":{"$id":1,"$string":"same"}},
             "boxes":[{"$class":"Box","label":"other"},{"$class":"Box","label":{"$id":2,"$string":"other"}}]}
            """#
        let archive = try Archive(parsing: try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
        let plan = try archive.plan(view: .readable, pretty: false)
        let whole = try archive.decodedDocument(view: .readable, plan: plan, hold: nil) { _ in 0 }
        for text in [".first.label", ".second.label", ".second", ".boxes", ".boxes[1].label", ".boxes[0]"] {
            let path = try ReadablePath(parsing: text)
            let expected = try XCTUnwrap(wholeAnswer(whole, path), text)
            XCTAssertEqual(try earlyAnswer(archive, path, text), expected, text)
        }
        let second = try XCTUnwrap(earlyAnswer(archive, ReadablePath(parsing: ".second.label"), ""))
        XCTAssertEqual(String(decoding: second, as: UTF8.self), #"{"$id":1,"$string":"same"}"#)
    }

    /// Before the placement nothing has measured the document's nesting: a value is answered
    /// when it (and each body written on the way) nests within the limit, from an archive
    /// nested far deeper, and a value deeper than the limit is left to the caller, which
    /// refuses the whole document.
    func testAValueIsAnsweredWhenItFitsTheLimitWhateverTheWholeNests() throws {
        var chain = #"{"$class":"Node","name":"end"}"#
        for level in 0..<400 { chain = #"{"$class":"Node","name":"n\#(level)","next":"# + chain + "}" }
        let json = #"{"$class":"Root","title":"deep","shared":{"$class":"Box","$id":1},"again":{"$ref":1},"chain":"# + chain + "}"
        let archive = try Archive(parsing: try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
        let plan = try archive.plan(view: .readable, pretty: false)
        XCTAssertGreaterThan(plan.depth, 400)
        let whole = try archive.decodedDocument(view: .readable, plan: plan, hold: nil) { _ in 0 }
        let cases = [(".title", true), (".chain.name", true), (".chain.next.next.name", true), (".again", true), (".chain", false), (".chain.next", false)]
        for (text, answered) in cases {
            let path = try ReadablePath(parsing: text)
            let early = try earlyAnswer(archive, path, depthLimit: 64, text)
            XCTAssertEqual(early != nil, answered, text)
            if let early {
                XCTAssertEqual(early, wholeAnswer(whole, path), text)
                XCTAssertLessThanOrEqual(jsonNesting(early), 64, text)
            }
        }
        // Deep enough for the chain's tail, not its head.
        let tail = try ReadablePath(parsing: ".chain" + String(repeating: ".next", count: 385))
        let early = try XCTUnwrap(earlyAnswer(archive, tail, depthLimit: 64, "tail"))
        XCTAssertEqual(early, wholeAnswer(whole, tail))
    }

    /// Before the placement every part is measured before it is written, and the references
    /// measured in all the walks are held to a quarter of the archive's (at least 65,536): a
    /// part larger than that is left to the placed walk, which writes it once.
    func testAPartLargerThanTheBudgetIsLeftToThePlacement() throws {
        for (count, answered) in [(1_000, true), (70_000, false)] {
            let elements = (0..<count).map { #"{"$class":"Box","n":\#($0)}"# }
            let json = #"{"$class":"Root","list":["# + elements.joined(separator: ",") + "]}"
            let archive = try Archive(parsing: try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
            let path = try ReadablePath(parsing: ".list[5].n")
            let early = try earlyAnswer(archive, path, "\(count)")
            XCTAssertEqual(early.map { String(decoding: $0, as: UTF8.self) }, answered ? "5" : nil, "\(count)")
            let plan = try archive.plan(view: .readable, pretty: false)
            XCTAssertEqual(try aloneAnswer(archive, plan, path, "\(count)").map { String(decoding: $0, as: UTF8.self) }, "5")
        }
    }

    /// The walk's memory is asked of `hold` as it grows, and a refusal stops it.
    func testTheWalkAsksItsMemoryBeforeHoldingIt() throws {
        let bytes = try Fixtures.bytes("goios_arrays.bin")
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false)
        var asked: [Int] = []
        let value = try archive.readableValueDocument(at: try ReadablePath(parsing: ".$$1.$array[1]"), plan: plan) {
            asked.append($0)
            return true
        }
        XCTAssertEqual(value.map { String(decoding: $0.source, as: UTF8.self) }, #""Hello, World!""#)
        XCTAssertFalse(asked.isEmpty)
        XCTAssertEqual(asked, asked.sorted())
        // Refused for the document's own body, and for a body on the way.
        XCTAssertThrowsError(try archive.readableValueDocument(at: try ReadablePath(parsing: ".$$1"), plan: plan) { _ in false }) { error in
            XCTAssertEqual((error as? CodecError)?.description, Archive.notHeld.description)
        }
        var grants = 1
        XCTAssertThrowsError(
            try archive.readableValueDocument(at: try ReadablePath(parsing: ".$$1.$array[1]"), plan: plan) { _ in
                grants -= 1
                return grants >= 0
            }
        ) { error in
            XCTAssertEqual((error as? CodecError)?.description, Archive.notHeld.description)
        }
    }

    /// A `$dict` whose keys are not all plain strings (one an NSMutableString, written as a
    /// body of its own): a key step there is answered by the whole document, which compares
    /// every key's text, not by the first pair whose key the part can read.
    func testADictWithAKeyOfItsOwnIsAnsweredByTheWholeDocument() throws {
        let json = #"{"$top":{"root":{"$class":"NSDictionary","$dict":[[{"$class":"NSMutableString","$string":"a"},"first"],["a","second"]]}}}"#
        let archive = try Archive(parsing: try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
        let plan = try archive.plan(view: .readable, pretty: false)
        let whole = try archive.decodedDocument(view: .readable, plan: plan, hold: nil) { _ in 0 }
        let path = try ReadablePath(parsing: ".a")
        XCTAssertEqual(wholeAnswer(whole, path).map { String(decoding: $0, as: UTF8.self) }, #""first""#)
        XCTAssertNil(try archive.readableValueDocument(at: path, plan: plan, hold: nil))
    }

    /// A body is held as it is written, not once whole: an array of 2,000 references to one
    /// 1,000-byte string (written in full at each: a string needs no `$id`), 2 MB of text,
    /// under a hold that grants 512 KiB, is refused while it is written.
    func testABodyIsHeldAsItIsWritten() throws {
        let text = #"""# + String(repeating: "x", count: 1_000) + #"""#
        let json = #"{"$top":{"root":[["# + Array(repeating: text, count: 2_000).joined(separator: ",") + "]]}}"
        let archive = try Archive(parsing: try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
        XCTAssertLessThan(archive.inputSize, 20_000)
        let plan = try archive.plan(view: .readable, pretty: false)
        var asked: [Int] = []
        XCTAssertThrowsError(
            try archive.readableValueDocument(at: try ReadablePath(parsing: "[0][5]"), plan: plan) {
                asked.append($0)
                return $0 <= 1 << 19
            }
        ) { error in
            XCTAssertEqual((error as? CodecError)?.description, Archive.notHeld.description)
        }
        XCTAssertGreaterThan(asked.last ?? 0, 1 << 19)
        XCTAssertLessThan(asked.last ?? .max, 4 << 20)
    }

    // MARK: Walking

    /// A step from `value`: one of its members (a data key by its name, `$`-keys as written),
    /// one of its wrapped content's (the wrapper left out), an element counted from either end,
    /// or now and then one that leads nowhere.
    private func randomStep(from value: JSONDocument.Value, in document: JSONDocument, _ generator: inout SplitMix64) -> ReadablePath.Step? {
        if generator.next() % 20 == 0 { return generator.next() % 2 == 0 ? .key("no such key") : .index(1_000_000) }
        var target = value
        if generator.next() % 2 == 0, let inner = document.wrapped(value) { target = inner }
        switch document.kind(target) {
        case .array:
            let count = document.count(target)
            guard count > 0 else { return nil }
            let position = Int(generator.next() % UInt64(count))
            return generator.next() % 3 == 0 ? .index(position - count) : .index(position)
        case .object:
            var keys: [String] = []
            var cursor = document.children(of: target)
            while let (key, _) = document.nextMember(&cursor) {
                let text = document.withString(key) { String(decoding: Array($0), as: UTF8.self) }
                keys.append(text.hasPrefix("$$") ? String(text.dropFirst()) : text)
            }
            guard !keys.isEmpty else { return nil }
            return .key(keys[Int(generator.next() % UInt64(keys.count))])
        default:
            return nil
        }
    }
}
