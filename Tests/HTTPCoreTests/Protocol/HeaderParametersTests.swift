import HTTPCore
import XCTest

final class HeaderParametersTests: XCTestCase {
    func testValueAndParametersQuotedOrNot() throws {
        let parsed = try HeaderParameters(parsing: " Form-Data ; name=\"file\";FILENAME=a.plist ;  x = \"a;b\" ")
        XCTAssertEqual(parsed.value, "form-data")
        XCTAssertEqual(parsed["name"], "file")
        XCTAssertEqual(parsed["filename"], "a.plist")
        XCTAssertEqual(parsed["x"], "a;b")
        XCTAssertNil(parsed["boundary"])
    }

    func testBackslashQuotesTheNextCharacter() throws {
        XCTAssertEqual(try HeaderParameters(parsing: #"form-data; filename="say \"hi\" \\ .plist""#)["filename"], #"say "hi" \ .plist"#)
    }

    func testTheFirstOfARepeatedNameIsKept() throws {
        XCTAssertEqual(try HeaderParameters(parsing: "a; name=one; NAME=two")["name"], "one")
    }

    func testEmptyParametersArePassedOver() throws {
        let parsed = try HeaderParameters(parsing: "multipart/form-data;; boundary=x;")
        XCTAssertEqual(parsed["boundary"], "x")
        XCTAssertEqual(parsed.parameters.count, 1)
    }

    func testNamesCompareAsASCIIOnly() throws {
        // The Kelvin sign lower-cases to "k" in Unicode, not in ASCII.
        let parsed = try HeaderParameters(parsing: "a; \u{212A}ey=1")
        XCTAssertNil(parsed["key"])
    }

    func testMalformedParameters() {
        for text in ["a; name", "a; =x", "a; name=\"open", "a; name=\"x\"y"] {
            XCTAssertThrowsError(try HeaderParameters(parsing: text), text)
        }
    }
}
