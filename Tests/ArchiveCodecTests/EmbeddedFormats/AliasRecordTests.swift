import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The alias record reader (`AliasRecord`): a real version 3 record, a version 2 record made by
/// hand, and hostile bytes.
final class AliasRecordTests: XCTestCase {
    /// The login item's alias in plaso's `com.apple.loginitems.plist` (version 3).
    static let loginItem: [UInt8] = Array(
        Data(
            base64Encoded: "AAAAAADYAAMAAQAA1B7ejgAASCsAAAAAADDhNgAw4TkAANbeKIEAAAAACSD//gAAAAAAAAAA/////wABABAAMOE2ADDhIAAw4R8AAABVAA4AIgAQAGkAVAB1AG4AZQBzAEgAZQBs"
                + "AHAAZQByAC4AYQBwAHAADwAaAAwATQBhAGMAaQBuAHQAbwBzAGgAIABIAEQAEgA3QXBwbGljYXRpb25zL2lUdW5lcy5hcHAvQ29udGVudHMvTWFjT1MvaVR1bmVzSGVscGVy"
                + "LmFwcAAAEwABLwD//wAA")!)

    private func account(_ bytes: [UInt8]) -> AccountValue? { bytes.withUnsafeBufferPointer { AliasRecord.account(of: $0) } }

    private func text(_ value: AccountValue?) -> String? {
        guard case .time(let seconds) = value else { return nil }
        return DateText.readable(seconds)?.string
    }

    func testAVersion3RecordSaysWhatItPointsTo() throws {
        let value = try XCTUnwrap(account(Self.loginItem))
        XCTAssertEqual(member(value, "version"), .integer(3))
        XCTAssertEqual(member(value, "kind"), .string("folder"))
        XCTAssertEqual(member(value, "name"), .string("iTunesHelper.app"))
        XCTAssertEqual(member(value, "fileID"), .unsigned(3_203_385))
        XCTAssertEqual(member(value, "parentID"), .unsigned(3_203_382))
        XCTAssertEqual(member(value, "path"), .string("Applications/iTunes.app/Contents/MacOS/iTunesHelper.app"))
        XCTAssertEqual(member(value, "folderIDs"), .array([3_203_382, 3_203_360, 3_203_359, 85].map(AccountValue.unsigned)))
        XCTAssertEqual(member(value, "volume", "name"), .string("Macintosh HD"))
        XCTAssertEqual(member(value, "volume", "path"), .string("/"))
        XCTAssertEqual(member(value, "volume", "fileSystem"), .string("H+"))
        XCTAssertEqual(text(member(value, "created")), "2018-03-26T04:33:05Z")
        XCTAssertEqual(text(member(value, "volume", "created")), "2016-10-08T17:34:06Z")
    }

    /// A version 2 record: Pascal names in the fixed part, dates in seconds since 1904, a
    /// finer date and a Unicode name among the tags winning over them.
    func testAVersion2Record() throws {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) -> [UInt8] { u16(Int(value >> 16)) + u16(Int(value & 0xFFFF)) }
        func pascal(_ text: String, _ size: Int) -> [UInt8] {
            let bytes = Array(text.utf8)
            return [UInt8(bytes.count)] + bytes + [UInt8](repeating: 0, count: size - 1 - bytes.count)
        }
        let seconds2001: UInt32 = 3_061_152_000
        var record: [UInt8] = Array("APPL".utf8) + u16(0) + u16(2) + u16(0)
        record += pascal("Disk", 28) + u32(seconds2001 + 60) + Array("H+".utf8) + u16(0) + u32(2)
        record += pascal("Read Me", 64) + u32(42) + u32(seconds2001 + 3_600) + Array("TEXT".utf8) + Array("ttxt".utf8)
        record += u16(0xFFFF) + u16(0xFFFF) + u32(0) + u16(0) + [UInt8](repeating: 0, count: 10)
        let name = Array("Read Me é".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        record += u16(14) + u16(2 + name.count) + u16(name.count / 2) + name
        record += u16(18) + u16(8) + Array("/Read Me".utf8)
        record += u16(17) + u16(8) + u32(0) + u32(0)  // a finer date: the epoch of 1904
        record += u16(0x7777) + u16(3) + [1, 2, 3, 0]
        record += u16(0xFFFF) + u16(0)
        record.replaceSubrange(4..<6, with: u16(record.count))
        let value = try XCTUnwrap(account(record))
        XCTAssertEqual(member(value, "version"), .integer(2))
        XCTAssertEqual(member(value, "kind"), .string("file"))
        XCTAssertEqual(member(value, "name"), .string("Read Me é"))
        XCTAssertEqual(member(value, "fileID"), .unsigned(42))
        XCTAssertEqual(member(value, "type"), .string("TEXT"))
        XCTAssertEqual(member(value, "creator"), .string("ttxt"))
        XCTAssertEqual(member(value, "created"), .time(-Double(seconds2001)))
        XCTAssertEqual(member(value, "path"), .string("/Read Me"))
        XCTAssertEqual(member(value, "tag 30583"), .base64([1, 2, 3]))
        XCTAssertEqual(member(value, "volume", "name"), .string("Disk"))
        XCTAssertEqual(member(value, "volume", "created"), .time(60))

        var cut = record
        cut.removeLast(4)  // no end tag
        cut.replaceSubrange(4..<6, with: u16(cut.count))
        XCTAssertNil(account(cut))
        var wrongVersion = record
        wrongVersion[7] = 4
        XCTAssertNil(account(wrongVersion))
        XCTAssertNil(account(Array(record.dropLast())), "the size field says more")
    }

    func testMutatedRecordsNeverTrap() throws {
        var random = SplitMix64(seed: 0xA11A5)
        var read = 0
        for round in 0..<3_000 {
            var bytes = Self.loginItem
            for _ in 0...Int.random(in: 0..<6, using: &random) {
                let position = Int.random(in: 8..<bytes.count, using: &random)
                bytes[position] = Int.random(in: 0..<2, using: &random) == 0 ? UInt8.random(in: 0...255, using: &random) : 0xFF
            }
            guard let value = account(bytes) else { continue }
            read += 1
            var out = JSONOutput(pretty: false)
            out.account(value, .all)
            let document = try JSONDocument(parsing: out.finish())
            XCTAssertNil(document.accountDifference(value, document.root), "round \(round)")
        }
        XCTAssertGreaterThan(read, 100)
    }
}
