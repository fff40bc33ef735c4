import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `TZifSummary`: what a TZif file says, read without trusting its counts.
final class TZifSummaryTests: XCTestCase {
    /// A TZif file: `types` as (UT offset, DST, designation index), the designation table,
    /// transitions as (time, type); version 1, or the given version with a 64-bit block and
    /// `footer`.
    static func tzif(
        version: UInt8 = 0x32, types: [(Int32, Bool, UInt8)], chars: String, transitions: [(Int64, UInt8)] = [], footer: String = "", leaps: Int = 0
    ) -> [UInt8] {
        func be(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) } }
        func block(timeSize: Int) -> [UInt8] {
            var bytes: [UInt8] = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
            for count in [0, 0, leaps, transitions.count, types.count, chars.utf8.count + 1] { bytes += be(UInt64(count), 4) }
            for (time, _) in transitions { bytes += be(UInt64(bitPattern: time), timeSize) }
            for (_, type) in transitions { bytes.append(type) }
            for (offset, dst, index) in types { bytes += be(UInt64(UInt32(bitPattern: offset)), 4) + [dst ? 1 : 0, index] }
            bytes += Array(chars.utf8) + [0]
            for _ in 0..<leaps { bytes += [UInt8](repeating: 0, count: timeSize + 4) }
            return bytes
        }
        if version == 0 { return block(timeSize: 4) }
        return block(timeSize: 4) + block(timeSize: 8) + Array("\n\(footer)\n".utf8)
    }

    private func summary(_ bytes: [UInt8]) -> TZifSummary? {
        bytes.withUnsafeBufferPointer { TZifSummary.parse($0) }
    }

    static let losAngeles = tzif(
        types: [(-28378, false, 0), (-25200, true, 4), (-28800, false, 8)], chars: "LMT\0PDT\0PST",
        transitions: [(-2_717_640_000, 2), (-1_633_269_600, 1), (-1_615_129_200, 2)], footer: "PST8PDT,M3.2.0,M11.1.0")

    func testSummary() {
        XCTAssertEqual(
            summary(Self.losAngeles),
            TZifSummary(abbreviations: ["LMT", "PDT", "PST"], offset: -28800, isDST: false, abbreviation: "PST", rule: "PST8PDT,M3.2.0,M11.1.0"))
        // Version 1, no transitions: the first type; leap records are counted past.
        XCTAssertEqual(
            summary(Self.tzif(version: 0, types: [(3600, true, 0)], chars: "CEST", leaps: 2)),
            TZifSummary(abbreviations: ["CEST"], offset: 3600, isDST: true, abbreviation: "CEST", rule: nil))
        // An empty footer is no rule; a designation may start inside another.
        XCTAssertEqual(
            summary(Self.tzif(types: [(0, false, 0), (0, false, 1)], chars: "GMT", transitions: [(0, 1)])),
            TZifSummary(abbreviations: ["GMT", "MT"], offset: 0, isDST: false, abbreviation: "MT", rule: nil))
    }

    /// Apple's GMT data (`scl-macOS1014_ISO8601DateFormatter-Default.archive`), version 2.
    func testApplesGMT() throws {
        let archive = try KeyedArchive(parsing: Fixtures.bytes("scl-macOS1014_ISO8601DateFormatter-Default.archive"))
        let raw = String(decoding: try archive.json(view: .raw, pretty: false), as: UTF8.self)
        let base64 = try XCTUnwrap(raw.firstMatch(of: /"NS.data":\{"\$data":"([^"]+)"/)).output.1
        let bytes = try XCTUnwrap(Data(base64Encoded: String(base64)))
        XCTAssertEqual(summary(Array(bytes)), TZifSummary(abbreviations: ["GMT"], offset: 0, isDST: false, abbreviation: "GMT", rule: "GMT0"))
    }

    /// The system's zone files, when the machine has them, all read.
    func testSystemZones() throws {
        for name in ["America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe", "UTC"] {
            guard let data = FileManager.default.contents(atPath: "/usr/share/zoneinfo/" + name) else { continue }
            XCTAssertNotNil(summary(Array(data)), name)
        }
    }

    /// Every prefix of a file, and the file with anything after it, is refused; so is every
    /// file whose one byte was changed into something the format forbids.
    func testTruncatedAndExtended() {
        let bytes = Self.losAngeles
        for length in 0..<bytes.count { XCTAssertNil(summary(Array(bytes[..<length])), "\(length) bytes") }
        XCTAssertNil(summary(bytes + [0]))
        XCTAssertNil(summary(Self.tzif(version: 0, types: [(0, false, 0)], chars: "UTC") + [0x0A]))
    }

    func testBrokenRulesRefused() {
        let good = Self.losAngeles
        func changed(_ at: Int, _ byte: UInt8) -> [UInt8] {
            var bytes = good
            bytes[at] = byte
            return bytes
        }
        XCTAssertNil(summary(changed(0, 0x55)), "magic")
        XCTAssertNil(summary(changed(4, 0x31)), "version 1 spelled '1'")
        XCTAssertNil(summary(changed(4, 0x35)), "version 5")
        // The v1 block's counts far past the file: refused before any of it is read.
        for field in 0..<6 {
            var bytes = good
            bytes[20 + 4 * field] = 0xFF
            XCTAssertNil(summary(bytes), "count \(field)")
        }
        // typecnt 0, charcnt 0, isstdcnt neither 0 nor typecnt.
        XCTAssertNil(summary(Self.tzif(version: 0, types: [], chars: "")))
        var noChars = Self.tzif(version: 0, types: [(0, false, 0)], chars: "")
        noChars[43] = 0
        XCTAssertNil(summary(Array(noChars.dropLast())))
        // A transition naming a type that is not there; a DST flag of 2; a designation past the
        // table; a designation without its NUL; a control character in one; in the footer.
        XCTAssertNil(summary(Self.tzif(types: [(0, false, 0)], chars: "UTC", transitions: [(0, 1)])))
        XCTAssertNil(summary(Self.tzif(types: [(0, false, 9)], chars: "UTC")))
        XCTAssertNil(summary(Self.tzif(types: [(0, false, 0)], chars: "U\u{1}C")))
        XCTAssertNil(summary(Self.tzif(types: [(0, false, 0)], chars: "UTC", footer: "UTC\u{7F}")))
        var flag = Self.tzif(version: 0, types: [(0, false, 0)], chars: "UTC")
        flag[44 + 4] = 2
        XCTAssertNil(summary(flag))
        var unterminated = Self.tzif(version: 0, types: [(0, false, 0)], chars: "UTC")
        unterminated[unterminated.count - 1] = 0x41
        XCTAssertNil(summary(unterminated))
        // The two headers' versions differ.
        let v1Size = 44 + 3 * 4 + 3 + 3 * 6 + 12
        XCTAssertNil(summary(changed(v1Size + 4, 0x33)))
        // More than 256 types.
        let many = Self.tzif(version: 0, types: Array(repeating: (0, false, 0), count: 257), chars: "UTC")
        XCTAssertNil(summary(many))
        XCTAssertNotNil(summary(Self.tzif(version: 0, types: Array(repeating: (0, false, 0), count: 256), chars: "UTC")))
        // An abbreviation longer than 64 bytes.
        XCTAssertNil(summary(Self.tzif(version: 0, types: [(0, false, 0)], chars: String(repeating: "A", count: 65))))
        XCTAssertNotNil(summary(Self.tzif(version: 0, types: [(0, false, 0)], chars: String(repeating: "A", count: 64))))
    }

    /// Random bytes after a real header never crash the reader, and counts that claim the
    /// most a header can (2^32 − 1 each) are refused at once.
    func testRandomDamage() {
        var random = SplitMix64(seed: 5)
        for _ in 0..<3_000 {
            var bytes = Self.losAngeles
            for _ in 0..<(1 + Int(random.next() % 4)) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            _ = summary(bytes)
        }
        var huge = Self.losAngeles
        for index in 20..<44 { huge[index] = 0xFF }
        XCTAssertNil(summary(huge))
    }
}
