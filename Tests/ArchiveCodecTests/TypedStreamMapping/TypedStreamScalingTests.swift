import TestSupport
import XCTest

@testable import ArchiveCodec

/// Work on a typedstream grows linearly with its input (`ScalingCheck`), for the shapes where it
/// once did not: a long class chain (encode, decode, summary, depth, comparison) and a
/// dictionary of many keys (encode, decode, summary).
final class TypedStreamScalingTests: XCTestCase {
    /// One object of a class whose chain has `links` classes (names of `width` bytes), then
    /// `objects - 1` more objects of the same class, by reference to it.
    static func chainStream(links: Int, width: Int = 12, objects: Int = 1) throws -> [UInt8] {
        var builder = TypedStreamBuilder(byteOrder: .little)
        var superclass: Int?
        for index in (0..<links).reversed() {
            let digits = String(index)
            let name = "C" + String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
            superclass = try builder.defineClass(name, superclass: superclass)
        }
        for _ in 0..<objects {
            try builder.beginGroup("@")
            _ = try builder.beginObject(class: superclass!)
            try builder.endObject()
            try builder.end()
        }
        return try TypedStreamWriter.write(try builder.finish())
    }

    /// The bytes of one object whose class chain has `links` classes of 12-byte names, written
    /// directly (the builder is slow to make large inputs in a debug build).
    static func chainBytes(links: Int) -> [UInt8] {
        var bytes: [UInt8] = [4, 11] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]
        bytes += [0x84, 1, 0x40, 0x84]  // a group "@", a new object
        for index in 0..<links {
            let digits = String(index)
            bytes += [0x84, 0x84, 12] + Array(("C" + String(repeating: "0", count: 11 - digits.count) + digits).utf8) + [0]
        }
        return bytes + [0x85, 0x86]  // the root class's superclass (nil), the object's end
    }

    /// The JSON of one generic object whose chain has `links` classes of 100-byte names.
    static func chainJSON(links: Int) -> [UInt8] {
        let chain = (0..<links).map { index -> String in
            let digits = String(index)
            return "[\"C\(String(repeating: "0", count: 99 - digits.count))\(digits)\",0]"
        }
        return Array("{\"$typedstream\":[{\"@\":{\"$classes\":[\(chain.joined(separator: ","))],\"$groups\":[]}}]}".utf8)
    }

    /// The JSON of a readable NSDictionary of `keys` keys and integers.
    static func dictionaryJSON(keys: Int) -> [UInt8] {
        Array(("{\"$typedstream\":[{\"@\":{" + (0..<keys).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}}]}").utf8)
    }

    private func assertLinear(_ result: ScalingCheck.Result, bound: Double = ScalingCheck.allowedRatio, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(result.ratio, bound, result.description, file: file, line: line)
    }

    func testLongChainEncodes() throws {
        assertLinear(
            try ScalingCheck.measure(startingAt: 250, maximumSize: 4000, make: { try JSONDocument(parsing: Self.chainJSON(links: $0)) }) {
                _ = try $0.archive(format: .binary)
            })
    }

    func testLongChainDecodes() throws {
        assertLinear(
            try ScalingCheck.measure(startingAt: 500, maximumSize: 16000, make: { Self.chainBytes(links: $0) }) {
                _ = try Archive(parsing: $0).json(view: .readable, pretty: false)
            })
    }

    func testLongChainSummary() throws {
        assertLinear(
            try ScalingCheck.measure(startingAt: 500, maximumSize: 16000, make: { Self.chainBytes(links: $0) }) {
                _ = try Archive(parsing: $0).summary()
            })
    }

    func testDepthOfManyObjectsOnALongChain() throws {
        // n objects of one class whose chain has n links: the JSON writes the chain n times
        // (the output bound stops that), but measuring its depth walks no chain. Measured 4.0
        // alone and 5.3–5.8 among the other tests (its 4n input's tables meet the heap others
        // left); 15.6 before chains were walked once: bounded at 8.
        assertLinear(
            try ScalingCheck.measure(startingAt: 500, maximumSize: 16000, make: { try Archive(parsing: Self.chainStream(links: $0, objects: $0)) }) {
                XCTAssertEqual($0.depth(of: .readable), 6)
            }, bound: max(8, ScalingCheck.allowedRatio))
    }

    func testLongChainsCompare() throws {
        assertLinear(
            try ScalingCheck.measure(
                startingAt: 1000, maximumSize: 64000,
                make: { (links: Int) throws -> (Archive, Archive) in
                    let bytes = Self.chainBytes(links: links)
                    return (try Archive(parsing: bytes), try Archive(parsing: bytes))
                }
            ) {
                XCTAssertNil($0.0.difference(from: $0.1))
            })
    }

    func testLargeDictionaryEncodes() throws {
        assertLinear(
            try ScalingCheck.measure(startingAt: 2000, maximumSize: 64000, make: { try JSONDocument(parsing: Self.dictionaryJSON(keys: $0)) }) {
                _ = try $0.archive(format: .binary)
            })
    }

    private static func dictionaryStream(keys: Int) throws -> [UInt8] {
        try JSONDocument(parsing: dictionaryJSON(keys: keys)).archive(format: .binary)
    }

    func testLargeDictionaryDecodes() throws {
        assertLinear(
            try ScalingCheck.measure(startingAt: 2000, maximumSize: 64000, make: Self.dictionaryStream) {
                _ = try Archive(parsing: $0).json(view: .readable, pretty: false)
            })
    }

    func testLargeDictionarySummary() throws {
        assertLinear(
            try ScalingCheck.measure(startingAt: 2000, maximumSize: 64000, make: Self.dictionaryStream) {
                _ = try Archive(parsing: $0).summary()
            })
    }

    /// One C string of `length` bytes, then `length / 4` more `*` values that refer back to
    /// it (two bytes each): the text must be checked as UTF-8 once, not at every reference.
    static func sharedCStringStream(length: Int) throws -> [UInt8] {
        var builder = TypedStreamBuilder(byteOrder: .little)
        try builder.beginGroup("*")
        let made = try builder.cString(Array(repeating: UInt8(ascii: "t"), count: length))!
        try builder.end()
        for _ in 0..<(length / 4) {
            try builder.beginGroup("*")
            try builder.cString(reference: made)
            try builder.end()
        }
        return try TypedStreamWriter.write(try builder.finish())
    }

    func testASharedCStringIsCheckedOnce() throws {
        let result = try ScalingCheck.measure(startingAt: 4_000, maximumSize: 400_000, make: Self.sharedCStringStream) { bytes in
            let archive = try Archive(parsing: bytes)
            _ = archive.depth(of: .readable)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, "depth of a shared C string's references: \(result)")
    }
}
