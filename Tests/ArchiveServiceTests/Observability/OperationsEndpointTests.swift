import ArchiveCodec
import Foundation
import TestSupport
import XCTest

@testable import ArchiveServer

/// What operators read from a running server: the API description, the build and the process.
final class OperationsEndpointTests: ServerTestCase {

    /// The repository's openapi.yaml.
    private func repositoryDescription() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Fixtures.repository.appendingPathComponent("openapi.yaml")))
    }

    func testServesTheRepositorysAPIDescription() throws {
        let reply = try server.get("/openapi.yaml")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.header("Content-Type"), "application/yaml")
        XCTAssertEqual(reply.body, try repositoryDescription())
        XCTAssertTrue(reply.text.contains("\n  version: \(ReleaseVersion.current)\n"), "info.version is not \(ReleaseVersion.current)")
        XCTAssertTrue(reply.text.contains("\n  /openapi.yaml:\n"), "the description does not describe itself")
        try assertServesCompressedAndHead("/openapi.yaml", body: reply.body)
        XCTAssertEqual(try TestHTTPClient.request(port: server.port, method: "POST", path: "/openapi.yaml", body: [1]).status, 405)
    }

    private func value(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    func testBuildAndProcessMetrics() throws {
        let text = try server.get("/metrics").text
        let build = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("archive_build_info{") }, text)
        XCTAssertTrue(build.contains("version=\"\(ReleaseVersion.current)\""), String(build))
        XCTAssertTrue(build.contains("libevent=\"2.") && build.contains("zlib=\"1."), String(build))
        XCTAssertTrue(build.hasSuffix("} 1"))
        // One prefix for the service's own metrics, the client libraries' names for the process's.
        let names = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        XCTAssertFalse(names.isEmpty, text)
        for name in names {
            XCTAssertTrue(name.hasPrefix("archive_") || name.hasPrefix("process_"), String(name))
            XCTAssertFalse(name.hasPrefix("archive_service_"), String(name))
        }
        XCTAssertGreaterThan(try XCTUnwrap(value("process_cpu_seconds_total", in: text)), 0)
        XCTAssertTrue(text.contains("# TYPE process_cpu_seconds_total counter"))
        #if os(Linux)
        let resident = try XCTUnwrap(value("process_resident_memory_bytes", in: text))
        XCTAssertGreaterThan(resident, 1_048_576)
        XCTAssertGreaterThan(try XCTUnwrap(value("process_virtual_memory_bytes", in: text)), resident)
        // The test process: its standard streams, the listeners, the loops' and pool's descriptors.
        let open = try XCTUnwrap(value("process_open_fds", in: text))
        XCTAssertGreaterThan(open, 3)
        // A connection held open shows up in the next scrape.
        let fd = try TestHTTPClient.connect(port: server.port, timeoutSeconds: 5)
        defer { close(fd) }
        var grew = false
        for _ in 0..<50 where !grew {
            grew = try XCTUnwrap(value("process_open_fds", in: try server.get("/metrics").text)) > open
            if !grew { usleep(20_000) }
        }
        XCTAssertTrue(grew, "an open connection did not raise process_open_fds")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(value("process_max_fds", in: text)), open)
        let started = try XCTUnwrap(value("process_start_time_seconds", in: text))
        let now = Date().timeIntervalSince1970
        XCTAssertLessThanOrEqual(started, now + 1)
        XCTAssertGreaterThan(started, now - 86_400, "the test process started more than a day ago?")
        #endif
    }
}
