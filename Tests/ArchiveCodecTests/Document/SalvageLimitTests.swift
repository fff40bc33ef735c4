import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `SalvageLimit`: a file damaged throughout is refused (`limit-exceeded`) once it has more
/// damaged places than a salvage marks, in every salvage that collects marks (a binary plist's
/// references and offset table, a keyed archive's UIDs), and one at the limit is still read.
final class SalvageLimitTests: XCTestCase {
    /// A binary plist whose top array holds `count` references, the first `dangling` of them
    /// past its object count (the others to the array's one element, an integer).
    private func danglingArray(count: Int, dangling: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        let integer = bytes.count
        bytes += [0x10, 7]
        let top = bytes.count
        bytes += [0xAF, 0x12] + be(count, 4)
        for index in 0..<count { bytes += be(index < dangling ? 2 + index : 0, 3) }
        let table = bytes.count
        bytes += be(integer, 8) + be(top, 8)
        bytes += [0, 0, 0, 0, 0, 0, 8, 3] + be(2, 8) + be(1, 8) + be(table, 8)
        return bytes
    }

    private func be(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) } }

    private func assertTooMany(_ bytes: [UInt8], view: ArchiveView = .readable, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Archive(parsing: bytes, view: view, salvaging: true), file: file, line: line) { error in
            let error = error as! CodecError
            XCTAssertEqual(error.kind, .limitExceeded, error.message, file: file, line: line)
            XCTAssertTrue(error.message.contains("more than \(SalvageLimit.marks) places could not be read"), error.message, file: file, line: line)
        }
    }

    func testReferencesPastTheObjectCountUpToTheLimit() throws {
        let atLimit = try Archive(parsing: danglingArray(count: SalvageLimit.marks + 5, dangling: SalvageLimit.marks), salvaging: true)
        XCTAssertEqual(atLimit.breaks, SalvageLimit.marks)
        assertTooMany(danglingArray(count: SalvageLimit.marks + 5, dangling: SalvageLimit.marks + 1))
        // A megabyte of them is refused without holding a mark each.
        assertTooMany(danglingArray(count: 350_000, dangling: 350_000))
        // Without salvage, the first is refused as before.
        XCTAssertThrowsError(try Archive(parsing: danglingArray(count: 3, dangling: 1))) { error in
            XCTAssertEqual((error as! CodecError).kind, .malformedPlist)
        }
    }

    func testOffsetTableEntriesOutsideTheObjectArea() throws {
        // An array of `count` distinct integers, the entries of all but the first (one more
        // than salvage marks) set past the file.
        let count = SalvageLimit.marks + 2
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for index in 0..<count {
            offsets.append(bytes.count)
            bytes += [0x11] + be(index, 2)
        }
        let top = bytes.count
        bytes += [0xAF, 0x12] + be(count, 4)
        for index in 0..<count { bytes += be(index, 3) }
        offsets.append(top)
        for index in 1..<count { offsets[index] = 0xFF_FFFF }
        let table = bytes.count
        for offset in offsets { bytes += be(offset, 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 3] + be(count + 1, 8) + be(count, 8) + be(table, 8)
        assertTooMany(bytes)
    }

    /// A keyed archive whose array holds more UIDs past `$objects` than salvage marks.
    func testUIDsPastTheObjectsOfAKeyedArchive() throws {
        // Written as a plain property list (the raw view's `$uid`), which lets a UID name
        // any entry.
        func archive(_ broken: Int) throws -> [UInt8] {
            let uids = (0..<broken).map { #"{"$uid":\#(1_000_000 + $0)}"# }.joined(separator: ",")
            let json = """
                {"$propertyList":{"$$archiver":"NSKeyedArchiver","$$version":100000,"$$top":{"root":{"$uid":1}},
                "$$objects":["$null",{"$$class":{"$uid":2},"NS.objects":[\(uids)]},{"$$classname":"NSArray","$$classes":["NSArray","NSObject"]}]}}
                """
            return try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
        }
        XCTAssertEqual(try Archive(parsing: archive(SalvageLimit.marks), salvaging: true).breaks, SalvageLimit.marks)
        assertTooMany(try archive(SalvageLimit.marks + 1))
    }
}
