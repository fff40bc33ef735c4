import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The JSON nesting of `text`: the most arrays and objects open at once (brackets inside
/// strings aside). What JSON parsers limit, and the unit of `KeyedArchive.depth(of:)`.
func jsonNesting(_ text: [UInt8]) -> Int {
    var depth = 0
    var deepest = 0
    var inString = false
    var escaped = false
    for byte in text {
        if inString {
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            continue
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            depth += 1
            deepest = max(deepest, depth)
        case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
        default: break
        }
    }
    return deepest
}

/// A league save as an app archives it: the league lists its teams and its games; each team
/// has players (who point back at it) and a schedule of games; each game points at its two
/// teams. Entries in the order Apple's archiver writes them (depth-first from the root), so a
/// depth-first placement would nest every team inside the previous one.
func leagueArchive(teams: Int) throws -> [UInt8] {
    var entries: [Entry] = []
    func add(_ entry: Entry) -> Int {
        entries.append(entry)
        return entries.count
    }
    let league = add(.string("placeholder"))
    let teamList = add(.string("placeholder"))
    let gameList = add(.string("placeholder"))
    let teamUIDs = (0..<teams).map { _ in add(.string("placeholder")) }
    let gameUIDs = (0..<teams).map { _ in add(.string("placeholder")) }
    let kinds = [add(.string("pass")), add(.string("run"))]
    for (index, team) in teamUIDs.enumerated() {
        let name = add(.string("Team \(index)"))
        let players = (0..<2).map { number in
            add(.object("Player", [("name", .uid(add(.string("Player \(index).\(number)")))), ("number", .int(Int64(number))), ("team", .uid(team))]))
        }
        let playerList = add(.object("NSArray", [("NS.objects", .array(players.map { .uid($0) }))]))
        let home = gameUIDs[index]
        let away = gameUIDs[(index + teams - 1) % teams]
        let schedule = add(.object("NSMutableArray", [("NS.objects", .array([.uid(home), .uid(away)]))]))
        entries[team - 1] = .object(
            "Team",
            [
                ("name", .uid(name)), ("wins", .int(Int64(index % 7))), ("rating", .real(Double(index) / 3)),
                ("players", .uid(playerList)), ("schedule", .uid(schedule))
            ])
    }
    for (index, game) in gameUIDs.enumerated() {
        let record = add(.object("Record", [("kind", .uid(kinds[index % 2])), ("minute", .int(Int64(index % 90)))]))
        let records = add(.object("NSMutableArray", [("NS.objects", .array([.uid(record)]))]))
        entries[game - 1] = .object(
            "Game",
            [
                ("home", .uid(teamUIDs[index])), ("away", .uid(teamUIDs[(index + 1) % teams])),
                ("records", .uid(records))
            ])
    }
    entries[teamList - 1] = .object("NSMutableArray", [("NS.objects", .array(teamUIDs.map { .uid($0) }))])
    entries[gameList - 1] = .object("NSMutableArray", [("NS.objects", .array(gameUIDs.map { .uid($0) }))])
    entries[league - 1] = .object(
        "League",
        [
            ("name", .uid(add(.string("League")))), ("season", .int(2026)),
            ("teams", .uid(teamList)), ("games", .uid(gameList))
        ])
    return try buildArchive(entries)
}

final class PlacementTests: XCTestCase {
    /// The readable view of a cyclic save nests as deep as its schema, whatever its size, and
    /// says so: the depth reported is the nesting written.
    func testLeagueSavesNestAsDeepAsTheirSchema() throws {
        var depths: [Int] = []
        for teams in [8, 200, 2_000] {
            let bytes = try leagueArchive(teams: teams)
            let archive = try KeyedArchive(parsing: bytes)
            let json = try archive.json(view: .readable, pretty: false)
            XCTAssertEqual(jsonNesting(json), archive.depth(of: .readable), "\(teams) teams")
            depths.append(jsonNesting(json))
            try assertEquivalent(bytes, JSONDocument(parsing: json).archive(format: .binary))
            // Foundation's parser (limit 512) reads it.
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json)), "\(teams) teams")
        }
        XCTAssertEqual(Set(depths).count, 1, "\(depths)")
        XCTAssertLessThanOrEqual(depths[0], 16)
    }

    /// The teams' bodies stand in `League.teams` and the games' in `League.games`; a team's
    /// schedule lists references.
    func testSharedObjectsStandWhereTheyAreShallowest() throws {
        let archive = try KeyedArchive(parsing: leagueArchive(teams: 5))
        let json = try archive.json(view: .readable, pretty: false)
        let league = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let teams = try XCTUnwrap((league["teams"] as? [String: Any])?["$array"] as? [[String: Any]])
        let games = try XCTUnwrap((league["games"] as? [String: Any])?["$array"] as? [[String: Any]])
        XCTAssertEqual(teams.map { $0["$class"] as? String }, Array(repeating: "Team", count: 5))
        XCTAssertEqual(games.map { $0["$class"] as? String }, Array(repeating: "Game", count: 5))
        for team in teams {
            let schedule = try XCTUnwrap((team["schedule"] as? [String: Any])?["$array"] as? [[String: Any]])
            XCTAssertTrue(schedule.allSatisfy { $0.keys.sorted() == ["$ref"] }, "\(schedule)")
        }
        // Deterministic: the same archive gives the same bytes.
        XCTAssertEqual(try archive.json(view: .readable, pretty: false), json)
    }

    func testEveryFixtureNestsAsDeepAsReported() throws {
        var checked = 0
        for (name, _, archive) in Fixtures.archives() {
            let depth = archive.depth(of: .readable)
            XCTAssertEqual(jsonNesting(try archive.json(view: .readable, pretty: false)), depth, name)
            XCTAssertEqual(jsonNesting(try archive.json(view: .readable, pretty: true)), depth, name)
            let exact = try archive.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: true))
            XCTAssertEqual(jsonNesting(try archive.json(view: .readable, pretty: false, plan: exact)), exact.depth, name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 30)
    }

    func testRandomGraphsNestAsDeepAsReported() throws {
        var generator = TestRandom(for: self)
        for round in 0..<300 {
            var entries = randomGraph(count: Int.random(in: 1...30, using: &generator), using: &generator)
            // Values with wrappers of their own: $integer, $real, $data, $plistDate.
            entries.append(.int(Int64.min))
            entries.append(.real(.nan))
            entries.append(.data([1, 2]))
            entries.append(
                .object(
                    "W",
                    [
                        ("big", .int(Int64.max)), ("nan", .real(-.infinity)), ("ref", .uid(entries.count - 1)),
                        ("bytes", .data([3])), ("inline", .array([.int(Int64.min), .array([.uid(entries.count)])]))
                    ]))
            let bytes = try buildArchive(entries)
            let archive = try KeyedArchive(parsing: bytes)
            for exactIntegers in [false, true] {
                let plan = try archive.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: exactIntegers))
                let json = try archive.json(view: .readable, pretty: false, plan: plan)
                XCTAssertEqual(jsonNesting(json), plan.depth, "round \(round): \(String(decoding: json, as: UTF8.self))")
                let recursion = try archive.plist.withView { view -> Int in
                    var writer = ReadableWriter(
                        archive: archive, view: view, placement: try Placement(archive: archive, view: view, numbers: NumberWrapping(exactIntegers: exactIntegers), bound: nil),
                        out: JSONOutput(pretty: false))
                    writer.writeDocument()
                    return writer.maxDepth
                }
                XCTAssertLessThanOrEqual(recursion, plan.depth)
                try assertEquivalent(bytes, JSONDocument(parsing: json).archive(format: .binary))
            }
        }
    }

    /// Jobs of three, run in reverse, every queue split.
    private static let reversedParts = Parallelism(width: 3, smallestPart: 1) { jobs, job in
        for index in (0..<jobs).reversed() { job(index) }
    }

    /// Every keyed fixture, 60 random graphs and a league save.
    private func placementInputs() throws -> [[UInt8]] {
        var inputs: [[UInt8]] = Fixtures.names().compactMap { name in
            guard let bytes = try? Fixtures.bytes(name), (try? KeyedArchive(parsing: bytes)) != nil else { return nil }
            return bytes
        }
        var generator = TestRandom(for: self)
        for _ in 0..<60 { inputs.append(try buildArchive(randomGraph(count: Int.random(in: 1...60, using: &generator), using: &generator))) }
        inputs.append(try leagueArchive(teams: 30))
        return inputs
    }

    /// Bodies scanned in parallel parts (jobs run in reverse, every queue split) are placed
    /// exactly as one pass places them.
    func testPlacementInPartsIsTheSerialOne() throws {
        let parts = Self.reversedParts
        let inputs = try placementInputs()
        for bytes in inputs {
            let archive = try KeyedArchive(parsing: bytes)
            let (serial, split) = try archive.plist.withView { (view) throws(CodecError) in
                (
                    try Placement(archive: archive, view: view, numbers: NumberWrapping(exactIntegers: true), bound: nil),
                    try Placement(archive: archive, view: view, numbers: NumberWrapping(exactIntegers: true), bound: nil, parallelism: parts)
                )
            }
            XCTAssertEqual(split.bodyHolder, serial.bodyHolder)
            XCTAssertEqual(split.depth, serial.depth)
            let plan = try archive.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: true), parallelism: parts)
            XCTAssertEqual(
                try archive.json(view: .readable, pretty: false, plan: plan),
                try archive.json(view: .readable, pretty: false, plan: archive.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: true))))
        }
    }

    /// A placement grown part way (`GrowingPlacement`) says of every entry it has reached what
    /// the whole placement says (where its body stands, its number, whether it carries `$id`:
    /// a tie settled), numbers no other entry, keeps the entries by number, and once complete
    /// is the whole placement; its scans split in parts or not.
    func testAGrowingPlacementSaysWhatTheWholeOneSaysOfWhatItReached() throws {
        let parts = Self.reversedParts
        let inputs = try placementInputs()
        var partial = 0
        for bytes in inputs {
            let archive = try KeyedArchive(parsing: bytes)
            try archive.plist.withView { (view) throws(CodecError) in
                let whole = try Placement(archive: archive, view: view, numbers: .nonFinite, bound: nil)
                for parallelism in [Parallelism.serial, parts] {
                    let growing = GrowingPlacement(archive: archive, view: view, numbers: .nonFinite)
                    var bodies = 0
                    while !growing.complete {
                        let placement = try growing.placement(scanning: bodies, parallelism: parallelism)
                        let numbered = placement.entriesByID ?? []
                        XCTAssertEqual(numbered.count, placement.writtenIDs.filter { $0 > 0 }.count)
                        for (index, uid) in numbered.enumerated() { XCTAssertEqual(placement.writtenIDs[Int(uid)], UInt32(index + 1)) }
                        for uid in 0..<archive.objectCount {
                            guard placement.bodyHolder[uid] != Placement.unplaced else {
                                XCTAssertEqual(placement.writtenIDs[uid], 0)
                                continue
                            }
                            XCTAssertEqual(placement.bodyHolder[uid], whole.bodyHolder[uid])
                            XCTAssertEqual(placement.writtenIDs[uid], whole.writtenIDs[uid])
                            XCTAssertEqual(placement.carriesID[uid], whole.carriesID[uid])
                        }
                        if !growing.complete { partial += 1 }
                        bodies = bodies * 2 + 1
                    }
                    let complete = try growing.placement(scanning: .max, parallelism: parallelism)
                    XCTAssertEqual(complete.bodyHolder, whole.bodyHolder)
                    XCTAssertEqual(complete.writtenIDs, whole.writtenIDs)
                    XCTAssertEqual(complete.carriesID, whole.carriesID)
                    XCTAssertEqual(complete.depth, whole.depth)
                }
            }
        }
        XCTAssertGreaterThan(partial, 100)
    }

    /// Under `maxDepth`, every archive either nests no deeper and converts back to the same
    /// graph, in binary and XML, or is refused with a bound that does fit.
    func testBoundedNestingIsLosslessForEveryShape() throws {
        var inputs = Fixtures.archives().map { ($0.name, $0.bytes) }
        var generator = TestRandom(for: self)
        for round in 0..<60 {
            inputs.append(("random \(round)", try buildArchive(randomGraph(count: Int.random(in: 1...40, using: &generator), using: &generator))))
        }
        inputs.append(("chain", try chainArchive(depth: 300)))
        inputs.append(("cyclic chain", try chainArchive(depth: 300, cyclic: true)))
        inputs.append(("league", try leagueArchive(teams: 8)))
        var bounded = 0
        for (name, bytes) in inputs {
            let archive = try KeyedArchive(parsing: bytes)
            for bound in [2, 3, 8, 64] {
                let plan: WritePlan
                do {
                    plan = try archive.plan(view: .readable, pretty: false, maxDepth: bound)
                } catch {
                    XCTAssertEqual(error.kind, .depthBoundTooSmall, name)
                    let fits = try XCTUnwrap(error.found)
                    XCTAssertEqual(error.remedy, .nestingBound(fits), name)
                    XCTAssertFalse(error.message.contains("maxDepth"), "the codec words no front end's knob: \(error.message)")
                    XCTAssertGreaterThan(fits, bound, name)
                    XCTAssertLessThanOrEqual(try archive.plan(view: .readable, pretty: false, maxDepth: fits).depth, fits, name)
                    continue
                }
                let json = try archive.json(view: .readable, pretty: false, plan: plan)
                XCTAssertLessThanOrEqual(jsonNesting(json), bound, "\(name) at \(bound)")
                XCTAssertEqual(jsonNesting(json), plan.depth, "\(name) at \(bound)")
                if plan.tableCount > 0 { bounded += 1 }
                try assertEquivalent(bytes, JSONDocument(parsing: json).archive(format: .binary))
                try assertEquivalent(bytes, JSONDocument(parsing: json).archive(format: .xml))
            }
        }
        XCTAssertGreaterThanOrEqual(bounded, 4)  // both chains at 8 and 64 at least
        // No NSKeyedArchiver shape needs more than 6.
        for (name, bytes) in inputs {
            let archive = try KeyedArchive(parsing: bytes)
            XCTAssertLessThanOrEqual(try archive.plan(view: .readable, pretty: false, maxDepth: 6).depth, 6, name)
        }
    }

    /// A chain far deeper than any stack decodes under a bound, written by a writer that never
    /// recurses deeper than the bound: here on a 256 KiB stack.
    func testDeepChainUnderABoundNeedsNoDeepStack() throws {
        let bytes = try chainArchive(depth: 200_000, cyclic: true)
        var result: Result<[UInt8], CodecError>?
        onThread(stackSize: 16 << 20) {
            result = Result { () throws(CodecError) -> [UInt8] in
                let archive = try KeyedArchive(parsing: bytes)
                let plan = try archive.plan(view: .readable, pretty: false, maxDepth: 64)
                return try archive.json(view: .readable, pretty: false, plan: plan)
            }
        }
        let json = try XCTUnwrap(result).get()
        XCTAssertLessThanOrEqual(jsonNesting(json), 64)
        try assertEquivalent(bytes, JSONDocument(parsing: json).archive(format: .binary))
    }

    func testExactIntegersSurviveReadersThatUseDoubles() throws {
        let values: [Int64] = [Int64.min, Int64.max, 1 << 53, -(1 << 53), (1 << 53) - 1, -((1 << 53) - 1), 0]
        var entries: [Entry] = [.object("Box", [("inline", .int(Int64.min)), ("number", .uid(2)), ("list", .array([.int(Int64.max), .int(5)])), ("all", .uid(3))])]
        entries.append(.int(Int64.min))
        entries.append(.object("NSArray", [("NS.objects", .array(values.indices.map { .uid(4 + $0) } + [.uid(4 + values.count)]))]))
        entries += values.map { Entry.int($0) }
        entries.append(.int(Int64.min))  // a second entry with an equal value: written with $id
        let bytes = try buildArchive(entries)
        let archive = try KeyedArchive(parsing: bytes)
        let plain = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertFalse(plain.contains("$integer"))
        let plan = try archive.plan(view: .readable, pretty: false, numbers: NumberWrapping(exactIntegers: true))
        let exact = try archive.json(view: .readable, pretty: false, plan: plan)
        let text = String(decoding: exact, as: UTF8.self)
        XCTAssertTrue(text.contains(#""inline":{"$integer":"-9223372036854775808"}"#), text)
        XCTAssertTrue(text.contains(#""number":{"$number":{"$integer":"-9223372036854775808"}}"#), text)
        XCTAssertTrue(text.contains(#"{"$integer":"9007199254740992"}"#), text)
        XCTAssertTrue(text.contains(#",9007199254740991,"#), text)
        XCTAssertTrue(text.contains(#"-9007199254740991"#), text)
        XCTAssertEqual(jsonNesting(exact), plan.depth)
        try assertEquivalent(bytes, JSONDocument(parsing: exact).archive(format: .binary))
        try assertEquivalent(bytes, JSONDocument(parsing: exact).archive(format: .xml))
        // Every number a double reader sees is exact.
        let parsed = try JSONSerialization.jsonObject(with: Data(exact))
        func numbers(_ value: Any) -> [NSNumber] {
            if let list = value as? [Any] { return list.flatMap(numbers) }
            if let object = value as? [String: Any] { return object.values.flatMap(numbers) }
            return (value as? NSNumber).map { [$0] } ?? []
        }
        XCTAssertTrue(numbers(parsed).allSatisfy { $0.doubleValue.magnitude < 9_007_199_254_740_992 })
    }

    func testIntegerWrapperAndTableAreChecked() throws {
        for (json, message) in [
            (#"{"$integer":"12a"}"#, "decimal text"),
            (#"{"$integer":"18446744073709551616"}"#, "outside"),
            (#"{"$integer":5}"#, "decimal text"),
            (#"{"$top":{"root":{"$ref":1}},"$table":[{"$class":"A","$id":1},{"$class":"B"}]}"#, "$table entry"),
            (#"{"$top":{"root":{"$ref":1}},"$table":{}}"#, "$table must be an array")
        ] {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary), json) { error in
                XCTAssertTrue("\(error)".contains(message), "\(json): \(error)")
            }
        }
        let table = #"{"$top":{"root":{"$ref":1}},"$table":[{"$class":"A","$id":1,"next":{"$ref":2},"big":{"$integer":"18446744073709551615"}},{"$class":"B","$id":2,"back":{"$ref":1}}]}"#
        let archive = try KeyedArchive(parsing: JSONDocument(parsing: Array(table.utf8)).archive(format: .binary))
        XCTAssertEqual(
            String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self),
            #"{"$class":"A","$id":1,"next":{"$class":"B","back":{"$ref":1}},"big":18446744073709551615}"#)
    }

    /// Bookmark bytes with one table of `entries` entries, each naming one small item.
    private func bookmark(entries: Int) -> [UInt8] {
        var builder = BookmarkBuilder()
        let number = builder.item(0x0303, BookmarkBuilder.word(7))
        let table = builder.table((0..<entries).map { (UInt32(0x3000 + $0), number) })
        return builder.bytes(first: table)
    }

    /// A data value that carries an account, shared by `references` places: one data entry
    /// written bare at every reference of an array, and one plist data object held inline
    /// under a key of as many instances.
    private func sharedAccounts(references: Int, entries: Int) throws -> (entry: [UInt8], inline: [UInt8]) {
        let bytes = bookmark(entries: entries)
        let entry = try buildArchive([.object("NSArray", [("NS.objects", .array([Value](repeating: .uid(2), count: references)))]), .data(bytes)])
        var instances: [Entry] = [.object("NSArray", [("NS.objects", .array((0..<references).map { .uid(2 + $0) }))])]
        instances += [Entry](repeating: .object("Holder", [("bookmark", .data(bytes))]), count: references)
        return (entry, try buildArchive(instances))
    }

    /// The account of a data value is measured once per data object, not at every reference
    /// (bookmarks of many entries at many references would cost their product).
    func testASharedAccountIsMeasuredOnce() throws {
        let result = try ScalingCheck.measure(
            startingAt: 1_200, maximumSize: 2_400,
            make: { size in
                let (entry, inline) = try sharedAccounts(references: size, entries: size / 4)
                return (try KeyedArchive(parsing: entry), try KeyedArchive(parsing: inline))
            }
        ) { entry, inline in
            _ = try entry.plan(view: .readable, pretty: false)
            _ = try inline.plan(view: .readable, pretty: false)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }
}
