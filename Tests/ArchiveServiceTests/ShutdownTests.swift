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

    /// A request whose body is still arriving when the drain begins is waited for: it finishes,
    /// is answered, and only then does `run()` return.
    func testUploadInProgressFinishesDuringTheDrain() throws {
        let server = try TestServer()
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(fd) }
        let head = "POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: \(archive.count)\r\n\r\n"
        XCTAssertTrue(TestHTTPClient.sendAll(fd, Array(head.utf8) + archive.prefix(10)))
        usleep(100_000)
        server.server.shutdown()
        XCTAssertFalse(server.waitUntilStopped(seconds: 0.3), "run() returned with a body arriving")
        XCTAssertTrue(TestHTTPClient.sendAll(fd, Array(archive.dropFirst(10))))
        let answer = String(decoding: try TestHTTPClient.readToEnd(fd), as: UTF8.self)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 "), answer)
        XCTAssertTrue(answer.contains("$uuid"), answer)
        XCTAssertTrue(server.waitUntilStopped(seconds: 10), "run() did not return after the drain")
    }

    /// A body that does not finish within the drain timeout is answered 503 `shutting-down`
    /// (Connection: close) before the process goes: every request that started gets a reply.
    func testUploadTooSlowForTheDrainIsAnswered() throws {
        let server = try TestServer { $0.drainTimeout = 2 }
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(fd) }
        XCTAssertTrue(TestHTTPClient.sendAll(fd, Array("POST /v1/decode HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nbplist00".utf8)))
        let partial = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 10)
        defer { close(partial) }
        XCTAssertTrue(TestHTTPClient.sendAll(partial, Array("GET /healthz HTTP/1.1\r\nHo".utf8)))
        usleep(100_000)
        let started = Date()
        server.server.shutdown()
        for socket in [fd, partial] {
            let answer = String(decoding: try TestHTTPClient.readToEnd(socket), as: UTF8.self)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 503 "), answer)
            XCTAssertTrue(answer.contains("shutting-down") && answer.contains("Connection: close"), answer)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
        XCTAssertTrue(server.waitUntilStopped(seconds: 10), "run() did not return after the drain")
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
