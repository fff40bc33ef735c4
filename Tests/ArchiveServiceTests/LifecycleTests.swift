import ArchiveServer
import Logging
import TestSupport
import XCTest

final class LifecycleTests: XCTestCase {
    func testServerStartedButNeverRunReleasesItsPortWhenDropped() throws {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        var server: ArchiveHTTPServer? = try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let port = try XCTUnwrap(server).start()
        server = nil
        XCTAssertThrowsError(try TestHTTPClient.connect(port: port, timeoutSeconds: 1), "port \(port) still open")
        // And the port can be bound again.
        configuration.port = port
        let again = try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        XCTAssertEqual(try again.start(), port)
    }
}
