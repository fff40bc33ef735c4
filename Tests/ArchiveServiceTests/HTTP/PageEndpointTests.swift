import TestSupport
import XCTest

@testable import ArchiveServer

/// The page at `/` from a running server: its files with their policy, compressed on request,
/// and only with GET and HEAD.
final class PageEndpointTests: ServerTestCase {
    func testServesThePageWithItsPolicy() throws {
        let page = try server.get("/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")
        XCTAssertEqual(page.header("Content-Security-Policy"), PageAssets.contentSecurityPolicy)
        XCTAssertNil(page.header("Set-Cookie"))
        XCTAssertTrue(page.text.contains("<script src=\"/ui/app.js\" defer></script>"))
        XCTAssertEqual(try server.get("/?from=bookmark").body, page.body)

        let script = try server.get("/ui/app.js")
        XCTAssertEqual(script.header("Content-Type"), "text/javascript; charset=utf-8")
        XCTAssertEqual(script.header("Content-Security-Policy"), PageAssets.contentSecurityPolicy)
        let style = try server.get("/ui/app.css")
        XCTAssertEqual(style.header("Content-Type"), "text/css; charset=utf-8")

        try assertServesCompressedAndHead("/", body: page.body)
        try assertServesCompressedAndHead("/ui/app.js", body: script.body)
    }

    func testOtherMethodsAndPaths() throws {
        let post = try TestHTTPClient.request(port: server.port, method: "POST", path: "/", body: [1])
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("Allow"), "GET, HEAD")
        XCTAssertEqual(try server.get("/ui/").status, 404)
        XCTAssertEqual(try server.get("/ui/app.js.map").status, 404)
        XCTAssertEqual(try server.get("/index.html").status, 404)
        XCTAssertTrue(try server.get("/nope").text.contains("GET / (the page)"))
    }
}
