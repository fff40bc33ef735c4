import ArchiveServer
import Logging
import XCTest

/// A server refuses to start on a port another process listens on, although its own loops
/// share their port with `SO_REUSEPORT`: a forgotten server must not keep half the traffic.
final class ListenerTests: XCTestCase {
    private func start(port: Int, eventLoops: Int) throws -> ArchiveHTTPServer {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.workers = 1
        configuration.eventLoops = eventLoops
        let server = try ArchiveHTTPServer(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        _ = try server.start()
        return server
    }

    func testSecondServerOnTheSamePortRefusesToStart() throws {
        let running = try TestServer { $0.eventLoops = 2 }
        defer { running.stop() }
        for loops in [1, 2, 3] {
            XCTAssertThrowsError(try start(port: running.port, eventLoops: loops)) { error in
                XCTAssertTrue("\(error)".contains("127.0.0.1:\(running.port) is already in use by another process"), "\(error)")
            }
        }
        XCTAssertEqual(try running.get("/healthz").status, 200)
    }

    func testAPlainListenerOnThePortIsSeen() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(Glibc.listen(fd, 8), 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        XCTAssertThrowsError(try start(port: port, eventLoops: 2)) { error in
            XCTAssertTrue("\(error)".contains("already in use"), "\(error)")
        }
    }
}
