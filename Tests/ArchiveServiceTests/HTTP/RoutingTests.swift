@testable import ArchiveServer
import Logging
import ArchiveCodec
import Foundation
import XCTest

final class RoutingTests: XCTestCase {
    func testRoutesAndMethods() {
        XCTAssertEqual(Route(path: "/v1/decode"), .decode)
        XCTAssertEqual(Route(path: "/v1/encode"), .encode)
        XCTAssertNil(Route(path: "/v1/decode/"))
        XCTAssertNil(Route(path: "/V1/DECODE"))
        XCTAssertEqual(Route.decode.allowHeader, "POST")
        XCTAssertEqual(Route.healthz.allowHeader, "GET, HEAD")
    }

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

    func testJSONMediaTypes() {
        for yes in ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/problem+json", "text/json", " application/json "] {
            XCTAssertTrue(isJSONMediaType(yes), yes)
        }
        for no in ["text/plain", "application/xml", "application/x-bplist", "application/jsonx", "", "json"] {
            XCTAssertFalse(isJSONMediaType(no), no)
        }
    }

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
