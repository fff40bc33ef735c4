import TestSupport
import XCTest

@testable import ArchiveCodec

/// Summaries merged: the counts add up, the nesting is the deeper, the format is mixed when
/// the kinds differ, and the lists stay ordered and bounded.
final class ArchiveSummaryMergeTests: XCTestCase {
    func testTwoFilesAddUp() throws {
        let a = try Archive(parsing: try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")).summary()
        let b = try Archive(parsing: try Fixtures.bytes("goios_xctestconfiguration.bin")).summary()
        let merged = a.attributed(to: "a").merged(with: b.attributed(to: "b"))
        XCTAssertEqual(merged.format, .keyedArchive)
        XCTAssertEqual(merged.files, 2)
        XCTAssertEqual(merged.bytes, a.bytes + b.bytes)
        XCTAssertEqual(merged.objects, a.objects + b.objects)
        XCTAssertEqual(merged.shared, a.shared + b.shared)
        XCTAssertEqual(merged.cyclic, a.cyclic + b.cyclic)
        XCTAssertEqual(merged.readableNesting, max(a.readableNesting, b.readableNesting))
        XCTAssertEqual(merged.rawNesting, max(a.rawNesting, b.rawNesting))
        var counts: [String: Int] = [:]
        var keyCounts: [String: Int] = [:]
        for use in a.classes + b.classes {
            counts[use.name, default: 0] += use.count
            for key in use.keys { keyCounts[use.name + "." + key.key, default: 0] += key.count }
        }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: merged.classes.map { ($0.name, $0.count) }), counts)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: merged.classes.flatMap { use in use.keys.map { (use.name + "." + $0.key, $0.count) } }), keyCounts)
        let lengths = (a.largestStrings + b.largestStrings).map(\.length).sorted(by: >)
        XCTAssertEqual(merged.largestStrings.map(\.length), Array(lengths.prefix(ArchiveSummary.listedValues)))
        XCTAssertTrue(merged.largestStrings.allSatisfy { $0.file == "a" || $0.file == "b" })
        let order = merged.classes.map { (-$0.count, $0.name) }
        XCTAssertTrue(zip(order, order.dropFirst()).allSatisfy { $0 < $1 })
    }

    func testDifferentKindsAreMixed() throws {
        let keyed = try Archive(parsing: try Fixtures.bytes("goios_nsuuid.bin")).summary()
        let list = try Archive(parsing: try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")).summary()
        let merged = keyed.merged(with: list)
        XCTAssertEqual(merged.format, .mixed)
        XCTAssertEqual(merged.nestedPayloads, list.nestedPayloads)
        XCTAssertEqual(merged.dictionaryKeys.count, list.dictionaryKeys.count)
        XCTAssertEqual(merged.dictionaries, list.dictionaries)
    }

    func testMergedClassesStayBounded() {
        var a = ArchiveSummary(format: .keyedArchive)
        var b = ArchiveSummary(format: .keyedArchive)
        func use(_ name: String, _ count: Int) -> ArchiveSummary.ClassUse {
            ArchiveSummary.ClassUse(name: name, chain: [], count: count, shared: 0, cyclic: 0, keys: [], keysNotListed: 0)
        }
        a.classes = (0..<ArchiveSummary.listedClasses).map { use("A\($0)", 2) }
        b.classes = (0..<ArchiveSummary.listedClasses).map { use("B\($0)", 1) } + [use("A0", 5)]
        let merged = a.merged(with: b)
        XCTAssertEqual(merged.classes.count, ArchiveSummary.listedClasses)
        XCTAssertEqual(merged.classesNotListed, ArchiveSummary.listedClasses)
        XCTAssertEqual(merged.classes.first?.name, "A0")
        XCTAssertEqual(merged.classes.first?.count, 7)
    }
}
