import XCTest

@testable import ArchiveCodec

/// The rule that decides when data reads as text (`DataText`).
final class DataTextTests: XCTestCase {
    private func isText(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer(DataText.isText) }
    private func isText(_ text: String) -> Bool { isText(Array(text.utf8)) }

    func testTextIsText() {
        XCTAssertTrue(isText("hello"))
        XCTAssertTrue(isText("DATA\n"))
        XCTAssertTrue(isText("tab\there\r\nand line"))
        XCTAssertTrue(isText("héllo ☃ 𝄞"))
        XCTAssertTrue(isText("{\"json\": [1, 2]}"))
        XCTAssertTrue(isText(" "))
    }

    func testBinaryStaysBinary() {
        XCTAssertFalse(isText([UInt8]()), "empty")
        XCTAssertFalse(isText([0x24, 0x00, 0x04, 0x00]), "a NUL")
        XCTAssertFalse(isText("0.5 0.5 0.5\u{0}"), "a C string's terminator")
        XCTAssertFalse(isText("bell\u{7}"))
        XCTAssertFalse(isText("del\u{7F}"))
        XCTAssertFalse(isText("c1 \u{85}"), "a C1 control")
        XCTAssertFalse(isText([0xC3, 0x28]), "not UTF-8")
        XCTAssertFalse(isText([0xED, 0xA0, 0x80]), "a surrogate")
        XCTAssertFalse(isText([0xC0, 0xAF]), "an overlong form")
        XCTAssertFalse(isText([0xE2, 0x98]), "cut short")
        XCTAssertFalse(isText(Array("book".utf8) + [0x30, 0x02, 0, 0]))
    }

    /// Documents the nested view decodes stay `$data`, text or not.
    func testNestedPayloadCandidatesStayData() {
        XCTAssertFalse(isText("<?xml version=\"1.0\"?><plist version=\"1.0\"><string>x</string></plist>"))
        XCTAssertFalse(isText("  <plist version=\"1.0\"><true/></plist>"))
        XCTAssertFalse(isText("<!DOCTYPE plist>"))
        XCTAssertFalse(isText("bplist00 is text here"))
        XCTAssertTrue(isText("plist00"))
    }
}
