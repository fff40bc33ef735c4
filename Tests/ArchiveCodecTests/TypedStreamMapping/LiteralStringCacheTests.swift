import XCTest

@testable import ArchiveCodec

/// `LiteralStringCache` answers only for a literal it kept, with what it kept.
final class LiteralStringCacheTests: XCTestCase {
    func testKeptLiteralsAreFoundAndOthersAreNot() {
        let literals: [StaticString] = ["@", "i", "iI", "*", "@@@", "c", "f", "d", "q", "I", "C", "s", "S", "l", "L", "Q", "B", "+", "ff", "fff"]
        var cache = LiteralStringCache()
        XCTAssertNil(cache.string(for: "@"))
        for (index, literal) in literals.enumerated() {
            cache.keep(UInt32(index), for: literal)
            XCTAssertEqual(cache.string(for: literal), UInt32(index), "\(literal)")
        }
        // Any literal still found is found with its own string (one whose slot a later one
        // took is not found at all).
        var found = 0
        for (index, literal) in literals.enumerated() {
            if let string = cache.string(for: literal) {
                XCTAssertEqual(string, UInt32(index), "\(literal)")
                found += 1
            }
        }
        XCTAssertGreaterThan(found, 0)
        XCTAssertNil(cache.string(for: "not kept"))
    }
}
