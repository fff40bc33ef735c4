import Foundation
import TestSupport
import XCTest

@testable import ArchiveServer

/// The page's files as compiled in: the repository's files, every one of its folder and only
/// those, referring only to each other, and built so that nothing from an archive can become
/// markup or script.
final class PageAssetsTests: XCTestCase {
    private let folder = Fixtures.repository.appendingPathComponent("Sources/ArchiveServer/Resources/page")

    private func repositoryFile(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// The folder's files (hidden ones, which the package does not embed, left out).
    private func folderFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    private func moduleSources() throws -> [(name: String, text: String)] {
        try folderFiles().filter { $0.hasSuffix(".mjs") }.map { ($0, String(decoding: try repositoryFile($0), as: UTF8.self)) }
    }

    /// Adding a file to the folder without naming it in `PageAssets.files`, or naming one that is
    /// not there, fails here.
    func testServesEveryFileOfTheFolderAndOnlyThose() throws {
        let names = PageAssets.files.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "a file named twice")
        XCTAssertEqual(names.sorted(), try folderFiles())
        XCTAssertTrue(names.contains("index.html"))
        for name in names {
            XCTAssertNotNil(PageAssets.contentType(ofFileNamed: name), "\(name): an extension without a content type")
            let asset = try XCTUnwrap(PageAssets.asset(at: PageAssets.path(ofFileNamed: name)), name)
            XCTAssertEqual(asset.plain, try repositoryFile(name), name)
        }
        XCTAssertEqual(PageAssets.paths, Set(names.map { PageAssets.path(ofFileNamed: $0) }))
    }

    func testPathsAndContentTypes() throws {
        XCTAssertEqual(PageAssets.path(ofFileNamed: "index.html"), "/")
        XCTAssertEqual(PageAssets.path(ofFileNamed: "app.mjs"), "/ui/app.mjs")
        XCTAssertEqual(PageAssets.asset(at: "/")?.contentType, "text/html; charset=utf-8")
        XCTAssertEqual(PageAssets.asset(at: "/ui/app.mjs")?.contentType, "text/javascript; charset=utf-8")
        XCTAssertEqual(PageAssets.asset(at: "/ui/mapping.mjs")?.contentType, "text/javascript; charset=utf-8")
        XCTAssertEqual(PageAssets.asset(at: "/ui/app.css")?.contentType, "text/css; charset=utf-8")
        XCTAssertEqual(PageAssets.contentType(ofFileNamed: "x.js"), "text/javascript; charset=utf-8")
        XCTAssertNil(PageAssets.contentType(ofFileNamed: "notes.txt"))
        XCTAssertNil(PageAssets.contentType(ofFileNamed: "mjs"))
        XCTAssertNil(PageAssets.asset(at: "/ui/"))
        XCTAssertNil(PageAssets.asset(at: "/index.html"))
        XCTAssertNil(PageAssets.asset(at: "/ui/index.html"))
        XCTAssertNil(PageAssets.asset(at: "/ui/app.js"))
        XCTAssertNil(PageAssets.asset(at: "/ui/../ui/app.mjs"))
    }

    func testEveryFileCarriesThePolicyAndHeaders() throws {
        for path in PageAssets.paths {
            let asset = try XCTUnwrap(PageAssets.asset(at: path), path)
            XCTAssertTrue(asset.contentType.hasSuffix("; charset=utf-8"), path)
            let headers = Dictionary(uniqueKeysWithValues: asset.headers.map { ($0.name, $0.value) })
            XCTAssertEqual(
                headers,
                ["Content-Security-Policy": PageAssets.contentSecurityPolicy, "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"],
                path
            )
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
        // Images of the page's own, data: URLs (the empty icon) and blob: URLs (the thumbnails
        // of data values, made from bytes in the page), from nowhere else.
        XCTAssertTrue(directives.contains("img-src 'self' data: blob:"))
        XCTAssertFalse(PageAssets.contentSecurityPolicy.contains("unsafe"), "the policy allows inline or eval'd script")
    }

    /// The API description says the policy word for word (its `ContentSecurityPolicy` header is a
    /// `const`, which schemathesis holds every page reply to).
    func testTheAPIDescriptionStatesThePolicyServed() {
        let description = String(decoding: StaticAsset.apiDescription.plain, as: UTF8.self)
        XCTAssertTrue(description.contains("const: \"\(PageAssets.contentSecurityPolicy)\""), "openapi.yaml's ContentSecurityPolicy differs from the policy served")
    }

    /// Every file the HTML loads is one the server has; one script, a module; no inline script,
    /// handler or style, no other origin.
    func testTheHTMLLoadsOnlyThePagesFiles() throws {
        let html = String(decoding: try repositoryFile("index.html"), as: UTF8.self)
        // The icon is an empty data URL, so the browser asks for no /favicon.ico.
        let references = html.matches(of: /(?:src|href)="([^"]*)"/).map { String($0.1) }.filter { $0 != "data:," }
        XCTAssertEqual(Set(references), ["/ui/app.mjs", "/ui/app.css"])
        for reference in references { XCTAssertNotNil(PageAssets.asset(at: reference), reference) }
        XCTAssertEqual(html.matches(of: /<script\b/).count, 1, "an inline script")
        XCTAssertTrue(html.contains("<script type=\"module\" src=\"/ui/app.mjs\"></script>"))
        XCTAssertNil(html.firstMatch(of: /\son[a-z]+\s*=/), "an inline event handler")
        XCTAssertNil(html.firstMatch(of: /\sstyle\s*=/), "an inline style")
    }

    /// Each module imports only modules beside it (same origin, under /ui/), which the server has.
    func testModulesImportOnlyThePagesModules() throws {
        let modules = try moduleSources()
        XCTAssertGreaterThan(modules.count, 10)
        for (name, text) in modules {
            for specifier in text.matches(of: /\bfrom\s+'([^']*)'/).map({ String($0.1) }) {
                XCTAssertTrue(specifier.hasPrefix("./"), "\(name) imports \(specifier)")
                XCTAssertNotNil(PageAssets.asset(at: "/ui/" + specifier.dropFirst(2)), "\(name) imports \(specifier)")
            }
            XCTAssertNil(text.firstMatch(of: /\bimport\s*\(/), "\(name) imports dynamically")
        }
    }

    /// The modules build their DOM from text only: none of the calls that parse a string as
    /// markup or code appear in any of them.
    func testTheScriptNeverParsesStringsAsMarkupOrCode() throws {
        for (name, text) in try moduleSources() {
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "srcdoc", "DOMParser", "createContextualFragment"] {
                XCTAssertFalse(text.contains(sink), "\(name) uses \(sink)")
            }
        }
    }

    func testEachAssetHasItsCompressedForms() throws {
        let script = try XCTUnwrap(PageAssets.asset(at: "/ui/tree-view.mjs"))
        XCTAssertNil(script.compressed(in: .identity))
        XCTAssertEqual(try SystemGzip.decompress(XCTUnwrap(script.compressed(in: .gzip))), script.plain)
        XCTAssertLessThan(try XCTUnwrap(script.compressed(in: .gzip)).count, script.plain.count / 2)
    }
}
