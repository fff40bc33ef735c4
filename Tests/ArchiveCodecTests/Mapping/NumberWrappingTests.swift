import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `exactNumbers`: the numbers JSON tools would change are wrapped, and the document keeps its
/// meaning through a tool that rewrites numbers as jq 1.6 does.
final class NumberWrappingTests: XCTestCase {
    func testWhatEachLevelWraps() {
        let big = PlistInteger(signed: 1 << 53)
        XCTAssertFalse(NumberWrapping.nonFinite.wraps(big))
        XCTAssertTrue(NumberWrapping.integers.wraps(big))
        XCTAssertTrue(NumberWrapping.all.wraps(PlistInteger(unsigned: .max)))
        XCTAssertFalse(NumberWrapping.all.wraps(PlistInteger(signed: (1 << 53) - 1)))
        XCTAssertFalse(NumberWrapping.all.wraps(PlistInteger(signed: -(1 << 53) + 1)))
        for real in [Double.nan, .infinity, -.infinity] {
            XCTAssertTrue(NumberWrapping.nonFinite.wraps(real))
        }
        for real in [1.0, -0.0, 0.0, 9_007_199_254_740_992.0, 1e300, -5.0] {
            XCTAssertFalse(NumberWrapping.integers.wraps(real))
            XCTAssertTrue(NumberWrapping.all.wraps(real), "\(real)")
        }
        for real in [0.1, 1.5, -2.25, 5e-324, 1e-300] {
            XCTAssertFalse(NumberWrapping.all.wraps(real), "\(real)")
        }
        XCTAssertEqual(NumberWrapping(exactIntegers: false, exactNumbers: true), .all)
        XCTAssertEqual(NumberWrapping(exactIntegers: true), .integers)
    }

    /// `{"$real": …}` reads a number's text as well as the non-finite names.
    func testWrappedRealsReadBack() throws {
        let document = try JSONDocument(parsing: Array(#"["1.0","-0.0","-0","9007199254740992.0","1e300","3","NaN","1.0x","","+1","0x10"]"#.utf8))
        let values = document.elements(of: document.root)
        XCTAssertEqual(try document.wrappedReal(values[0]), 1.0)
        XCTAssertEqual(try document.wrappedReal(values[1]).sign, .minus)
        XCTAssertEqual(try document.wrappedReal(values[2]).sign, .minus)
        XCTAssertEqual(try document.wrappedReal(values[3]), 9_007_199_254_740_992.0)
        XCTAssertEqual(try document.wrappedReal(values[4]), 1e300)
        XCTAssertEqual(try document.wrappedReal(values[5]), 3.0)
        XCTAssertTrue(try document.wrappedReal(values[6]).isNaN)
        for bad in values[7...] {
            XCTAssertThrowsError(try document.wrappedReal(bad))
        }
    }

    private func decode(_ bytes: [UInt8], _ numbers: NumberWrapping) throws -> [UInt8] {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: false, numbers: numbers)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text.append(contentsOf: $0) }
        XCTAssertEqual(plan.depth, try JSONDocument(parsing: text).depth, "the plan counts the wrappers")
        return text
    }

    /// The numbers of `json` rewritten as jq 1.6 writes them: integral values without a
    /// fraction (`1.0` → `1`, `-0.0` → `-0`), others with 17 significant digits; every number
    /// goes through a double (big integers are rounded).
    static func asJQWrites(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        var inString = false
        while index < json.count {
            let byte = json[index]
            if inString {
                out.append(byte)
                if byte == UInt8(ascii: "\\") {
                    out.append(json[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                out.append(byte)
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) else {
                out.append(byte)
                index += 1
                continue
            }
            var end = index
            while end < json.count, "+-.eE0123456789".utf8.contains(json[end]) { end += 1 }
            let value = Double(String(decoding: json[index..<end], as: UTF8.self))!
            let text: String
            if value.rounded(.towardZero) == value, value.magnitude < 1e17 {
                text = (value.sign == .minus && value == 0 ? "-" : "") + String(Int64(value))
            } else {
                text = String(format: "%.17g", value)
            }
            out += Array(text.utf8)
            index = end
        }
        return out
    }

    /// A keyed archive and a plain list with every number a tool would change: integral
    /// reals inline and referenced, -0.0, 2^53 as a real, integers past 2^53, 1e300.
    private func trickyNumbers() throws -> [[UInt8]] {
        let keyed = try buildArchive([
            .object(
                "Numbers",
                [
                    ("a", .real(1.0)), ("b", .real(-0.0)), ("c", .real(9_007_199_254_740_992.0)), ("d", .int(Int64.min)), ("e", .real(1e300)),
                    ("f", .real(0.1)), ("g", .uid(2)), ("h", .int(9_007_199_254_740_993)), ("i", .array([.real(2.0), .real(-0.0)]))
                ]),
            .real(5.0)
        ])
        var plain = TestPlistBuilder()
        let list = plain.add(.array([plain.real(3.0), plain.real(0.5)]))
        let root = plain.add(
            .dict([
                (plain.string("one"), plain.real(1.0)), (plain.string("zero"), plain.real(-0.0)), (plain.string("big"), plain.integer(Int64.max)),
                (plain.string("list"), list)
            ]))
        return [keyed, plain.binary(top: root)]
    }

    func testExactNumbersSurviveAToolThatRewritesNumbers() throws {
        var inputs = try trickyNumbers()
        inputs += try Fixtures.names().map { try Fixtures.bytes($0) }
        inputs += try Fixtures.typedStreamNames().map { try Fixtures.typedStream($0) }
        for (index, original) in inputs.enumerated() {
            let json = try decode(original, .all)
            let rewritten = Self.asJQWrites(json)
            let back = try JSONDocument(parsing: rewritten).archive(format: .binary)
            XCTAssertNil(try Archive(parsing: original).difference(from: Archive(parsing: back)), "input \(index): \(String(decoding: json.prefix(300), as: UTF8.self))")
        }
        // Without the wrappers the same tool changes the tricky archive: the test can fail.
        let keyed = try trickyNumbers()[0]
        let plainBack = try JSONDocument(parsing: Self.asJQWrites(decode(keyed, .integers))).archive(format: .binary)
        XCTAssertNotNil(try Archive(parsing: keyed).difference(from: Archive(parsing: plainBack)))
    }

    func testTheWrappersAsWritten() throws {
        let json = String(decoding: try decode(try trickyNumbers()[0], .all), as: UTF8.self)
        XCTAssertEqual(
            json,
            #"{"$class":"Numbers","a":{"$real":"1.0"},"b":{"$real":"-0.0"},"c":{"$real":"9007199254740992.0"},"d":{"$integer":"-9223372036854775808"},"e":{"$real":"1e+300"},"f":0.1,"g":{"$number":{"$real":"5.0"}},"h":{"$integer":"9007199254740993"},"i":{"$inline":[{"$real":"2.0"},{"$real":"-0.0"}]}}"#
        )
    }
}
