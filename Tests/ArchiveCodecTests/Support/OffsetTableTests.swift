import TestSupport
import XCTest

@testable import ArchiveCodec

final class OffsetTableTests: XCTestCase {
    func testFindsWhatItHolds() {
        var table = OffsetTable()
        XCTAssertNil(table.find(8))
        var random = SplitMix64(seed: 3)
        var stored: [Int: UInt32] = [:]
        while stored.count < 5_000 {
            let offset = Int(random.next() % (1 << 40 - 1)) + 1
            guard stored[offset] == nil else { continue }
            let value = UInt32(random.next() % (1 << 24))
            table.insert(offset, value: value)
            stored[offset] = value
        }
        XCTAssertEqual(table.count, stored.count)
        for (offset, value) in stored { XCTAssertEqual(table.find(offset), value) }
        for _ in 0..<1_000 {
            let offset = Int(random.next() % (1 << 40 - 1)) + 1
            XCTAssertEqual(table.find(offset), stored[offset])
        }
    }

    func testUpdateReplacesOneValue() {
        var table = OffsetTable()
        for offset in 1...300 { table.insert(offset * 7, value: UInt32(offset)) }
        for offset in stride(from: 3, through: 300, by: 3) { table.update(offset * 7, value: UInt32(offset) + 1_000) }
        XCTAssertEqual(table.count, 300)
        for offset in 1...300 { XCTAssertEqual(table.find(offset * 7), UInt32(offset) + (offset % 3 == 0 ? 1_000 : 0)) }
        XCTAssertNil(table.find(301 * 7))
    }
}
