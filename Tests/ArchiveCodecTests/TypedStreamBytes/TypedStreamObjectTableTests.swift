import XCTest

@testable import ArchiveCodec

/// The reader's object table: each entry's kind, and its index in its own table (how many of
/// its kind were numbered before it), across its blocks of 64 entries.
final class TypedStreamObjectTableTests: XCTestCase {
    func testEachEntryIsItsKindAndItsRankAmongThem() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 63, 64, 65, 200, 1_000] {
            var table = TypedStreamObjectTable()
            var expected: [(TypedStreamObjectTable.Kind, UInt32)] = []
            var counts: [TypedStreamObjectTable.Kind: UInt32] = [:]
            for _ in 0..<length {
                let kind = [TypedStreamObjectTable.Kind.object, .classObject, .cString].randomElement(using: &generator)!
                let index = counts[kind, default: 0]
                counts[kind] = index + 1
                XCTAssertEqual(table.append(kind), index)
                expected.append((kind, index))
            }
            XCTAssertEqual(table.count, length)
            for (number, (kind, index)) in expected.enumerated() {
                let entry = table.entry(number)
                XCTAssertEqual(entry.kind, kind, "entry \(number) of \(length)")
                XCTAssertEqual(entry.index, index, "entry \(number) of \(length)")
            }
        }
    }

    func testOneKindThroughAWholeBlockAndPast() {
        for kind in [TypedStreamObjectTable.Kind.object, .classObject, .cString] {
            var table = TypedStreamObjectTable()
            for index in 0..<130 { XCTAssertEqual(table.append(kind), UInt32(index)) }
            for number in [0, 63, 64, 127, 128, 129] {
                XCTAssertEqual(table.entry(number).kind, kind)
                XCTAssertEqual(table.entry(number).index, UInt32(number))
            }
        }
    }
}
