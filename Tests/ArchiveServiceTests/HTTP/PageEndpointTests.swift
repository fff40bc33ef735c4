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
        XCTAssertTrue(page.text.contains("<script type=\"module\" src=\"/ui/app.mjs\"></script>"))
        XCTAssertEqual(try server.get("/?from=bookmark").body, page.body)

        let script = try server.get("/ui/app.mjs")
        XCTAssertEqual(script.header("Content-Type"), "text/javascript; charset=utf-8")
        XCTAssertEqual(script.header("Content-Security-Policy"), PageAssets.contentSecurityPolicy)
        // A module the entry imports, served the same way.
        let module = try server.get("/ui/mapping.mjs")
        XCTAssertEqual(module.status, 200)
        XCTAssertEqual(module.header("Content-Type"), "text/javascript; charset=utf-8")
        XCTAssertEqual(module.header("Content-Security-Policy"), PageAssets.contentSecurityPolicy)
        XCTAssertEqual(module.header("Cache-Control"), "no-cache")
        let style = try server.get("/ui/app.css")
        XCTAssertEqual(style.header("Content-Type"), "text/css; charset=utf-8")

        try assertServesCompressedAndHead("/", body: page.body)
        try assertServesCompressedAndHead("/ui/app.mjs", body: script.body)
    }

    func testOtherMethodsAndPaths() throws {
        let post = try TestHTTPClient.request(port: server.port, method: "POST", path: "/", body: [1])
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("Allow"), "GET, HEAD")
        XCTAssertEqual(try server.get("/ui/").status, 404)
        XCTAssertEqual(try server.get("/ui/app.mjs.map").status, 404)
        XCTAssertEqual(try server.get("/ui/app.js").status, 404)
        XCTAssertEqual(try server.get("/index.html").status, 404)
        XCTAssertTrue(try server.get("/nope").text.contains("GET / (the page)"))
    }
}
