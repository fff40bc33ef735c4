import ArchiveServer
import TestSupport
import XCTest

/// A full pool answers 503 with Retry-After at once, while the probes keep answering on the loop.
final class SaturationTests: XCTestCase {
    func testFullQueueGets503WithRetryAfterWhileHealthzStays200() throws {
        let gate = Gate()
        let server = try TestServer(hooks: ServerHooks(beforeConversion: { gate.wait() })) {
            $0.workers = 1
            $0.queueLimit = 1
        }
        defer { server.stop() }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let port = server.port

        let running = Background { try TestHTTPClient.post(port, "/v1/decode", archive) }
        XCTAssertTrue(gate.waitForArrivals(1), "the first job never reached a worker")
        let queued = Background { try TestHTTPClient.post(port, "/v1/decode", archive) }
        XCTAssertTrue(try server.waitForMetric("archive_queue_depth", 1), "the second job was not queued")

        let rejected = try server.post("/v1/decode", archive)
        XCTAssertEqual(rejected.status, 503, rejected.text)
        XCTAssertEqual(rejected.header("Retry-After"), "1")
        XCTAssertEqual(rejected.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(rejected.jsonObject?["type"] as? String, "urn:archive-service:problem:overloaded")
        let rejectedEncode = try server.post("/v1/encode", Array("{}".utf8))
        XCTAssertEqual(rejectedEncode.status, 503)

        for _ in 0..<20 {
            let health = try server.get("/healthz")
            XCTAssertEqual(health.status, 200)
        }
        let ready = try server.get("/readyz")
        XCTAssertEqual(ready.status, 503)
        XCTAssertEqual(ready.jsonObject?["type"] as? String, "urn:archive-service:problem:not-ready")
        let metrics = try server.get("/metrics").text
        XCTAssertEqual(TestServer.metricValue("archive_workers_busy", in: metrics), 1)
        XCTAssertEqual(TestServer.metricValue("archive_queue_depth", in: metrics), 1)
        XCTAssertTrue(metrics.contains("archive_rejections_total{reason=\"queue_full\"} 2\n"), metrics)

        gate.openGate()
        XCTAssertEqual(try running.wait()?.get().status, 200)
        XCTAssertEqual(try queued.wait()?.get().status, 200)
        XCTAssertTrue(try server.waitForMetric("archive_workers_busy", 0))
        XCTAssertEqual(try server.get("/readyz").status, 200)
        XCTAssertEqual(try server.post("/v1/decode", archive).status, 200)
    }

    func testZeroQueueLimitAcceptsOnlyWhatIdleWorkersCanTake() throws {
        let gate = Gate()
        let server = try TestServer(hooks: ServerHooks(beforeConversion: { gate.wait() })) {
            $0.workers = 2
            $0.queueLimit = 0
        }
        defer { server.stop() }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        let port = server.port
        let first = Background { try TestHTTPClient.post(port, "/v1/decode", archive) }
        let second = Background { try TestHTTPClient.post(port, "/v1/decode", archive) }
        XCTAssertTrue(gate.waitForArrivals(2))
        XCTAssertEqual(try server.post("/v1/decode", archive).status, 503)
        gate.openGate()
        XCTAssertEqual(try first.wait()?.get().status, 200)
        XCTAssertEqual(try second.wait()?.get().status, 200)
    }
}
