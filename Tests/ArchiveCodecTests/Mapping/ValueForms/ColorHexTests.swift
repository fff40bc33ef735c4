import XCTest

@testable import ArchiveCodec

final class ColorHexTests: XCTestCase {
    func testHexOfComponents() {
        XCTAssertEqual(ColorHex.text([0.9861047268, 0, 0.0832362771]), "#FB0015")
        XCTAssertEqual(ColorHex.text([0, 0, 0, 1]), "#000000")
        XCTAssertEqual(ColorHex.text([1, 1, 1, 0.5]), "#FFFFFF80")
        XCTAssertNil(ColorHex.text([0.5]))
        XCTAssertNil(ColorHex.text([0.5, 0.5, 0.5, 0.5, 0.5]))
        XCTAssertNil(ColorHex.text([1.5, 0, 0]))
        XCTAssertNil(ColorHex.text([-0.1, 0, 0]))
    }

    func testMatchingIgnoresLetterCase() {
        XCTAssertTrue(ColorHex.matches("#fb0015", [0.9861047268, 0, 0.0832362771]))
        XCTAssertTrue(ColorHex.matches("#FB0015", [0.9861047268, 0, 0.0832362771]))
        XCTAssertFalse(ColorHex.matches("#FB0016", [0.9861047268, 0, 0.0832362771]))
        XCTAssertFalse(ColorHex.matches("FB0015", [0.9861047268, 0, 0.0832362771]))
        XCTAssertFalse(ColorHex.matches("#FB0015", [2, 0, 0]))
    }
}
