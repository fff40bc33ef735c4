import TestSupport
import XCTest

/// A missing tool is a skip, or a failure under `ARCHIVE_TESTS_REQUIRE_TOOLS`.
final class MissingToolTests: XCTestCase {
    func testWhichValuesRequireEveryTool() {
        XCTAssertFalse(MissingTool.isRequired(nil))
        XCTAssertFalse(MissingTool.isRequired(""))
        XCTAssertFalse(MissingTool.isRequired("0"))
        XCTAssertTrue(MissingTool.isRequired("1"))
        XCTAssertTrue(MissingTool.isRequired("yes"))
    }

    func testTheErrorIsASkipOnlyWhenToolsAreNotRequired() {
        let error = MissingTool.error("frobnicate is not installed")
        if MissingTool.required {
            let failure = error as? MissingTool.Failure
            XCTAssertEqual(failure?.message, "frobnicate is not installed")
            XCTAssertTrue(failure?.description.contains("ARCHIVE_TESTS_REQUIRE_TOOLS") == true)
        } else {
            XCTAssertTrue(error is XCTSkip, "\(error)")
        }
    }
}
