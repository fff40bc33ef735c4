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
}
