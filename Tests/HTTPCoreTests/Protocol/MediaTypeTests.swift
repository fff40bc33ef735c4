import HTTPCore
import XCTest

final class MediaTypeTests: XCTestCase {
    func testJSONMediaTypes() {
        for yes in ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/problem+json", "text/json", " application/json "] {
            XCTAssertTrue(MediaType.isJSON(yes), yes)
        }
        for no in ["text/plain", "application/xml", "application/x-bplist", "application/jsonx", "", "json"] {
            XCTAssertFalse(MediaType.isJSON(no), no)
        }
    }

    func testTheEssenceDropsParametersAndCase() {
        XCTAssertEqual(MediaType.essence("Application/JSON; charset=utf-8"), "application/json")
        XCTAssertEqual(MediaType.essence(" multipart/form-data ;boundary=x"), "multipart/form-data")
        XCTAssertEqual(MediaType.essence(""), "")
    }
}
