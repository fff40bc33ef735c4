import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

final class JSONOutputTests: XCTestCase {
    /// The word-at-a-time scan finds the same first byte to escape as a byte loop, for
    /// every position of every byte value around the word boundaries.
    func testFirstToEscapeMatchesAByteLoop() {
        func naive(_ text: [UInt8], from start: Int) -> Int {
            text[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? text.count
        }
        for length in 0...20 {
            for position in 0..<max(length, 1) {
                for byte in UInt8.min...UInt8.max {
                    var text = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    if position < length { text[position] = byte }
                    for start in [0, min(3, length)] {
                        let found = text.withUnsafeBufferPointer { JSONOutput.firstToEscape($0, from: start) }
                        XCTAssertEqual(found, naive(text, from: start), "length \(length), byte \(byte) at \(position), from \(start)")
                    }
                }
            }
        }
        var generator = TestRandom(for: self)
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                [UInt8(0x22), 0x5C, 0x1F, 0x20, 0x7F, 0x80, 0xFF, 0x21, 0x5B, 0x5D][Int.random(in: 0..<10, using: &generator)]
            }
            let found = text.withUnsafeBufferPointer { JSONOutput.firstToEscape($0, from: 0) }
            XCTAssertEqual(found, naive(text, from: 0), "\(text)")
        }
    }

    /// An object opened from its prepared head takes members, commas and its close as one
    /// opened by `openObject` and written member by member, in an array and after a key.
    func testAnObjectOpenedFromPreparedTextGoesOnAsOneWrittenAfresh() {
        let head = Array(#"{"$class":"Note","$classes":[["Note",2]]"#.utf8)
        func openHead(_ out: inout JSONOutput, prepared: Bool) {
            guard !prepared else { return head.withUnsafeBufferPointer { out.openObject(prepared: $0) } }
            out.openObject()
            out.key("$class")
            out.string("Note")
            out.key("$classes")
            out.openArray()
            out.openArray()
            out.string("Note")
            out.int(2)
            out.closeArray()
            out.closeArray()
        }
        func write(prepared: Bool) -> String {
            var out = JSONOutput(pretty: false)
            out.openArray()
            out.int(1)
            for _ in 0..<2 {
                openHead(&out, prepared: prepared)
                out.key("$groups")
                out.openObject()
                out.key("x")
                openHead(&out, prepared: prepared)
                out.closeObject()
                out.closeObject()
                out.closeObject()
            }
            out.closeArray()
            return String(decoding: out.finish(), as: UTF8.self)
        }
        XCTAssertEqual(write(prepared: true), write(prepared: false))
        XCTAssertEqual(
            write(prepared: true),
            #"[1,{"$class":"Note","$classes":[["Note",2]],"$groups":{"x":{"$class":"Note","$classes":[["Note",2]]}}},{"$class":"Note","$classes":[["Note",2]],"$groups":{"x":{"$class":"Note","$classes":[["Note",2]]}}}]"#
        )
    }

    /// Integers at every digit-count boundary, and the extremes, read as `String` writes them.
    func testIntegersAtEveryDigitBoundary() {
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1]
        var power: UInt64 = 10
        for _ in 1...19 {
            values += [power - 1, power, power + 1]
            if power <= UInt64.max / 10 { power *= 10 } else { break }
        }
        for value in values {
            var out = JSONOutput(pretty: false)
            out.uint(value)
            XCTAssertEqual(String(decoding: out.finish(), as: UTF8.self), String(value))
        }
        for value in [Int64.min, Int64.min + 1, -1, -10, -99, -100, Int64.max] {
            var out = JSONOutput(pretty: false)
            out.int(value)
            XCTAssertEqual(String(decoding: out.finish(), as: UTF8.self), String(value))
        }
        var references = JSONOutput(pretty: false)
        references.openArray()
        for uid in [0, 7, 12, 345, 1_000_000] { references.reference(uid) }
        references.closeArray()
        XCTAssertEqual(
            String(decoding: references.finish(), as: UTF8.self),
            #"[{"$ref":0},{"$ref":7},{"$ref":12},{"$ref":345},{"$ref":1000000}]"#)
    }

    /// Reals with up to three decimals (six below 2^31) are written without `description`;
    /// the text must be `description`'s (with `.0` added to an integral value) for every
    /// real: decimals of each length in every magnitude up to and past 10^12, their
    /// neighbours one step of the double's spacing away, the bounds of both ranges, random
    /// bit patterns.
    func testRealsReadAsDescriptionWritesThem() {
        func expected(_ value: Double) -> String {
            let text = value.description
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        }
        var values: [Double] = [
            0, -0.0, 0.001, 0.0009999, 0.0005, 0.0015, 1e12, 1e12 - 0.001, 999_999_999_999.999, 1e-5, 5e-324,
            0.1 + 0.2, 1.0 / 3, 2.5, 100, 1e11 + 0.5, Double(1 << 53), .greatestFiniteMagnitude, .leastNormalMagnitude,
            2_147_483_647.999999, 2_147_483_648.000001, 2_147_483_648, 2_147_483_647.123456, 0.001001, 0.123456, 999_999.999999
        ]
        var generator = TestRandom(for: self)
        for _ in 0..<40_000 {
            let decimals = Int.random(in: 0...7, using: &generator)
            let digits = UInt64.random(in: 0...(UInt64(1) << Int.random(in: 1...56, using: &generator)), using: &generator)
            let value = Double(digits) / pow(10, Double(decimals))
            values += [value, -value, value.nextUp, value.nextDown]
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)))
        }
        for value in values where value.isFinite {
            var out = JSONOutput(pretty: false)
            out.real(value)
            XCTAssertEqual(String(decoding: out.finish(), as: UTF8.self), expected(value), "\(value.bitPattern)")
        }
        // The short form is taken where it applies.
        XCTAssertNotNil(JSONOutput.shortDecimal(50.1))
        XCTAssertNotNil(JSONOutput.shortDecimal(0.001))
        XCTAssertEqual(JSONOutput.shortDecimal(-819_799.511634)?.decimals, 6)
        XCTAssertNil(JSONOutput.shortDecimal(3e9 + 0.0001))
        XCTAssertNil(JSONOutput.shortDecimal(0.0001))
        XCTAssertNil(JSONOutput.shortDecimal(-0.0))
    }

    func testEscapesEveryByteJSONRequires() {
        var out = JSONOutput(pretty: false)
        let text: [UInt8] = Array("plain \"quoted\" back\\slash tab\t nl\n bell\u{07} é ok".utf8)
        text.withUnsafeBufferPointer { out.string(utf8: $0) }
        XCTAssertEqual(String(decoding: out.finish(), as: UTF8.self), #""plain \"quoted\" back\\slash tab\t nl\n bell\u0007 é ok""#)
    }
}
