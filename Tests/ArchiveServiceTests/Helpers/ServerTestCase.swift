import ArchiveServer
import XCTest

/// A test class whose every test gets a fresh `TestServer`, started before the test and stopped
/// after it. A subclass changes the server's configuration by overriding `configure`.
class ServerTestCase: XCTestCase {
    var server: TestServer!

    /// The configuration of each test's server, applied to `TestServer`'s defaults.
    func configure(_ configuration: inout ServerConfiguration) {}

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer { self.configure(&$0) }
    }

    override func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    /// A file served as it is (`StaticAsset`): gzip-compressed on request to the same bytes, and
    /// HEAD answered with its length and no body.
    func assertServesCompressedAndHead(_ path: String, body: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
        let gzip = try TestHTTPClient.request(port: server.port, method: "GET", path: path, headers: ["Accept-Encoding": "gzip"])
        XCTAssertEqual(gzip.header("Content-Encoding"), "gzip", file: file, line: line)
        XCTAssertEqual(try SystemGzip.decompress(gzip.body), body, file: file, line: line)
        let head = try TestHTTPClient.request(port: server.port, method: "HEAD", path: path)
        XCTAssertEqual(head.status, 200, file: file, line: line)
        XCTAssertEqual(head.header("Content-Length"), String(body.count), file: file, line: line)
    }
}
