import ArchiveCodec
import Foundation
import TestSupport
import XCTest

@testable import ArchiveServer

/// `--conversion-timeout`: a conversion that runs past it is stopped and answered 503
/// `conversion-timeout` with `Retry-After`, counted in the metrics, and its worker takes the
/// next request at once; `/readyz` says not ready while every worker has been held past
/// `stuckWorkerSeconds`; workers run at `--worker-nice`.
final class ConversionTimeoutTests: XCTestCase {
    func testAConversionPastTheTimeoutIsStoppedAndTheWorkerGoesOn() throws {
        let server = try TestServer.timingOut()
        defer { server.stop() }
        let archive = TestArchives.pastTheTimeout
        let started = Date()
        let reply = try server.post("/v1/decode", archive)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(reply.status, 503, reply.text)
        XCTAssertEqual(reply.header("Content-Type"), "application/problem+json")
        XCTAssertTrue(reply.text.contains("urn:archive-service:problem:conversion-timeout"), reply.text)
        XCTAssertTrue(reply.text.contains("0.02 s"), reply.text)
        XCTAssertEqual(reply.header("Retry-After"), "1")
        XCTAssertEqual(reply.header("X-Content-Type-Options"), "nosniff")
        XCTAssertLessThan(took, 5, "the conversion was not stopped near its deadline")
        // The same worker answers the next request.
        let small = try server.post("/v1/decode", TestArchives.linkedList(count: 3))
        XCTAssertEqual(small.status, 200, small.text)
        XCTAssertTrue(try server.waitForMetric("archive_rejections_total{reason=\"conversion_timeout\"}", 1))
        // Encodes and summaries are stopped the same way.
        let json = Array("{\"$propertyList\":[\(Array(repeating: "\"some text\"", count: 200_000).joined(separator: ","))]}".utf8)
        let encoded = try server.post("/v1/encode", json, contentType: "application/json")
        XCTAssertEqual(encoded.status, 503, encoded.text)
        let summary = try server.post("/v1/decode?view=summary", archive)
        XCTAssertEqual(summary.status, 503, summary.text)
        XCTAssertTrue(try server.waitForMetric("archive_rejections_total{reason=\"conversion_timeout\"}", 3))
    }

    func testReadinessFailsWhileEveryWorkerIsHeldPastTheThreshold() throws {
        let release = DispatchSemaphore(value: 0)
        var hooks = ServerHooks()
        hooks.beforeConversion = { _ = release.wait(timeout: .now() + 20) }
        let server = try TestServer(hooks: hooks) {
            $0.workers = 1
            $0.conversionTimeout = 3
        }
        defer { server.stop() }
        XCTAssertEqual(server.server.configuration.stuckWorkerSeconds, 1)
        XCTAssertEqual(try server.get("/readyz").status, 200)
        let port = server.port
        let held = Background { try TestHTTPClient.post(port, "/v1/decode", TestArchives.linkedList(count: 3)) }
        // Busy, but not yet for a second: still ready (the queue has room).
        XCTAssertTrue(try server.waitForMetric("archive_workers_busy", 1))
        XCTAssertEqual(try server.get("/readyz").status, 200)
        usleep(1_200_000)
        let stuck = try server.get("/readyz")
        XCTAssertEqual(stuck.status, 503, stuck.text)
        XCTAssertTrue(stuck.text.contains("have been on their conversions"), stuck.text)
        release.signal()
        XCTAssertEqual(try held.wait()?.get().status, 200)
        // The worker counts itself free just after its reply is handed over.
        var ready = 0
        for _ in 0..<100 where ready != 200 {
            ready = try server.get("/readyz").status
            usleep(10_000)
        }
        XCTAssertEqual(ready, 200)
    }

    func testWorkersRunAtTheirNiceness() throws {
        func niceValues() -> [Int] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap { task in
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { return nil }
                // Fields after the command's closing parenthesis: state is field 3, nice field 19.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 16 ? Int(fields[16]) : nil
            }
        }
        let before = niceValues().filter { $0 == 7 }.count
        let server = try TestServer {
            $0.workers = 3
            $0.workerNice = 7
        }
        defer { server.stop() }
        // The threads set their niceness as they start.
        var seen = 0
        for _ in 0..<200 {
            seen = niceValues().filter { $0 == 7 }.count - before
            if seen >= 3 { break }
            usleep(10_000)
        }
        XCTAssertEqual(seen, 3, "worker threads at nice 7")
    }
}
