import ArchiveCodec
import XCTest

/// Every way the readable writer recurses, run at exactly the depth `StackBudget` admits on a
/// stack just big enough for it: if a shape costs more per level than the budget says, the
/// thread overflows its stack and the test process dies. (The shapes are those of
/// scripts/gen/gen_deep_json.py, which scripts/bench/measure_stack.sh measures.)
final class StackBudgetTests: XCTestCase {
    static let shapes: [(name: String, prefix: String, suffix: String)] = [
        ("generic", #"{"$class":"N","next":"#, "}"),
        ("array", "[", "]"),
        ("dict", #"{"a":"#, "}"),
        ("wrapper", #"{"$class":"NSMutableArray","$array":["#, "]}"),
        ("set", #"{"$set":["#, "]}"),
        ("ordered", #"{"$orderedSet":["#, "]}"),
        ("pairs", #"{"$dict":[[1,"#, "]]}"),
        ("plist", #"{"$plist":["#, "]}"),
        ("inline", #"{"$inline":["#, "]}")
    ]

    static func document(_ shape: (name: String, prefix: String, suffix: String), levels: Int) -> [UInt8] {
        let body = String(repeating: shape.prefix, count: levels) + "1" + String(repeating: shape.suffix, count: levels)
        return Array((shape.name == "inline" ? #"{"$class":"X","k":"# + body + "}" : body).utf8)
    }

    /// The smallest page-rounded stack on which `depth` levels are admitted.
    static func stack(for depth: Int, bytesPerLevel: Int) -> Int {
        (StackBudget.reserveBytes + depth * bytesPerLevel + 4095) / 4096 * 4096
    }

    func testEveryShapeConvertsAtTheDepthLimit() throws {
        try XCTSkipUnless(StackBudget.holdsForThisBuild, "runs at the stack's depth limit, measured without AddressSanitizer, whose frames are larger")
        let levels = 400
        for shape in Self.shapes {
            let json = Self.document(shape, levels: levels)
            // The encoder does not recurse: it takes any shape on the smallest stack.
            let document = try JSONDocument(parsing: json)
            var archive: [UInt8] = []
            var failure: (any Error)?
            onThread(stackSize: StackBudget.minimumStackSize) {
                do { archive = try document.archive(format: .binary) } catch { failure = error }
            }
            if let failure { throw failure }

            let parsed = try KeyedArchive(parsing: archive)
            for view in [ArchiveView.readable, .raw] {
                let depth = parsed.depth(of: view)
                let decodeStack = Self.stack(for: depth, bytesPerLevel: StackBudget.bytesPerLevel)
                XCTAssertGreaterThanOrEqual(StackBudget.maxDepth(stackSize: decodeStack), depth)
                var output: [UInt8] = []
                onThread(stackSize: decodeStack) { output = (try? parsed.json(view: view, pretty: false)) ?? [] }
                XCTAssertFalse(output.isEmpty, shape.name)
                if view == .readable {
                    XCTAssertEqual(output, json, "\(shape.name): the readable view gives the document back")
                }
            }
        }
    }

    /// The encoder has no recursion at all: 20,000 levels of every shape encode on the smallest
    /// stack the service allows, and decode (on a big stack) to the same document.
    func testEncoderTakesAnyDepthOnTheSmallestStack() throws {
        for shape in Self.shapes {
            let json = Self.document(shape, levels: 20_000)
            let document = try JSONDocument(parsing: json)
            var archive: [UInt8] = []
            var failure: (any Error)?
            onThread(stackSize: StackBudget.minimumStackSize) {
                do { archive = try document.archive(format: shape.name == "set" ? .xml : .binary) } catch { failure = error }
            }
            if let failure { throw failure }
            var back: [UInt8] = []
            let parsed = try KeyedArchive(parsing: archive)
            onThread(stackSize: 1 << 30) { back = (try? parsed.json(view: .readable, pretty: false)) ?? [] }
            XCTAssertEqual(back, json, shape.name)
        }
    }

    /// XML indentation stops growing past a depth, so deep documents give XML linear in their
    /// size (one tab per level would make 100,000 levels 10 GB), and it still reads back.
    func testDeepXMLStaysLinear() throws {
        let levels = 100_000
        let json = Self.document(Self.shapes.first { $0.name == "inline" }!, levels: levels)
        let document = try JSONDocument(parsing: json)
        let xml = try document.archive(format: .xml)
        XCTAssertLessThan(xml.count, 200 * levels)
        var back: [UInt8] = []
        let parsed = try KeyedArchive(parsing: xml)
        onThread(stackSize: 1 << 30) { back = (try? parsed.json(view: .readable, pretty: false)) ?? [] }
        XCTAssertEqual(back, json)
    }
}
