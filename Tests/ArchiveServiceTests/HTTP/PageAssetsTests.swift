import Foundation
import TestSupport
import XCTest

@testable import ArchiveServer

/// The page's files as compiled in: the repository's files, referring only to each other, and
/// built so that nothing from an archive can become markup or script.
final class PageAssetsTests: XCTestCase {
    private func repositoryFile(_ name: String) throws -> [UInt8] {
        let url = Fixtures.repository.appendingPathComponent("Sources/ArchiveServer/Resources/page/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    func testServesTheRepositorysFilesAtTheirPaths() throws {
        XCTAssertEqual(PageAssets.asset(at: "/")?.plain, try repositoryFile("index.html"))
        XCTAssertEqual(PageAssets.asset(at: "/ui/app.js")?.plain, try repositoryFile("app.js"))
        XCTAssertEqual(PageAssets.asset(at: "/ui/app.css")?.plain, try repositoryFile("app.css"))
        XCTAssertNil(PageAssets.asset(at: "/ui/"))
        XCTAssertNil(PageAssets.asset(at: "/index.html"))
        for path in PageAssets.paths {
            let asset = try XCTUnwrap(PageAssets.asset(at: path), path)
            XCTAssertTrue(asset.contentType.hasSuffix("; charset=utf-8"), path)
            XCTAssertEqual(asset.headers.first { $0.name == "Content-Security-Policy" }?.value, PageAssets.contentSecurityPolicy)
            // nosniff is on every reply of the service (RequestIDTests), not an asset's own.
            XCTAssertNil(asset.headers.first { $0.name == "X-Content-Type-Options" })
        }
    }

    func testThePolicyAllowsOnlyThePagesOwnScript() {
        let directives = PageAssets.contentSecurityPolicy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertTrue(directives.contains("default-src 'none'"))
        XCTAssertTrue(directives.contains("script-src 'self'"))
        XCTAssertTrue(directives.contains("connect-src 'self'"))
        XCTAssertTrue(directives.contains("frame-ancestors 'none'"))
        XCTAssertFalse(PageAssets.contentSecurityPolicy.contains("unsafe"), "the policy allows inline or eval'd script")
    }

    /// Every file the HTML loads is one the server has; no inline script, handler or style, no
    /// other origin.
    func testTheHTMLLoadsOnlyThePagesFiles() throws {
        let html = String(decoding: try repositoryFile("index.html"), as: UTF8.self)
        // The icon is an empty data URL, so the browser asks for no /favicon.ico.
        let references = html.matches(of: /(?:src|href)="([^"]*)"/).map { String($0.1) }.filter { $0 != "data:," }
        XCTAssertEqual(Set(references), ["/ui/app.js", "/ui/app.css"])
        for reference in references { XCTAssertNotNil(PageAssets.asset(at: reference), reference) }
        XCTAssertEqual(html.matches(of: /<script\b/).count, 1, "an inline script")
        XCTAssertNil(html.firstMatch(of: /\son[a-z]+\s*=/), "an inline event handler")
        XCTAssertNil(html.firstMatch(of: /\sstyle\s*=/), "an inline style")
    }

    /// The script builds its DOM from text only: none of the calls that parse a string as markup
    /// or code appear in it.
    func testTheScriptNeverParsesStringsAsMarkupOrCode() throws {
        let script = String(decoding: try repositoryFile("app.js"), as: UTF8.self)
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "srcdoc", "DOMParser", "createContextualFragment"] {
            XCTAssertFalse(script.contains(sink), "app.js uses \(sink)")
        }
    }

    func testEachAssetHasItsCompressedForms() throws {
        let script = try XCTUnwrap(PageAssets.asset(at: "/ui/app.js"))
        XCTAssertNil(script.compressed(in: .identity))
        XCTAssertEqual(try SystemGzip.decompress(XCTUnwrap(script.compressed(in: .gzip))), script.plain)
        XCTAssertLessThan(try XCTUnwrap(script.compressed(in: .gzip)).count, script.plain.count / 2)
    }
}
