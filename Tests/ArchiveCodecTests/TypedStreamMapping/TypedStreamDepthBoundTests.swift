import TestSupport
import XCTest

@testable import ArchiveCodec

/// `TypedStreamDocument.depthBound`, the nesting a decode under a depth limit takes without a
/// walk: never below the depth the walk measures, and exact wherever a limit is passed.
final class TypedStreamDepthBoundTests: XCTestCase {
    /// Every real stream, with each choice of wrapped numbers (wrappers nest a level).
    func testTheBoundIsAtLeastTheMeasuredDepthOfEveryRealStream() throws {
        var names = Fixtures.typedStreamNames()
        XCTAssertGreaterThan(names.count, 10)
        names.removeAll { $0 == "imessage-exporter_attributedBody-ExtraData.bin" }  // malformed on purpose
        for name in names {
            let document = try TypedStreamDocument(parsing: Fixtures.typedStream(name))
            for numbers in [NumberWrapping.nonFinite, .integers, .all] {
                let measured = document.depth(numbers: numbers)
                XCTAssertGreaterThanOrEqual(document.depthBound, measured, "\(name), \(numbers)")
            }
        }
    }

    /// A salvaged stream's break mark (`{"$broken": {…, "rest": {"$data": …}}}`) stands where a
    /// value or a group would: every cut of real streams keeps the bound above the depth.
    func testTheBoundHoldsForEveryCutOfSalvagedStreams() throws {
        for name in ["python-typedstream_Emacs.clr", "imessage-exporter_attributedBody-MultiPart.bin", "thecheat_NetTraffic.nib-objects.nib"] {
            let bytes = try Fixtures.typedStream(name)
            var salvaged = 0
            for length in stride(from: 16, to: min(bytes.count, 3_000), by: 1) {
                guard let document = try? TypedStreamDocument(parsing: Array(bytes[..<length]), salvaging: true) else { continue }
                if document.stream.broken != nil { salvaged += 1 }
                XCTAssertGreaterThanOrEqual(document.depthBound, document.depth(numbers: .all), "\(name) cut at \(length)")
            }
            XCTAssertGreaterThan(salvaged, 0, name)
        }
    }

    /// The builder counts what is open at once: a stream's bound grows with its nesting, not
    /// with its length.
    func testTheBoundFollowsNestingNotLength() throws {
        func stream(objectsInside depth: Int, siblings: Int) throws -> TypedStreamDocument {
            var builder = TypedStreamBuilder(byteOrder: .little)
            let node = try builder.defineClass("Node")
            for _ in 0..<siblings {
                for _ in 0..<depth {
                    try builder.beginGroup("@")
                    _ = try builder.beginObject(class: node)
                }
                for _ in 0..<depth {
                    try builder.endObject()
                    try builder.end()
                }
            }
            return try TypedStreamDocument(parsing: TypedStreamWriter.write(builder.finish()))
        }
        let shallow = try stream(objectsInside: 2, siblings: 1)
        XCTAssertEqual(try stream(objectsInside: 2, siblings: 500).depthBound, shallow.depthBound)
        let deep = try stream(objectsInside: 40, siblings: 1)
        XCTAssertGreaterThan(deep.depthBound, shallow.depthBound)
        XCTAssertGreaterThanOrEqual(deep.depthBound, deep.depth(numbers: .nonFinite))
    }

    /// Under a limit the bound clears, the plan's depth is the bound; under one it passes, the
    /// measured depth — so a refusal names the stream's true nesting, and a stream whose bound
    /// passes a limit its nesting does not is still decoded.
    func testAPlanTakesTheBoundOnlyWithinTheLimit() throws {
        let document = try TypedStreamDocument(parsing: Fixtures.typedStream("python-typedstream_Emacs.clr"))
        let measured = document.depth(numbers: .nonFinite)
        let bound = document.depthBound
        XCTAssertGreaterThan(bound, measured, "a stream whose bound is above its depth, for the limits between")
        let archive = try Archive(parsing: Fixtures.typedStream("python-typedstream_Emacs.clr"))
        XCTAssertEqual(try archive.plan(view: .readable, pretty: false, depthLimit: bound).depth, bound)
        XCTAssertEqual(try archive.plan(view: .readable, pretty: false, depthLimit: bound - 1).depth, measured)
        XCTAssertEqual(try archive.plan(view: .readable, pretty: false, depthLimit: measured).depth, measured)
        XCTAssertEqual(try archive.plan(view: .readable, pretty: false).depth, measured, "no limit: measured")
        let policy = DecodePolicy(depthLimit: measured)
        let plan = try archive.plan(view: .readable, pretty: false, depthLimit: policy.nestingLimit(pretty: false))
        XCTAssertNil(policy.refusal(depth: plan.depth, pretty: false))
        let tighter = DecodePolicy(depthLimit: measured - 1)
        let refused = try archive.plan(view: .readable, pretty: false, depthLimit: tighter.nestingLimit(pretty: false))
        XCTAssertEqual(tighter.refusal(depth: refused.depth, pretty: false), .tooDeep(depth: measured, limit: measured - 1))
        // A nesting bound (`maxDepth`) the bound passes but the stream does not: decoded.
        XCTAssertEqual(try archive.plan(view: .readable, pretty: false, maxDepth: measured, depthLimit: bound).depth, measured)
        XCTAssertThrowsError(try archive.plan(view: .readable, pretty: false, maxDepth: measured - 1, depthLimit: bound))
    }
}
