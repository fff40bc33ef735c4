import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Keyed archives and plain property lists cost time linear in their size in every shape a
/// hostile client can choose: many classes, one object of many keys, long chains of objects,
/// one dictionary of many keys. Each shape is decoded, encoded back from its JSON
/// and summed up at n and 4n (`ScalingCheck`).
final class KeyedScalingTests: XCTestCase {
    private struct Shape: Sendable {
        let name: String
        let archive: @Sendable (Int) throws -> [UInt8]
    }

    private static let shapes: [Shape] = [
        Shape(name: "an object of each class") { count in
            try buildArchive(
                [.object("Root", [("all", .array((0..<count).map { .uid($0 + 2) }))])]
                    + (0..<count).map { .object("Class\($0)", [("n", .int(Int64($0)))]) })
        },
        Shape(name: "one object of many keys") { count in
            try buildArchive([.object("Wide", (0..<count).map { ("key\($0)", .int(Int64($0))) })])
        },
        Shape(name: "a chain of objects") { count in
            try buildArchive((0..<count).map { .object("Node", [("next", .uid($0 + 1 < count ? $0 + 2 : 0)), ("n", .int(Int64($0)))]) })
        },
        Shape(name: "a plain dictionary of many keys") { count in
            let members = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
            return try JSONDocument(parsing: Array("{\"$propertyList\":{\(members)}}".utf8)).archive(format: .binary)
        }
    ]

    /// The readable JSON with a nesting bound, so a chain of any length is written without
    /// deep recursion.
    private static func readableJSON(_ bytes: [UInt8]) throws -> [UInt8] {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false, maxDepth: 64)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text.append(contentsOf: $0) }
        return text
    }

    private func assertLinear(_ what: String, _ result: ScalingCheck.Result) {
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, "\(what): \(result)")
    }

    func testDecodeIsLinearInEveryShape() throws {
        for shape in Self.shapes {
            let result = try ScalingCheck.measure(startingAt: 2_000, maximumSize: 200_000, make: shape.archive) { bytes in
                _ = try Self.readableJSON(bytes)
            }
            assertLinear("decode, \(shape.name)", result)
        }
    }

    func testEncodeIsLinearInEveryShape() throws {
        for shape in Self.shapes {
            let result = try ScalingCheck.measure(
                startingAt: 2_000, maximumSize: 200_000,
                make: { count in try Self.readableJSON(try shape.archive(count)) }
            ) { json in
                try JSONDocument(parsing: json).writeArchive { _ in }
            }
            assertLinear("encode, \(shape.name)", result)
        }
    }

    func testSummaryIsLinearInEveryShape() throws {
        for shape in Self.shapes {
            let result = try ScalingCheck.measure(startingAt: 2_000, maximumSize: 200_000, make: shape.archive) { bytes in
                _ = try Archive(parsing: bytes).summary()
            }
            assertLinear("summary, \(shape.name)", result)
        }
    }

    /// Compare (`archive-tool compare`) of an archive with itself where every instance holds
    /// one key object of `n` bytes, `n / 64` instances: the key's text is decoded and hashed
    /// once, not once per instance.
    func testCompareOfASharedLongKeyIsLinear() throws {
        // Made with one key object (the builder would hash the long text once per instance).
        func archive(_ length: Int) -> [UInt8] {
            var plist = TestPlistBuilder()
            let count = length / 64
            let key = plist.string(String(repeating: "k", count: length))
            let classKey = plist.string("$class")
            let itemClass = plist.add(
                .dict([(key: plist.string("$classname"), value: plist.string("Item")), (key: plist.string("$classes"), value: plist.add(.array([plist.string("Item"), plist.string("NSObject")])))]))
            let arrayClass = plist.add(
                .dict([
                    (key: plist.string("$classname"), value: plist.string("NSArray")), (key: plist.string("$classes"), value: plist.add(.array([plist.string("NSArray"), plist.string("NSObject")])))
                ]))
            let itemClassUID = plist.uid(count + 2)
            var objects = [
                plist.string("$null"),
                plist.add(.dict([(key: classKey, value: plist.uid(count + 3)), (key: plist.string("NS.objects"), value: plist.add(.array((0..<count).map { plist.uid($0 + 2) })))]))
            ]
            for index in 0..<count { objects.append(plist.add(.dict([(key: classKey, value: itemClassUID), (key: key, value: plist.integer(Int64(index)))]))) }
            objects += [itemClass, arrayClass]
            return plist.keyedArchive(objects: objects)
        }
        let result = try ScalingCheck.measure(startingAt: 4_000, maximumSize: 64_000, make: { try Archive(parsing: archive($0)) }) { parsed in
            XCTAssertNil(parsed.difference(from: parsed))
        }
        assertLinear("compare, a long key shared by every instance", result)
    }
}
