import ArchiveCodec
import HTTPCore
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

    /// `view=summary` takes `pretty` and `nested`; the readable view's other parameters are
    /// refused with it, as with `view=raw`, and a bad value is named as such first.
    func testSummaryTakesPrettyAndNestedOnly() throws {
        guard case .summary(let options) = try ConversionRequest(route: .decode, query: QueryParameters("view=summary&pretty=1&nested=yes"), path: "/v1/decode") else {
            return XCTFail("not a summary")
        }
        XCTAssertTrue(options.pretty && options.nested)
        XCTAssertEqual(try ConversionRequest(route: .decode, query: QueryParameters("view=SUMMARY"), path: "/v1/decode").route, .decode)
        for query in ["view=summary&maxDepth=64", "view=summary&exactIntegers=1", "view=summary&exactNumbers=true"] {
            XCTAssertTrue(refusal(query)?.contains("leave them out with view=summary") == true, query)
        }
        XCTAssertNil(refusal("view=summary&exactIntegers=0"))
        XCTAssertTrue(refusal("view=summary&maxDepth=0")?.contains("at least 1") == true)
        XCTAssertTrue(refusal("view=everything")?.contains("readable, raw, plain or summary") == true)
    }

    /// `view=plain` takes `pretty` and `nested`; the lossless view's shaping parameters are
    /// refused with it, and a bad value is named as such first.
    func testPlainTakesPrettyAndNestedOnly() throws {
        guard case .plain(let options) = try ConversionRequest(route: .decode, query: QueryParameters("view=plain&pretty=1&nested=yes"), path: "/v1/decode") else {
            return XCTFail("not the plain view")
        }
        XCTAssertTrue(options.pretty && options.nested)
        guard case .plain(let defaults) = try ConversionRequest(route: .decode, query: QueryParameters("view=Plain"), path: "/v1/decode") else {
            return XCTFail("not the plain view")
        }
        XCTAssertFalse(defaults.pretty || defaults.nested)
        for query in ["view=plain&maxDepth=64", "view=plain&exactIntegers=1", "view=plain&exactNumbers=true"] {
            XCTAssertTrue(refusal(query)?.contains("leave them out with view=plain") == true, query)
        }
        XCTAssertNil(refusal("view=plain&exactNumbers=0"))
        XCTAssertTrue(refusal("view=plain&maxDepth=0")?.contains("at least 1") == true)
        XCTAssertTrue(refusal("view=plain&nested=maybe")?.contains("maybe") == true)
    }

    /// `path` is read as `archive-tool get` reads one; it picks from the readable, raw or plain
    /// view, not from a summary.
    func testPathIsReadOnTheLoop() throws {
        guard case .decode(let options) = try ConversionRequest(route: .decode, query: QueryParameters("path=.teams%5B1%5D.name"), path: "/v1/decode") else {
            return XCTFail("not a decode")
        }
        XCTAssertEqual(options.path, try ReadablePath(parsing: ".teams[1].name"))
        XCTAssertNil(refusal("path=.&view=raw"))
        XCTAssertTrue(refusal("path=teams")?.contains("path:") == true)
        XCTAssertTrue(refusal("path=.a&view=summary")?.contains("view=summary") == true)
        guard case .plain(let plain) = try ConversionRequest(route: .decode, query: QueryParameters("view=plain&path=.a%5B0%5D"), path: "/v1/decode") else {
            return XCTFail("not the plain view")
        }
        XCTAssertEqual(plain.path, try ReadablePath(parsing: ".a[0]"))
        XCTAssertTrue(refusal("path=a&view=plain")?.contains("path:") == true)
    }

    func testNotFoundListsEveryEndpoint() {
        let detail = Problem.notFound(path: "/nowhere").detail
        for route in Route.allCases {
            XCTAssertTrue(detail.contains(route.path), "\(route.path) missing from: \(detail)")
        }
        XCTAssertTrue(detail.contains("GET /openapi.yaml"), detail)
    }
}
