import TestSupport
import XCTest

@testable import ArchiveCodec

/// A stream's groups, which `TypedStream` keeps no table of: each is named by its first value,
/// an object's are the run of values it reserved, and the next group starts past the last run
/// reserved inside one (`end(ofGroup:)`), through new objects and composites nested in it.
final class TypedStreamGroupsTests: XCTestCase {
    /// Values, in the order they are reserved:
    /// - 0: top-level `i`;
    /// - 1, 2: top-level `{P=@i}@`; the struct's children 3 (object A, new) and 4;
    ///   A's groups `i` (5) and `[2{Q=ii}]` (6; its structs 7 and 8, their fields 9–10, 11–12);
    ///   then object B (value 2, new), its group `+` (13);
    /// - 14: top-level `@`, back to A;
    /// - 15, 16: top-level `ii`;
    /// - 17: top-level `@`, object C (new) with no groups.
    func nestedStream() throws -> TypedStream {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let root = try builder.defineClass("NSObject")
        try builder.beginGroup("i")
        try builder.integer(5)
        try builder.end()

        try builder.beginGroup("{P=@i}@")
        try builder.beginComposite()
        let a = try builder.beginObject(class: root)
        try builder.beginGroup("i")
        try builder.integer(6)
        try builder.end()
        try builder.beginGroup("[2{Q=ii}]")
        try builder.beginComposite()
        for pair in [[1, 2], [3, 4]] {
            try builder.beginComposite()
            for field in pair { try builder.integer(Int64(field)) }
            try builder.end()
        }
        try builder.end()
        try builder.end()
        try builder.endObject()
        try builder.integer(7)
        try builder.end()
        _ = try builder.beginObject(class: root)
        try builder.beginGroup("+")
        try builder.byteString(Array("b".utf8))
        try builder.end()
        try builder.endObject()
        try builder.end()

        try builder.beginGroup("@")
        try builder.object(a)
        try builder.end()

        try builder.beginGroup("ii")
        try builder.integer(8)
        try builder.integer(9)
        try builder.end()

        try builder.beginGroup("@")
        _ = try builder.beginObject(class: root)
        try builder.endObject()
        try builder.end()
        return try builder.finish()
    }

    func testGroupsAreFoundPastWhatIsReservedInsideThem() throws {
        let stream = try nestedStream()
        XCTAssertEqual(stream.values.count, 18)
        XCTAssertEqual(Array(stream.topLevelGroups), [0, 1, 14, 15, 17])
        XCTAssertEqual(stream.objects.map { [$0.firstValue, $0.end] }, [[5, 13], [13, 14], [18, 18]])
        XCTAssertEqual(Array(stream.groups(ofObject: 0)), [5, 6])
        XCTAssertEqual(Array(stream.groups(ofObject: 1)), [13])
        XCTAssertEqual(Array(stream.groups(ofObject: 2)), [], "an object of no groups")
        XCTAssertEqual(stream.end(ofGroup: 1), 14, "past the struct's object and the group's own object")
        XCTAssertEqual(stream.end(ofGroup: 6), 13, "past the array's structs' fields")
        XCTAssertEqual(stream.end(ofGroup: 14), 15, "a back-reference holds nothing")
        XCTAssertEqual(stream.values(ofGroup: 15), 15..<17)
        XCTAssertEqual(String(decoding: stream.encoding(ofGroup: 6), as: UTF8.self), "[2{Q=ii}]")
        XCTAssertEqual(stream.countGroups(), 8)
        var every: [Int] = []
        stream.forEveryGroup { every.append($0) }
        XCTAssertEqual(every, [0, 1, 14, 15, 17, 5, 6, 13], "the top-level groups, then each object's")
        XCTAssertEqual(stream.firstGroup { stream.encoding(ofGroup: $0).elementsEqual("+".utf8) }, 13)
        XCTAssertNil(stream.firstGroup { _ in false })
    }

    /// The walk gives the same top-level groups whether or not its caller goes into what they
    /// hold, and every group in stream order when it goes into everything.
    func testTheWalkFindsTheNextGroupWhateverItsCallerSkips() throws {
        let stream = try nestedStream()
        var skipping = TypedStreamWalk(stream)
        var groups: [Int] = []
        while let step = skipping.next() {
            if case .group(let group, _) = step { groups.append(group) }
        }
        XCTAssertEqual(groups, [0, 1, 14, 15, 17])

        var entering = TypedStreamWalk(stream)
        groups = []
        var values: [Int] = []
        while let step = entering.next() {
            switch step {
            case .group(let group, let count):
                groups.append(group)
                XCTAssertEqual(count, stream.values(ofGroup: group).count)
            case .value(let index):
                values.append(index)
                switch stream.content(of: index) {
                case .object(let object?) where stream.values[index].isFirstOccurrence: entering.enter(object: object)
                case .array, .structure, .pointer: entering.enter(childrenOf: index)
                default: break
                }
            default: break
            }
        }
        XCTAssertEqual(groups, [0, 1, 5, 6, 13, 14, 15, 17])
        XCTAssertEqual(values.sorted(), Array(0..<18), "every value once")
    }

    /// Runs that hold nothing after the group's object: an empty struct, an empty array (each
    /// an empty run where the next would start) and a byte array (no run: its bytes are
    /// storage).
    func testEmptyRunsAndByteArraysAfterANewObject() throws {
        for encoding in ["@{}", "@[0i]", "@[2c]"] {
            var builder = TypedStreamBuilder(byteOrder: .little)
            let root = try builder.defineClass("NSObject")
            try builder.beginGroup(encoding)
            _ = try builder.beginObject(class: root)
            try builder.beginGroup("ii")
            try builder.integer(1)
            try builder.integer(2)
            try builder.end()
            try builder.endObject()
            if encoding == "@[2c]" {
                try builder.byteArray([1, 2])
            } else {
                try builder.beginComposite()
                try builder.end()
            }
            try builder.end()
            try builder.beginGroup("i")
            try builder.integer(3)
            try builder.end()
            let stream = try builder.finish()
            XCTAssertEqual(Array(stream.topLevelGroups), [0, 4], encoding)
            XCTAssertEqual(stream.end(ofGroup: 0), 4, encoding)
            XCTAssertEqual(Array(stream.groups(ofObject: 0)), [2], encoding)
            let read = try TypedStreamReader.read(TypedStreamWriter.write(stream))
            XCTAssertEqual(Array(read.topLevelGroups), [0, 4], encoding)
        }
    }

    /// The order `end(ofGroup:)` relies on, checked on every real stream: walked into
    /// everything, each group's values and each composite's children start where the runs
    /// before them end, each object begins where its first group would, and ends at its `end`.
    func testRealStreamsReserveInStreamOrder() throws {
        for name in Fixtures.typedStreamNames() {
            let stream = try TypedStreamReader.read(Fixtures.typedStream(name))
            var walk = TypedStreamWalk(stream)
            var reserved = 0
            while let step = walk.next() {
                switch step {
                case .group(let group, let count):
                    XCTAssertEqual(group, reserved, name)
                    reserved += count
                case .value(let index):
                    switch stream.content(of: index) {
                    case .object(let object?) where stream.values[index].isFirstOccurrence:
                        XCTAssertEqual(Int(stream.objects[object].firstValue), reserved, name)
                        walk.enter(object: object)
                    case .array(let children), .structure(let children):
                        XCTAssertEqual(children.lowerBound, reserved, name)
                        reserved += children.count
                        walk.enter(childrenOf: index)
                    case .pointer(let pointee):
                        XCTAssertEqual(pointee, reserved, name)
                        reserved += 1
                        walk.enter(childrenOf: index)
                    default: break
                    }
                case .endOfObject(let object):
                    XCTAssertEqual(Int(stream.objects[object].end), reserved, name)
                default: break
                }
            }
            XCTAssertEqual(reserved, stream.values.count, name)
        }
    }

    /// A salvage's absent slots are nil values of any type, and hold no run: a stream cut in
    /// a struct's object reads as whole groups up to the cut, each found past the nil ones.
    func testAbsentSlotsHoldNothing() throws {
        let stream = try nestedStream()
        let bytes = try TypedStreamWriter.write(stream)
        // The header and the first group take the first 20 bytes.
        for cut in stride(from: bytes.count - 1, to: 19, by: -1) {
            let salvaged = try TypedStreamReader.read(Array(bytes[..<cut]), salvaging: true)
            let groups = Array(salvaged.topLevelGroups)
            XCTAssertEqual(groups.first, 0, "cut at \(cut)")
            XCTAssertEqual(zip(groups, groups.dropFirst()).allSatisfy { $0 < $1 }, true, "cut at \(cut)")
            XCTAssertLessThanOrEqual(groups.last ?? 0, salvaged.values.count, "cut at \(cut)")
            for object in salvaged.objects.indices {
                let own = Array(salvaged.groups(ofObject: object))
                XCTAssertTrue(own.allSatisfy { Int(salvaged.objects[object].firstValue) <= $0 && $0 < Int(salvaged.objects[object].end) }, "cut at \(cut)")
            }
        }
    }
}
