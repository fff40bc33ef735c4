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

    /// A problem quotes at most a few hundred bytes of what the client sent, wherever it
    /// quotes it: the detail, the instance, the JSON path.
    func testAProblemQuotesLittleOfTheInput() throws {
        let huge = String(repeating: "x", count: 1_000_000)
        var problem = Problem.notFound(path: "/" + huge)
        problem.jsonPath = "$." + huge
        let response = problem.response()
        XCTAssertLessThan(response.body.count, 3_000)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertTrue((object["detail"] as? String)?.contains("…") == true)
        XCTAssertTrue((object["instance"] as? String)?.hasPrefix("/xxx") == true)
    }

    /// End to end: a 33 MB XML element name and a 2 MB JSON key get problems of a few hundred
    /// bytes.
    func testTheServiceQuotesLittleOfAHugeName() throws {
        let server = try TestServer { $0.maxBodySize = 40 << 20 }
        defer { server.stop() }
        let name = String(repeating: "e", count: 33 << 20)
        let xml = Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><\(name)/></plist>".utf8)
        let decoded = try server.post("/v1/decode", xml)
        XCTAssertEqual(decoded.status, 400)
        XCTAssertLessThan(decoded.body.count, 2_000, String(decoding: decoded.body.prefix(300), as: UTF8.self))
        let json = Array("{\"$propertyList\":{\"$\(String(repeating: "k", count: 2 << 20))\":1}}".utf8)
        let encoded = try server.post("/v1/encode", json, contentType: "application/json")
        XCTAssertEqual(encoded.status, 422)
        XCTAssertLessThan(encoded.body.count, 2_000, String(decoding: encoded.body.prefix(300), as: UTF8.self))
    }
}
