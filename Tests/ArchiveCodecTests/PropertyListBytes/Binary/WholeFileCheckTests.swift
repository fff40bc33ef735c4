import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The checks that span a whole binary plist (repeated dictionary keys, containers that
/// contain themselves) take a cheap path when the file allows it and the full one
/// otherwise; these files make each path run.
final class WholeFileCheckTests: XCTestCase {
    /// A binary plist of `objects` (raw object bytes, 1-byte references), 2-byte offsets.
    private func plist(_ objects: [[UInt8]], top: Int) -> [UInt8] {
        var file = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets += [UInt8(file.count >> 8), UInt8(file.count & 0xFF)]
            file += object
        }
        let table = file.count
        file += offsets
        file += [0, 0, 0, 0, 0, 0, 2, 1]
        for field in [objects.count, top, table] {
            file += withUnsafeBytes(of: UInt64(field).bigEndian, Array.init)
        }
        return file
    }

    private func ascii(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
    }

    private func utf16(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return [0x60 | UInt8(units.count)] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    private func dict(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        let count = keys.count
        return (count < 15 ? [0xD0 | UInt8(count)] : [0xDF, 0x10, UInt8(count)]) + keys.map(UInt8.init) + values.map(UInt8.init)
    }

    private func refusal(_ bytes: [UInt8]) -> CodecError? {
        do {
            _ = try KeyedArchive(parsing: bytes)
            return nil
        } catch {
            return error
        }
    }

    /// An archive whose one instance has the keys `a` and `b`, given as inline values
    /// `first` and `second` (object indices 9 and 10 of the file, appended by the caller).
    private func archive(extra: [[UInt8]], a: Int, b: Int) -> [UInt8] {
        let objects: [[UInt8]] =
            [
                dict([1, 2, 3, 4], [5, 6, 7, 8]),  // 0: top
                ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),
                ascii("NSKeyedArchiver"), [0x12, 0x00, 0x01, 0x86, 0xA0],  // 5, 6
                dict([11], [12]),  // 7: $top = {root: UID 1}
                [0xA3, 13, 14, 15]  // 8: $objects
            ] + [
                ascii("root"), [0x80, 1],  // 11, 12
                ascii("$null"),  // 13
                dict([16, 17, 18], [19, a, b]),  // 14: the instance
                dict([20, 21], [22, 23]),  // 15: its class
                ascii("$class"), ascii("a"), ascii("b"), [0x80, 2],  // 16-19
                ascii("$classname"), ascii("$classes"), ascii("Thing"), [0xA2, 22, 24], ascii("NSObject")  // 20-24
            ]
        // Indices 9 and 10 are the caller's two extra objects.
        var all = Array(objects[0..<9])
        all += extra
        all += objects[9...]
        return plist(all, top: 0)
    }

    func testEqualKeyTextInDistinctObjectsIsRefused() {
        // {"a" (ASCII): 1, "a" (UTF-16): 2}: two key objects, one key.
        let file = plist([dict([1, 2], [3, 4]), ascii("a"), utf16("a"), [0x10, 1], [0x10, 2]], top: 0)
        let error = refusal(file)
        XCTAssertEqual(error?.kind, .malformedPlist)
        XCTAssertTrue(error?.message.contains("twice") ?? false, "\(String(describing: error))")
        // Different text in the same encodings passes the plist layer (and is no archive).
        let distinct = plist([dict([1, 2], [3, 4]), ascii("a"), utf16("b"), [0x10, 1], [0x10, 2]], top: 0)
        XCTAssertEqual(refusal(distinct)?.kind, .notKeyedArchive)
    }

    func testKeyObjectRepeatedInALargeDictionaryIsRefused() {
        let keyObjects = (0..<20).map { ascii("k\($0)") }
        var keys = Array(1...20)
        let values = Array(repeating: 21, count: 20)
        let distinct = plist([dict(keys, values)] + keyObjects + [[0x10, 7]], top: 0)
        XCTAssertEqual(refusal(distinct)?.kind, .notKeyedArchive)
        keys[19] = keys[3]
        let repeated = plist([dict(keys, values)] + keyObjects + [[0x10, 7]], top: 0)
        XCTAssertEqual(refusal(repeated)?.kind, .malformedPlist)
        XCTAssertTrue(refusal(repeated)?.message.contains("twice") ?? false)
    }

    func testContainerSharedInsideThePlistStillDecodes() throws {
        // Both keys hold the same plist array [7]: a container with two parents, no cycle.
        let file = archive(extra: [[0xA1, 10], [0x10, 7]], a: 9, b: 9)
        let archive = try KeyedArchive(parsing: file)
        let json = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertEqual(json, #"{"$class":"Thing","a":{"$inline":[7]},"b":{"$inline":[7]}}"#)
        XCTAssertEqual(archive.depth(of: .raw), 4)
    }

    func testTopReferencedFromInsideIsACycle() {
        // The instance's key `a` holds the top dictionary itself.
        let error = refusal(archive(extra: [[0x10, 1], [0x10, 2]], a: 0, b: 10))
        XCTAssertEqual(error?.kind, .malformedPlist)
        XCTAssertTrue(error?.message.contains("contains itself") ?? false, "\(String(describing: error))")
    }

    /// The raw depth measured on demand (files whose containers form a tree) equals the full
    /// walk's, for every fixture.
    func testRawDepthOnDemandMatchesTheFullWalk() throws {
        var checked = 0
        for (name, _, archive) in Fixtures.archives() {
            let walked = try archive.plist.withView { try $0.checkAcyclicAndMeasure(from: archive.plist.topObject) }
            XCTAssertEqual(archive.depth(of: .raw), walked, name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    /// Validation split over ranges gives the same archive, and the same first error, as one
    /// pass, whichever order the ranges run in.
    func testValidationInRangesMatchesOnePass() throws {
        let items = (0..<70_000).map { "\"s\($0)\"" }.joined(separator: ",")
        let file = try JSONDocument(parsing: Array("{\"$array\":[\(items)]}".utf8)).archive(format: .binary)
        let reversed = Parallelism(width: 3, smallestPart: 1 << 16) { jobs, job in
            for index in (0..<jobs).reversed() { job(index) }
        }
        let serial = try KeyedArchive(parsing: file)
        XCTAssertGreaterThan(serial.plist.objectCount, 2 << 16)  // two ranges at least
        let split = try KeyedArchive(parsing: file, parallelism: reversed)
        XCTAssertEqual(try split.json(view: .readable, pretty: false), try serial.json(view: .readable, pretty: false))
        // Break one string in the first third and one in the last: the first is reported.
        var broken = file
        let (early, late) = serial.plist.withView { view in (view.offset(of: 1000), view.offset(of: serial.plist.objectCount - 1000)) }
        broken[early] = 0x70
        broken[late] = 0x70
        func failure(_ parallelism: Parallelism) -> CodecError? {
            do {
                _ = try KeyedArchive(parsing: broken, parallelism: parallelism)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(failure(reversed)?.byteOffset, early)
        XCTAssertEqual(failure(reversed)?.message, failure(.serial)?.message)
    }

    /// The table check reads each entry width with its own loop: every width finds the
    /// first entry outside the object area (below byte 8, or at or past its end).
    func testMisplacedOffsetsAreFoundForEveryEntryWidth() {
        for width in 1...8 {
            for bad in [nil, 0, 3, 9] as [Int?] {
                for value in [0, 7, 200] {
                    let areaEnd = 200
                    var entries = (0..<10).map { 8 + $0 * 19 }
                    if let bad { entries[bad] = value }
                    var bytes = [UInt8](repeating: 0, count: 16)
                    for entry in entries {
                        bytes += (0..<width).reversed().map { UInt8(truncatingIfNeeded: entry >> (8 * $0)) }
                    }
                    bytes += [UInt8](repeating: 0, count: 32)
                    let found = bytes.withUnsafeBufferPointer { buffer in
                        BinaryPlistView(bytes: buffer, tableStart: 16, offsetSize: width, refSize: 1, objectCount: 10)
                            .firstMisplacedOffset(in: 0..<10, areaEnd: areaEnd)
                    }
                    let expected = entries.firstIndex { $0 < 8 || $0 >= areaEnd }
                    XCTAssertEqual(found, expected, "width \(width), entry \(String(describing: bad)) = \(value)")
                }
            }
        }
    }
}
