import XCTest

@testable import ArchiveServer

/// Query parameters are read on the loop, and every refusal says what the parameter takes.
final class ConversionRequestTests: XCTestCase {
    private func refusal(_ query: String, route: Route = .decode) -> String? {
        do {
            _ = try ConversionRequest(route: route, query: QueryParameters(query), path: route.path)
            return nil
        } catch {
            return error.detail
        }
    }

    func testFlagsTakeWhatTheirErrorSays() {
        for value in ["1", "true", "yes", "TRUE", "0", "false", "no", ""] {
            XCTAssertNil(refusal("pretty=\(value)"), value)
        }
        let detail = refusal("pretty=maybe") ?? ""
        XCTAssertTrue(detail.contains("yes") && detail.contains("no") && detail.contains("true") && detail.contains("maybe"), detail)
        // Only ASCII letters fold: a Kelvin sign is not a k, a dotted capital I not an i.
        XCTAssertNotNil(refusal("view=raw\u{212A}"))
        XCTAssertNil(refusal("view=RAW"))
    }

    func testMaxDepthRefusalsSayWhatIsWrong() {
        XCTAssertNil(refusal("maxDepth=64"))
        XCTAssertTrue(refusal("maxDepth=99999999999999999999")?.contains("out of range") == true)
        XCTAssertTrue(refusal("maxDepth=0")?.contains("at least 1") == true)
        XCTAssertTrue(refusal("maxDepth=-3")?.contains("at least 1") == true)
        XCTAssertTrue(refusal("maxDepth=ten")?.contains("whole number") == true)
        XCTAssertTrue(refusal("maxDepth=1.5")?.contains("whole number") == true)
        XCTAssertTrue(refusal("maxDepth=")?.contains("whole number") == true)
    }

    func testNotFoundListsEveryEndpoint() {
        let detail = Problem.notFound(path: "/nowhere").detail
        for route in Route.allCases {
            XCTAssertTrue(detail.contains(route.path), "\(route.path) missing from: \(detail)")
        }
        XCTAssertTrue(detail.contains("GET /openapi.yaml"), detail)
    }
}
