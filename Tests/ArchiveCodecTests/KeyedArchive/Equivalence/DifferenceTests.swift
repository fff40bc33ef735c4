import TestSupport
import XCTest

@testable import ArchiveCodec

final class DifferenceTests: XCTestCase {
    func testDifferencesAreFoundAndLocated() throws {
        let base = try KeyedArchive(parsing: buildArchive([.object("N", [("next", .uid(2))]), .object("N", [("v", .int(1))])]))
        let changed = try KeyedArchive(parsing: buildArchive([.object("N", [("next", .uid(2))]), .object("N", [("v", .int(2))])]))
        XCTAssertEqual(base.difference(from: changed), ".next.v: 1 ≠ 2")
        let otherClass = try KeyedArchive(parsing: buildArchive([.object("N", [("next", .uid(2))]), .object("M", [("v", .int(1))])]))
        XCTAssertEqual(base.difference(from: otherClass), #".next: {"$class": "N", …} ≠ {"$class": "M", …}"#)
        // Sharing: one object referenced twice versus two equal objects.
        let shared = try KeyedArchive(parsing: buildArchive([.object("P", [("a", .uid(2)), ("b", .uid(2))]), .object("N", [])]))
        let copies = try KeyedArchive(parsing: buildArchive([.object("P", [("a", .uid(2)), ("b", .uid(3))]), .object("N", []), .object("N", [])]))
        XCTAssertNotNil(shared.difference(from: copies))
        XCTAssertNil(shared.difference(from: shared))
    }

    /// NSData that is text is written `{"$text": "…"}`: a difference in it is named there, and
    /// shown as text.
    func testDataThatIsTextIsNamedAndShownAsText() throws {
        func archive(_ text: String) throws -> KeyedArchive {
            try KeyedArchive(parsing: buildArchive([.object("NSMutableData", [("NS.data", .data(Array(text.utf8)))])]))
        }
        let difference = try archive("hello").difference(from: archive("hellp"))
        XCTAssertEqual(difference, #".$text: "hello" ≠ "hellp""#)
        let bytes = try KeyedArchive(parsing: buildArchive([.object("NSMutableData", [("NS.data", .data([0, 1, 2]))])]))
        let otherBytes = try KeyedArchive(parsing: buildArchive([.object("NSMutableData", [("NS.data", .data([0, 1, 3]))])]))
        XCTAssertEqual(bytes.difference(from: otherBytes).map { $0.hasPrefix(".$data: ") }, true)
    }
}
