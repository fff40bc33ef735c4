import XCTest

@testable import ArchiveCodec

final class BytesFormTests: XCTestCase {
    private func content(_ form: BytesForm, _ bytes: [UInt8]) -> BytesForm.Content? {
        bytes.withUnsafeBufferPointer { form.content(of: $0) }
    }

    private func varints(_ form: BytesForm, _ bytes: [UInt8]) -> [UInt64]? {
        guard case .varints(let values) = content(form, bytes) else { return nil }
        return values
    }

    func testEachFormReadsItsLayout() {
        XCTAssertEqual(varints(.runs, [1, 0, 1, 1, 4, 2, 2, 1, 1, 3, 1, 0]), [1, 0, 1, 1, 4, 2, 2, 1, 1, 3, 1, 0])
        XCTAssertEqual(varints(.indexes, [4, 8, 15, 16, 23, 42]), [4, 8, 15, 16, 23, 42])
        XCTAssertEqual(varints(.indexes, [4]), [4])
        guard case .components(let text) = content(.rgbComponents, Array("0.5 0.25 1\0".utf8)) else { return XCTFail("components") }
        XCTAssertEqual(text.components, [0.5, 0.25, 1])
    }

    /// Pairs need an even count; no form reads empty bytes (they stay base64, `""`).
    func testLayoutsTheFormsDoNotRead() {
        XCTAssertNil(content(.ranges, [0, 50, 100]))
        XCTAssertNil(content(.runs, [1]))
        XCTAssertNil(content(.ranges, []))
        XCTAssertNil(content(.indexes, []))
        XCTAssertNil(content(.indexes, [0x80, 0x00]))
        XCTAssertNil(content(.components, []))
        XCTAssertNil(content(.components, [0x80]))
    }

    /// Decided once per class, from its name or an archived superclass.
    func testOwnersByClass() {
        XCTAssertEqual(BytesForm.Owner(name: "NSColor", chain: ["NSColor", "NSObject"]), .color)
        XCTAssertEqual(BytesForm.Owner(name: "NSCustomColor", chain: ["NSCustomColor", "NSColor", "NSObject"]), .color)
        XCTAssertEqual(BytesForm.Owner(name: "NSMutableIndexSet", chain: nil), .indexSet)
        XCTAssertEqual(BytesForm.Owner(name: "NSIndexPath", chain: nil), .indexPath)
        XCTAssertEqual(BytesForm.Owner(name: "NSMutableAttributedString", chain: nil), .attributedString)
        XCTAssertNil(BytesForm.Owner(name: "UIColor", chain: ["UIColor", "NSObject"]))
        XCTAssertEqual(BytesForm.Owner.color.keys.map(\.key.description), ["NSRGB", "NSWhite", "NSCMYK", "NSComponents"])
        XCTAssertEqual(BytesForm.Owner.color.keys.map(\.form), [.rgbComponents, .components, .components, .components])
    }
}
