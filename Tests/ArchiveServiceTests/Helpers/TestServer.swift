import ArchiveServer
import Foundation
import Logging
import XCTest

/// A real server on 127.0.0.1 and a free port, its `run()` on a background thread.
final class TestServer {
    let server: ArchiveHTTPServer
    let port: Int
    private let finished = DispatchSemaphore(value: 0)

    init(
        file: StaticString = #filePath, line: UInt = #line, logger: Logger? = nil,
        hooks: ServerHooks = ServerHooks(), _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.workers = 2
        configuration.eventLoops = 2
        configuration.drainTimeout = 10
        // Workers at the loops' priority, as the tests' counts of busy workers right after a
        // reply expect (at a lower one the loop may answer before the worker has counted
        // itself free); the niceness has a test of its own.
        configuration.workerNice = 0
        // Debug and sanitizer builds convert the tests' largest inputs (a million-object
        // chain) in tens of seconds, past the production default; the time limit has tests of
        // its own, which set it.
        configuration.conversionTimeout = 600
        configure(&configuration)
        let logger = logger ?? Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        server = try ArchiveHTTPServer(configuration: configuration, logger: logger, hooks: hooks)
        port = try server.start()
        let server = self.server
        let finished = self.finished
        Thread.detachNewThread {
            server.run()
            finished.signal()
        }
    }

    /// Whether `run()` returned within `seconds`.
    func waitUntilStopped(seconds: Double) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }

    /// Graceful shutdown; fails the test if `run()` does not return in time.
    func stop(file: StaticString = #filePath, line: UInt = #line) {
        server.shutdown()
        XCTAssertTrue(waitUntilStopped(seconds: 30), "run() did not return after shutdown()", file: file, line: line)
    }

    func get(_ path: String) throws -> HTTPReply { try TestHTTPClient.get(port, path) }

    func post(_ path: String, _ body: [UInt8], contentType: String? = nil) throws -> HTTPReply {
        try TestHTTPClient.post(port, path, body, contentType: contentType)
    }

    /// Polls /metrics until `metric` reaches `value` (the pool counters change on worker threads).
    func waitForMetric(_ metric: String, _ value: Int, seconds: Double = 10) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try Self.metricValue(metric, in: get("/metrics").text) == value { return true }
            usleep(5_000)
        }
        return false
    }

    static func metricValue(_ name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return line.split(separator: " ").last.flatMap { Int($0) }
        }
        return nil
    }
}

extension TestServer {
    /// One worker and a 20 ms conversion timeout, which `TestArchives.pastTheTimeout` runs
    /// far past: a server for the tests of the time limit.
    static func timingOut(file: StaticString = #filePath, line: UInt = #line) throws -> TestServer {
        try TestServer(file: file, line: line) {
            $0.workers = 1
            $0.conversionTimeout = 0.02
        }
    }
}

/// A gate that worker hooks wait on until the test opens it.
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var open = false
    private(set) var arrivals = 0

    func wait() {
        condition.lock()
        arrivals += 1
        condition.broadcast()
        while !open { condition.wait() }
        condition.unlock()
    }

    func openGate() {
        condition.lock()
        open = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` threads have arrived at the gate.
    func waitForArrivals(_ count: Int, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while arrivals < count {
            if !condition.wait(until: deadline) { return arrivals >= count }
        }
        return true
    }
}
