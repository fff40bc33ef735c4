import XCTest

@testable import ArchiveCodec

/// The tally's counts and its bounds: keys per class and in all, kinds per key, names cut.
final class SummaryTallyTests: XCTestCase {
    func testCountsKeysAndKindsByName() {
        var tally = SummaryTally()
        let team = tally.classIndex(name: "Team", chain: ["Team", "NSObject"])
        XCTAssertEqual(tally.classIndex(name: "Team", chain: []), team)
        tally.noteInstance(of: team, shared: true, cyclic: false)
        tally.noteInstance(of: team, shared: false, cyclic: true)
        tally.noteKey(owner: team, keyID: 7, name: { "name" }, kind: SummaryTally.kind(.string))
        tally.noteKey(
            owner: team, keyID: 7,
            name: {
                XCTFail("named twice")
                return ""
            }, kind: SummaryTally.kind(.string))
        // Another plist object of the same text is the same key.
        tally.noteKey(owner: team, keyID: 9, name: { "name" }, kind: SummaryTally.classKind(team))
        tally.noteKey(owner: -1, keyID: 7, name: { "plain" }, kind: SummaryTally.kind(.uid))
        var summary = ArchiveSummary(format: .keyedArchive)
        tally.finish(into: &summary)
        XCTAssertEqual(
            summary.classes,
            [
                ArchiveSummary.ClassUse(
                    name: "Team", chain: ["Team", "NSObject"], count: 2, shared: 1, cyclic: 1,
                    keys: [ArchiveSummary.KeyUse(key: "name", count: 3, kinds: [.init(kind: "string", count: 2), .init(kind: "Team", count: 1)], kindsNotListed: 0)],
                    keysNotListed: 0)
            ])
        XCTAssertEqual(summary.dictionaryKeys, [ArchiveSummary.KeyUse(key: "plain", count: 1, kinds: [.init(kind: "uid", count: 1)], kindsNotListed: 0)])
    }

    func testKeysPerClassAreBounded() {
        var tally = SummaryTally()
        let owner = tally.classIndex(name: "Wide", chain: [])
        tally.noteInstance(of: owner, shared: false, cyclic: false)
        for key in 0..<(ArchiveSummary.listedKeys + 50) {
            tally.noteKey(owner: owner, keyID: key, name: { "k\(key)" }, kind: SummaryTally.kind(.integer))
            tally.noteKey(owner: owner, keyID: key, name: { "k\(key)" }, kind: SummaryTally.kind(.integer))
        }
        var summary = ArchiveSummary(format: .keyedArchive)
        tally.finish(into: &summary)
        XCTAssertEqual(summary.classes[0].keys.count, ArchiveSummary.listedKeys)
        XCTAssertEqual(summary.classes[0].keysNotListed, 100)
    }

    func testKeysInAllAndKindsAreBounded() {
        var tally = SummaryTally()
        var key = 0
        for number in 0..<40 {
            let owner = tally.classIndex(name: "C\(number)", chain: [])
            tally.noteInstance(of: owner, shared: false, cyclic: false)
            for _ in 0..<ArchiveSummary.listedKeys {
                tally.noteKey(owner: owner, keyID: key, name: { "k" }, kind: SummaryTally.kind(.integer))
                key += 1
            }
        }
        var summary = ArchiveSummary(format: .keyedArchive)
        tally.finish(into: &summary)
        // Keys of one name within a class are one key; the keys past those tracked in all are not listed.
        XCTAssertEqual(summary.classes.reduce(0) { $0 + $1.keys.reduce(0) { $0 + $1.count } }, SummaryTally.keysInAll)
        XCTAssertEqual(summary.classes.reduce(0) { $0 + $1.keysNotListed }, 40 * ArchiveSummary.listedKeys - SummaryTally.keysInAll)

        var kinds = SummaryTally()
        let owner = kinds.classIndex(name: "Mixed", chain: [])
        for kind in 0..<40 { kinds.noteKey(owner: owner, keyID: 1, name: { "any" }, kind: SummaryTally.classKind(kinds.classIndex(name: "K\(kind)", chain: []))) }
        var mixed = ArchiveSummary(format: .keyedArchive)
        kinds.noteInstance(of: owner, shared: false, cyclic: false)
        kinds.finish(into: &mixed)
        let use = mixed.classes[0].keys[0]
        XCTAssertEqual(use.kinds.count, ArchiveSummary.listedKinds)
        XCTAssertEqual(use.kindsNotListed, 40 - ArchiveSummary.listedKinds)
        XCTAssertEqual(use.count, 40)
    }

    func testLongNamesAreCut() {
        let long = String(repeating: "é", count: ArchiveSummary.listedNameLength + 5)
        XCTAssertEqual(SummaryTally.shown(long), String(repeating: "é", count: ArchiveSummary.listedNameLength) + "…")
        XCTAssertEqual(SummaryTally.shown("short"), "short")
        var tally = SummaryTally()
        let owner = tally.classIndex(name: long, chain: Array(repeating: long, count: 40))
        XCTAssertEqual(tally.classes[owner].chain.count, ArchiveSummary.listedChainLength)
        XCTAssertEqual(tally.classes[owner].name.count, ArchiveSummary.listedNameLength + 1)
    }
}
