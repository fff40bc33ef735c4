import HTTPCore
import XCTest

final class QueryParametersTests: XCTestCase {
    func testQueryParameters() {
        let query = QueryParameters("view=raw&pretty=1&name=a%20b+c&empty&x=%zz")
        XCTAssertEqual(query["view"], "raw")
        XCTAssertEqual(query["pretty"], "1")
        XCTAssertEqual(query["name"], "a b c")
        XCTAssertEqual(query["empty"], "")
        XCTAssertEqual(query["x"], "%zz")
        XCTAssertNil(query["missing"])
        XCTAssertNil(QueryParameters(nil)["view"])
    }
}
