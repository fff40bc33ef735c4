import TestSupport
import XCTest

@testable import ArchiveCodec

/// A typedstream's summary against what pytypedstream read in the same file (the oracle's
/// events, `Tests/Fixtures/public/typedstream-oracle/`): objects, their classes, the objects
/// referred to more than once, and those on a reference cycle.
final class TypedStreamSummaryTests: XCTestCase {
    /// The oracle's counts: objects are its `object` lines; `ref object N`, `ref class N` and
    /// `ref cstring N` count objects, classes and C strings together in the order they appear.
    private struct OracleCounts {
        var objects = 0
        var classCounts: [String: Int] = [:]
        var shared = 0
        var cyclic = 0

        init(events: String) {
            var numbered: [(kind: String, index: Int)] = []
            var classNames: [String] = []
            var references: [Int] = []
            var edges: [[Int]] = []
            var open: [Int] = []
            var classOfObject: [Int] = []
            var awaitingClass = false
            for line in events.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                switch (words.first, words.count > 1 ? words[1] : "") {
                case ("object", _):
                    let object = references.count
                    references.append(1)
                    edges.append([])
                    classOfObject.append(-1)
                    if let parent = open.last { edges[parent].append(object) }
                    open.append(object)
                    numbered.append(("object", object))
                    awaitingClass = true
                case ("end", "object"): open.removeLast()
                case ("class", _):
                    let name = String(line.split(separator: "\"")[1])
                    numbered.append(("class", classNames.count))
                    if awaitingClass { classOfObject[open.last!] = classNames.count }
                    classNames.append(name)
                    awaitingClass = false
                case ("cstring", _): numbered.append(("cstring", 0))
                case ("ref", "object"):
                    let object = numbered[Int(words[2])! - Self.firstNumber].index
                    references[object] += 1
                    if let parent = open.last { edges[parent].append(object) }
                case ("ref", "class"):
                    if awaitingClass { classOfObject[open.last!] = numbered[Int(words[2])! - Self.firstNumber].index }
                    awaitingClass = false
                default: break
                }
            }
            objects = references.count
            shared = references.filter { $0 > 1 }.count
            for object in 0..<objects {
                classCounts[classNames[classOfObject[object]], default: 0] += 1
                var seen = Set<Int>()
                var pending = edges[object]
                while let next = pending.popLast() {
                    if next == object {
                        cyclic += 1
                        break
                    }
                    if seen.insert(next).inserted { pending += edges[next] }
                }
            }
        }

        /// The number the stream gives its first object, class or C string.
        static let firstNumber = 0
    }

    func testCountsMatchTheOracle() throws {
        for name in Fixtures.typedStreamNames() {
            let summary = try Archive(parsing: try Fixtures.typedStream(name)).summary()
            let oracle = OracleCounts(events: try Fixtures.typedStreamOracle(name))
            XCTAssertEqual(summary.format, .typedStream, name)
            XCTAssertEqual(summary.objects, oracle.objects, name)
            XCTAssertEqual(summary.shared, oracle.shared, name)
            XCTAssertEqual(summary.cyclic, oracle.cyclic, name)
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: summary.classes.map { ($0.name, $0.count) }), oracle.classCounts, name)
        }
    }

    /// Chains from the superclass links; keys are the groups' type strings; no places named.
    func testChainsKeysAndNoPaths() throws {
        let summary = try Archive(parsing: try Fixtures.typedStream("python-typedstream_Emacs.clr")).summary()
        let color = try XCTUnwrap(summary.classes.first { $0.name == "NSColor" })
        XCTAssertEqual(color.chain, ["NSColor", "NSObject"])
        XCTAssertTrue(color.keys.contains { $0.key == "c" && $0.kinds == [ArchiveSummary.KindCount(kind: "integer", count: $0.count)] }, "\(color.keys)")
        XCTAssertTrue(summary.largestStrings.allSatisfy { $0.path == nil })
        XCTAssertFalse(summary.largestStrings.isEmpty)
    }
}
