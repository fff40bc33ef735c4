import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Two writers meeting at a cut must write exactly what one writer writes, wherever the
/// cut falls: inside arrays, sets, ordered sets, string-key and pair dictionaries, class
/// instances, inline containers, `$plist` objects and between `$top` entries.
final class SplitWritingTests: XCTestCase {
    /// Checks every cut of `archive` (every `stride`-th for large ones) against one writer.
    private func assertEveryCutMatches(_ bytes: [UInt8], name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let archive = try KeyedArchive(parsing: bytes)
        let whole = try archive.json(view: .readable, pretty: false)
        let placement = archive.defaultPlacement()
        let references = archive.referenceCounts.reduce(0) { $0 + Int($1) }
        let stride = max(1, references / 400)
        var cuts = 0
        for cut in Swift.stride(from: 0, through: references, by: stride) {
            let checkpoint = archive.plist.withView { ResumeWalk(archive: archive, view: $0, placement: placement).checkpoint(at: cut) }
            guard let checkpoint else { continue }
            let split = try archive.renderSplit(at: cut, placement: placement, checkpoint: checkpoint, parallelism: .serial, sink: nil)
            // The same cut with the probe left to the second writer's job, and with the
            // second half too large to hold (written again, streamed, after the first).
            XCTAssertEqual(try archive.renderSplit(at: cut, placement: placement, checkpoint: nil, parallelism: .serial, sink: nil), split, file: file, line: line)
            var streamed: [UInt8] = []
            let returned = try archive.renderSplit(at: cut, placement: placement, checkpoint: checkpoint, parallelism: .serial, sink: { streamed += $0 }, buffering: 8)
            XCTAssertEqual(returned + streamed, whole, "\(name): cut \(cut), second half streamed", file: file, line: line)
            if split != whole {
                XCTFail(
                    "\(name): cut at reference \(cut) of \(references) differs:\n\(String(decoding: split, as: UTF8.self).prefix(600))\nexpected:\n\(String(decoding: whole, as: UTF8.self).prefix(600))",
                    file: file, line: line)
                return
            }
            cuts += 1
        }
        XCTAssertGreaterThan(cuts, 0, name, file: file, line: line)
        // A cut past the last reference: the first writer writes everything.
        XCTAssertEqual(try archive.renderSplit(at: references + 1, placement: placement, checkpoint: nil, parallelism: .serial, sink: nil), whole, name, file: file, line: line)
    }

    func testEveryCutOfEveryFixture() throws {
        var checked = 0
        for (name, bytes, _) in Fixtures.archives() {
            try assertEveryCutMatches(bytes, name: name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    func testEveryCutOfEveryForm() throws {
        let forms = try buildArchive(
            [
                .object("NSMutableArray", [("NS.objects", .array([.uid(2), .uid(3), .uid(1), .uid(10)]))]),
                .string("a"),
                .object("NSMutableDictionary", [("NS.keys", .array([.uid(4), .uid(2)])), ("NS.objects", .array([.uid(5), .uid(6)]))]),
                .int(40400),
                .object("NSSet", [("NS.objects", .array([.uid(7), .uid(2)]))]),
                .object("NSOrderedSet", [("NS.object.0", .uid(2)), ("NS.object.1", .uid(8)), ("NS.object.2", .uid(3))]),
                .object("NSDate", [("NS.time", .real(625945468.42794))]),
                .object("NSUUID", [("NS.uuidbytes", .data(Array(0..<16)))]),
                .object("NSMutableString", [("NS.string", .string("mutable"))]),
                .object("NSDictionary", [("NS.keys", .array([.uid(11), .uid(12)])), ("NS.objects", .array([.uid(3), .uid(9)]))]),
                .string("k"),
                .string("j"),
                .object("Team", [("inline", .array([.uid(2), .array([.uid(4), .uid(12)]), .int(1)])), ("back", .uid(1)), ("plain", .uid(14))]),
                .array([.uid(5), .array([.uid(13), .string("s")]), .uid(0)])
            ], top: [("root", .uid(1)), ("$1", .uid(13)), ("inlineTop", .array([.uid(9), .int(5)])), ("last", .uid(14))])
        try assertEveryCutMatches(forms, name: "forms")
        let chain = try chainArchive(depth: 300, cyclic: true)
        try assertEveryCutMatches(chain, name: "cyclic chain")
    }

    /// Archives whose bytes take readable forms (`BytesForm`, written in place, no references).
    func testEveryCutOfReadableBytes() throws {
        for name in ["keyed-archive/ColorPaletteCodable_DarkMailTopBar.clr", "keyed-archive/thecheat_AboutBox.nib-keyedobjects.nib"] {
            try assertEveryCutMatches(try Fixtures.publicFile(name), name: name)
        }
    }

    /// Attributed strings read as text in runs: cuts at the text and at each run's attributes.
    func testEveryCutOfAttributedStrings() throws {
        var random = SplitMix64(seed: 11)
        for round in 0..<30 {
            try assertEveryCutMatches(try AttributedStringArchive.random(using: &random).archive(), name: "attributed string \(round)")
        }
    }

    /// Empty attributed strings (no runs: `"$runs": []` opens once the text is written), alone,
    /// with a text that is a body of its own, and among others: every cut, the text's included.
    func testEveryCutOfEmptyAttributedStrings() throws {
        let json = #"""
            {"$top":{"root":[{"$class":"NSAttributedString","NSString":""},
            {"$class":"NSMutableAttributedString","NSString":{"$class":"NSMutableString","$string":""}},
            {"$class":"NSAttributedString","$string":"ab","$runs":[{"$length":2,"$attributes":{"k":1}}]},
            {"$class":"NSMutableAttributedString","NSString":{"$class":"NSMutableString","$string":""}},
            {"$class":"NSAttributedString","NSString":""}]}}
            """#
        try assertEveryCutMatches(try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary), name: "empty attributed strings")
    }

    /// Decimals, calendar dates and time zones (`ValueObjectForms`): cuts at a date's format and
    /// zone, a zone's name and data, between decimals.
    func testEveryCutOfValueObjectForms() throws {
        let raw = String(decoding: try KeyedArchive(parsing: Fixtures.bytes("scl-macOS1014_ISO8601DateFormatter-Default.archive")).json(view: .raw, pretty: false), as: UTF8.self)
        let gmt = String(try XCTUnwrap(raw.firstMatch(of: /"NS.data":\{"\$data":"([^"]+)"/)).output.1)
        var items: [String] = [#"{"$class":"NSTimeZone","$id":"z","NS.name":"GMT","NS.data":{"$class":"NSMutableData","$data":"\#(gmt)"}}"#]
        for index in 0..<12 {
            items.append(#"{"$class":"NSCalendarDate","NS.time":\#(index).5,"NS.format":"%Y \#(index % 3)","NS.timezone":{"$ref":"z"}}"#)
            items.append(#"{"$class":"NSDecimalNumber","$decimal":"\#(index).25"}"#)
        }
        let bytes = try JSONDocument(parsing: Array(("[" + items.joined(separator: ",") + "]").utf8)).archive(format: .binary)
        try assertEveryCutMatches(bytes, name: "value object forms")
    }

    func testEveryCutOfRandomGraphs() throws {
        var generator = TestRandom(for: self)
        for round in 0..<40 {
            let entries = randomGraph(count: Int.random(in: 1...30, using: &generator), using: &generator)
            try assertEveryCutMatches(try buildArchive(entries), name: "random graph \(round)")
        }
    }

    /// Through `writeJSON` with a sink and two real threads, on a game save large enough to
    /// be cut: the pieces joined are one writer's text.
    func testTwoThreadsWithASink() throws {
        let teams = (1...400).map { index in Entry.object("Team", [("name", .string("team \(index)")), ("next", .uid(index % 400 + 1)), ("wins", .int(Int64(index)))]) }
        let list = Entry.object("NSArray", [("NS.objects", .array((1...400).map { .uid($0) } + (1...40_000).map { _ in .uid(1) }))])
        let bytes = try buildArchive(teams + [list], top: [("root", .uid(401))])
        let archive = try KeyedArchive(parsing: bytes)
        let threads = Parallelism(width: 2, smallestPart: 1 << 10) { jobs, job in
            withoutActuallyEscaping(job) { job in
                let box = JobBox(job)
                let done = DispatchSemaphore(value: 0)
                let worker = Thread {
                    box.job?(1)
                    done.signal()
                }
                worker.stackSize = 64 << 20
                worker.start()
                job(0)
                done.wait()
                // The Thread keeps its block (and so the box) alive; the job must not escape.
                box.job = nil
            }
        }
        let plan = try archive.plan(view: .readable, pretty: false, parallelism: threads)
        XCTAssertNotNil(plan.cut)
        XCTAssertEqual(plan.depth, archive.depth(of: .readable))
        var pieces: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: threads) { pieces += $0 }
        XCTAssertEqual(pieces, try archive.json(view: .readable, pretty: false))
    }
}

private final class JobBox: @unchecked Sendable {
    var job: ((Int) -> Void)?
    init(_ job: @escaping (Int) -> Void) { self.job = job }
}
