import XCTest

@testable import ArchiveServer

final class RouteTests: XCTestCase {
    func testRoutesAndMethods() {
        XCTAssertEqual(Route(path: "/v1/decode"), .decode)
        XCTAssertEqual(Route(path: "/v1/encode"), .encode)
        XCTAssertNil(Route(path: "/v1/decode/"))
        XCTAssertNil(Route(path: "/V1/DECODE"))
        XCTAssertEqual(Route.decode.allowHeader, "POST")
        XCTAssertEqual(Route.healthz.allowHeader, "GET, HEAD")
        XCTAssertEqual(Route(path: "/"), .page)
        XCTAssertEqual(Route(path: "/ui/app.mjs"), .page)
        XCTAssertEqual(Route(path: "/ui/mapping.mjs"), .page)
        XCTAssertEqual(Route(path: "/ui/app.css"), .page)
        XCTAssertNil(Route(path: "/ui/other.mjs"))
        XCTAssertNil(Route(path: "/ui/app.js"))
        XCTAssertEqual(Route.page.allowHeader, "GET, HEAD")
    }
}
