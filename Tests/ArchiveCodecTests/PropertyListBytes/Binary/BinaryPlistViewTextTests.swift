import TestSupport
import XCTest

@testable import ArchiveCodec

/// The text of a plist string object, ASCII or UTF-16, and nil for anything else.
final class BinaryPlistViewTextTests: XCTestCase {
    func testTextOfStrings() throws {
        var builder = TestPlistBuilder()
        let ascii = builder.string("plain")
        let wide = builder.string("café ☕︎")
        let number = builder.integer(3)
        let root = builder.add(.array([ascii, wide, number]))
        let plist = try BinaryPlist(bytes: builder.binary(top: root))
        plist.withView { view in
            XCTAssertEqual(view.text(of: ascii), "plain")
            XCTAssertEqual(view.text(of: wide), "café ☕︎")
            XCTAssertNil(view.text(of: number))
        }
    }
}
