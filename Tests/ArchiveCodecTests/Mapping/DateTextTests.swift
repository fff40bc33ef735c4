import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `DateText`: ISO 8601 text that reads back to the very same seconds, written without
/// Foundation and without allocating.
final class DateTextTests: XCTestCase {
    private func text(_ time: Double, _ digits: Int) -> String? {
        DateText.format(time, fractionDigits: digits)?.string
    }

    func testKnownTimes() {
        XCTAssertEqual(text(0, 0), "2001-01-01T00:00:00Z")
        XCTAssertEqual(text(-978_307_200, 0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(text(0.5, 3), "2001-01-01T00:00:00.500Z")
        XCTAssertEqual(text(86_399.999_999_999_5, 9), "2001-01-02T00:00:00.000000000Z")
        XCTAssertEqual(text(-1, 6), "2000-12-31T23:59:59.000000Z")
        XCTAssertEqual(text(1e13, 0), nil, "years past 9999 have no text")
        XCTAssertEqual(text(.nan, 0), nil)
        XCTAssertEqual(DateText.readable(0.25)?.string, "2001-01-01T00:00:00.250Z")
        XCTAssertEqual(DateText.readable(12.0)?.string, "2001-01-01T00:00:12Z")
        XCTAssertEqual(DateText.readable(0.1)?.string, "2001-01-01T00:00:00.100Z")
        XCTAssertNil(DateText.readable(1e-10), "no text of 0, 3, 6 or 9 digits reads back as 1e-10 s")
    }

    /// Whole seconds across the years 1583…9999 are written as Foundation's ISO 8601 formatter
    /// writes them, and read back exactly (before 1583 Foundation's calendar is the Julian one;
    /// the plist format's, and this, the proleptic Gregorian).
    func testWholeSecondsMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var random = SplitMix64(seed: 11)
        let first = -13_190_860_800.0  // 1583-01-01
        let last = 252_423_993_599.0  // 9999-12-31T23:59:59
        for _ in 0..<20_000 {
            let time = (Double.random(in: first...last, using: &random)).rounded(.down)
            let expected = formatter.string(from: Date(timeIntervalSinceReferenceDate: time))
            XCTAssertEqual(text(time, 0), expected)
            XCTAssertEqual(DateText.parse(Array(expected.utf8)), time)
        }
    }

    /// `readable` text always reads back to the same bits, from an array, a slice or a buffer.
    func testReadableTextReadsBackExactly() {
        var random = SplitMix64(seed: 12)
        var readable = 0
        for round in 0..<20_000 {
            let whole = Double(Int64.random(in: -3_000_000_000...3_000_000_000, using: &random))
            let time = round % 2 == 0 ? whole + Double(Int.random(in: 0..<1000, using: &random)) / 1000 : whole + Double.random(in: 0..<1, using: &random)
            guard let text = DateText.readable(time) else { continue }
            readable += 1
            let bytes = text.bytes
            XCTAssertEqual(DateText.parse(bytes)?.bitPattern, time.bitPattern)
            XCTAssertEqual(DateText.parse(([0x20] + bytes)[1...])?.bitPattern, time.bitPattern)
            XCTAssertEqual(text.withUnsafeBufferPointer { DateText.parse($0) }?.bitPattern, time.bitPattern)
            XCTAssertLessThanOrEqual(bytes.count, 30)
        }
        XCTAssertGreaterThan(readable, 10_000)
    }

    func testParseRefusesWhatIsNotADate() {
        for bad in [
            "", "2001-01-01T00:00:00", "2001-01-01 00:00:00Z", "2001-13-01T00:00:00Z", "2001-02-29T00:00:00Z",
            "2001-01-01T24:00:00Z", "0000-01-01T00:00:00Z", "2001-01-01T00:00:00.Z", "2001-01-01T00:00:00.1234567890Z",
            "2001-01-01T00:00:0xZ"
        ] {
            XCTAssertNil(DateText.parse(Array(bad.utf8)), bad)
        }
        XCTAssertEqual(DateText.parse(Array("2000-02-29T00:00:00.5Z".utf8)), -26_524_800 + 0.5)
    }
}
