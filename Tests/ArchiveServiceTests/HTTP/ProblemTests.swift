import Foundation
import XCTest

@testable import ArchiveServer

final class ProblemTests: XCTestCase {
    func testProblemDocumentIsValidJSONWithEscapes() throws {
        var problem = Problem.refused(.tooDeep(depth: 900, limit: 128), bounded: false, path: "/v1/decode")
        problem.detail = "quote \" backslash \\ newline \n tab \t bell \u{7}"
        problem.jsonPath = "$.a[\"b\"]"
        let response = problem.response()
        XCTAssertEqual(response.status, 413)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(object["detail"] as? String, problem.detail)
        XCTAssertEqual(object["jsonPath"] as? String, "$.a[\"b\"]")
        XCTAssertEqual(object["depth"] as? Int, 900)
        XCTAssertEqual(object["limit"] as? Int, 128)
        XCTAssertEqual(response.rejection, .tooDeep)
    }
}
