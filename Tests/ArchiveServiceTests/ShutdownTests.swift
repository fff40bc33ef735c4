import ArchiveServer
import Logging
import TestSupport
import XCTest

/// Graceful shutdown: stop accepting, finish what was accepted, then `run()` returns.
final class ShutdownTests: XCTestCase {
    private func connectionRefused(_ port: Int, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            do {
                let fd = try TestHTTPClient.connect(port: port, timeoutSeconds: 1)
                close(fd)
                usleep(10_000)
            } catch {
                return true
            }
        }
        return false
    }

    func testShutdownFinishesInFlightRequestsThenRunReturns() throws {
        let gate = Gate()
        let server = try TestServer(hooks: ServerHooks(beforeConversion: { gate.wait() })) {
            $0.workers = 1
            $0.queueLimit = 8
        }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let port = server.port
        let requests = (0..<3).map { _ in Background { try TestHTTPClient.post(port, "/v1/decode", archive) } }
        XCTAssertTrue(gate.waitForArrivals(1))
        XCTAssertTrue(try server.waitForMetric("archive_queue_depth", 2))

        server.server.shutdown()
        XCTAssertTrue(connectionRefused(port, within: 5), "still accepting connections while draining")
        XCTAssertFalse(server.waitUntilStopped(seconds: 0.3), "run() returned with requests in flight")

        gate.openGate()
        for request in requests {
            let reply = try XCTUnwrap(request.wait()).get()
            XCTAssertEqual(reply.status, 200, reply.text)
        }
        XCTAssertTrue(server.waitUntilStopped(seconds: 10), "run() did not return after the drain")
    }

    func testShutdownWhenIdleReturnsPromptly() throws {
        let server = try TestServer()
        XCTAssertEqual(try server.get("/healthz").status, 200)
        let started = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testDrainIsBoundedByTheDrainTimeout() throws {
        let gate = Gate()
        let server = try TestServer(hooks: ServerHooks(beforeConversion: { gate.wait() })) {
            $0.workers = 1
            $0.drainTimeout = 1
        }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let port = server.port
        let stuck = Background { try TestHTTPClient.post(port, "/v1/decode", archive) }
        XCTAssertTrue(gate.waitForArrivals(1))
        let started = Date()
        server.server.shutdown()
        // The loops give up on the stuck request after the drain timeout and close its connection.
        let outcome = stuck.wait(seconds: 10)
        XCTAssertNotNil(outcome, "the abandoned request was never closed")
        XCTAssertNotEqual(try? outcome?.get().status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        // The worker still finishes its job before run() returns; nothing is torn down under it.
        gate.openGate()
        XCTAssertTrue(server.waitUntilStopped(seconds: 10))
    }

    func testShutdownBeforeRunMakesRunReturn() throws {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        let server = try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        _ = try server.start()
        server.shutdown()
        let finished = Background { server.run() }
        XCTAssertNotNil(finished.wait(seconds: 10))
    }
}
