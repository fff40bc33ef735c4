@testable import ArchiveServer
import Logging
import ArchiveCodec
import Foundation
import XCTest

final class ConfigurationTests: XCTestCase {
    func testByteSizes() {
        XCTAssertEqual(ServerConfiguration.parseByteSize("524288"), 524_288)
        XCTAssertEqual(ServerConfiguration.parseByteSize("512K"), 512 << 10)
        XCTAssertEqual(ServerConfiguration.parseByteSize("512k"), 512 << 10)
        XCTAssertEqual(ServerConfiguration.parseByteSize("64M"), 64 << 20)
        XCTAssertEqual(ServerConfiguration.parseByteSize("8MiB"), 8 << 20)
        XCTAssertEqual(ServerConfiguration.parseByteSize("1G"), 1 << 30)
        XCTAssertEqual(ServerConfiguration.parseByteSize(" 2m "), 2 << 20)
        XCTAssertEqual(ServerConfiguration.parseByteSize("100B"), 100)
        for bad in ["", "K", "-1", "1.5M", "12X", "M12", "99999999999999999999G", "0x100"] {
            XCTAssertNil(ServerConfiguration.parseByteSize(bad), bad)
        }
    }

    func testDefaultsServeOn8080AndValidate() throws {
        let configuration = ServerConfiguration()
        XCTAssertEqual(configuration.port, 8080)
        XCTAssertEqual(configuration.host, "0.0.0.0")
        XCTAssertEqual(configuration.workers, ServerConfiguration.onlineCores)
        XCTAssertNoThrow(try configuration.validate())
        XCTAssertGreaterThan(configuration.depthLimit, 1_000)
    }

    func testValidationRefusesUnsafeOrAbsurdValues() {
        func refuses(_ change: (inout ServerConfiguration) -> Void, _ fragment: String, line: UInt = #line) {
            var configuration = ServerConfiguration()
            change(&configuration)
            XCTAssertThrowsError(try configuration.validate(), line: line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(error)", line: line)
            }
        }
        refuses({ $0.stackSize = StackBudget.minimumStackSize - 1 }, "stack size")
        refuses({ $0.stackSize = 2 << 30 }, "stack size")
        refuses({ $0.port = 70_000 }, "port")
        refuses({ $0.workers = 0 }, "workers")
        refuses({ $0.eventLoops = 0 }, "event loops")
        refuses({ $0.queueLimit = -1 }, "queue limit")
        refuses({ $0.maxBodySize = 0 }, "max body size")
        refuses({ $0.timeout = 0 }, "timeout")
        refuses({ $0.host = "" }, "host")
        var minimum = ServerConfiguration()
        minimum.stackSize = StackBudget.minimumStackSize
        XCTAssertNoThrow(try minimum.validate())
    }

    func testServerRefusesInvalidConfigurationAndUnusableHost() throws {
        var configuration = ServerConfiguration()
        configuration.stackSize = 1024
        XCTAssertThrowsError(try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "t")))
        configuration = ServerConfiguration()
        configuration.host = "no-such-host.invalid"
        configuration.port = 0
        let server = try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "t"))
        XCTAssertThrowsError(try server.start())
    }
}

final class RoutingTests: XCTestCase {
    func testRoutesAndMethods() {
        XCTAssertEqual(Route(path: "/v1/decode"), .decode)
        XCTAssertEqual(Route(path: "/v1/encode"), .encode)
        XCTAssertNil(Route(path: "/v1/decode/"))
        XCTAssertNil(Route(path: "/V1/DECODE"))
        XCTAssertEqual(Route.decode.allowHeader, "POST")
        XCTAssertEqual(Route.healthz.allowHeader, "GET, HEAD")
    }

    func testQueryParameters() {
        let query = QueryParameters("view=raw&pretty=1&name=a%20b+c&empty&x=%zz")
        XCTAssertEqual(query["view"], "raw")
        XCTAssertEqual(query["pretty"], "1")
        XCTAssertEqual(query["name"], "a b c")
        XCTAssertEqual(query["empty"], "")
        XCTAssertEqual(query["x"], "%zz")
        XCTAssertNil(query["missing"])
        XCTAssertNil(QueryParameters(nil)["view"])
    }

    func testJSONMediaTypes() {
        for yes in ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/problem+json", "text/json", " application/json "] {
            XCTAssertTrue(isJSONMediaType(yes), yes)
        }
        for no in ["text/plain", "application/xml", "application/x-bplist", "application/jsonx", "", "json"] {
            XCTAssertFalse(isJSONMediaType(no), no)
        }
    }

    func testProblemDocumentIsValidJSONWithEscapes() throws {
        var problem = Problem.tooDeep(depth: 900, limit: 128, bounded: false, path: "/v1/decode")
        problem.detail = "quote \" backslash \\ newline \n tab \t bell \u{7}"
        problem.jsonPath = "$.a[\"b\"]"
        let response = problem.response()
        XCTAssertEqual(response.status, 413)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        XCTAssertEqual(object["detail"] as? String, problem.detail)
        XCTAssertEqual(object["jsonPath"] as? String, "$.a[\"b\"]")
        XCTAssertEqual(object["depth"] as? Int, 900)
        XCTAssertEqual(object["limit"] as? Int, 128)
        XCTAssertEqual(response.rejection, .tooDeep)
    }
}

final class WorkerPoolTests: XCTestCase {
    /// glibc's `pthread_getattr_np` (a GNU extension the Glibc module does not export): the attributes,
    /// stack size included, of a running thread.
    typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
    static let getattr: GetAttr = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np")!, to: GetAttr.self)

    func testThreadsGetTheConfiguredStackSize() throws {
        for requested in [StackBudget.minimumStackSize, 1 << 20, 3 << 20 + 123] {
            let pool = try WorkerPool(threadCount: 1, stackSize: requested, queueLimit: 1)
            let measured = ConcurrentResults()
            let done = DispatchSemaphore(value: 0)
            XCTAssertTrue(pool.submit {
                var attr = pthread_attr_t()
                var size = 0
                if WorkerPoolTests.getattr(pthread_self(), &attr) == 0 {
                    pthread_attr_getstacksize(&attr, &size)
                    pthread_attr_destroy(&attr)
                }
                measured.append(size)
                done.signal()
            })
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            pool.shutdown()
            let size = try XCTUnwrap(measured.values.first)
            // glibc may hand a thread a cached stack up to four times the size asked for; never a smaller one.
            XCTAssertGreaterThanOrEqual(size, requested)
            XCTAssertLessThanOrEqual(size, 4 * pool.stackSize + 4096)
        }
    }

    func testBoundedQueueRejectsWhenFullAndRunsInFIFOOrder() throws {
        let gate = Gate()
        let pool = try WorkerPool(threadCount: 1, stackSize: 256 << 10, queueLimit: 3)
        let order = ConcurrentResults()
        XCTAssertTrue(pool.submit { gate.wait() })
        XCTAssertTrue(gate.waitForArrivals(1))
        for index in 0..<3 {
            XCTAssertTrue(pool.submit { order.append(index) })
        }
        XCTAssertFalse(pool.submit { order.append(99) })
        XCTAssertEqual(pool.snapshot, WorkerPool.Snapshot(threads: 1, busy: 1, queued: 3, queueLimit: 3))
        XCTAssertFalse(pool.snapshot.hasCapacity)
        gate.openGate()
        pool.shutdown()
        XCTAssertEqual(order.values, [0, 1, 2])
        XCTAssertFalse(pool.submit {}, "a stopped pool must refuse work")
    }

    func testShutdownCanDiscardWaitingJobs() throws {
        let gate = Gate()
        let pool = try WorkerPool(threadCount: 1, stackSize: 256 << 10, queueLimit: 4)
        let ran = ConcurrentResults()
        XCTAssertTrue(pool.submit { gate.wait(); ran.append(0) })
        XCTAssertTrue(gate.waitForArrivals(1))
        XCTAssertTrue(pool.submit { ran.append(1) })
        let stopper = Background { pool.shutdown(discardPending: true) }
        usleep(50_000)
        gate.openGate()
        XCTAssertNotNil(stopper.wait())
        XCTAssertEqual(ran.values, [0])
    }
}

final class LineLogHandlerTests: XCTestCase {
    func testOneLogfmtLinePerEventWithQuotingAndSortedMetadata() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var logger = Logger(label: "archive-service") { LineLogHandler(label: $0, level: .info, fd: fds[1]) }
        logger[metadataKey: "loop"] = "1"
        logger.info("POST /v1/decode 200", metadata: ["status": "200", "path": "/v1/decode", "note": "two words"])
        logger.debug("hidden")
        logger.warning("plain")
        close(fds[1])
        let text = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, text)
        let first = String(lines[0])
        XCTAssertTrue(first.hasPrefix("ts="), first)
        XCTAssertTrue(first.contains("Z level=info logger=archive-service msg=\"POST /v1/decode 200\" loop=1 note=\"two words\" path=/v1/decode status=200"), first)
        XCTAssertTrue(lines[1].contains("level=warning logger=archive-service msg=plain"), String(lines[1]))
    }

    func testJSONLinesKeepNumbersAndShapes() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let logger = Logger(label: "archive-service") { LineLogHandler(label: $0, level: .info, format: .json, fd: fds[1]) }
        logger.info("POST /v1/decode 200", metadata: [
            "status": .stringConvertible(Int32(200)), "duration_ms": .stringConvertible(1.25),
            "bytes_out": .stringConvertible(4096), "path": "/v1/decode", "quote": "say \"hi\"\n",
            "list": ["a", .stringConvertible(2)], "nested": ["k": "v"], "nan": .stringConvertible(Double.nan),
        ])
        logger.error("failed", error: HTTPClientError(description: "boom"))
        close(fds[1])
        let text = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, text)
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], String(lines[0]))
        XCTAssertEqual(first["level"] as? String, "info")
        XCTAssertEqual(first["logger"] as? String, "archive-service")
        XCTAssertEqual(first["msg"] as? String, "POST /v1/decode 200")
        XCTAssertTrue((first["ts"] as? String ?? "").hasSuffix("Z"))
        XCTAssertEqual(first["status"] as? Int, 200)
        XCTAssertEqual(first["bytes_out"] as? Int, 4096)
        XCTAssertEqual(first["duration_ms"] as? Double, 1.25)
        XCTAssertEqual(first["path"] as? String, "/v1/decode")
        XCTAssertEqual(first["quote"] as? String, "say \"hi\"\n")
        XCTAssertEqual(first["nan"] as? String, "nan")
        XCTAssertEqual((first["list"] as? [Any])?.count, 2)
        XCTAssertEqual((first["nested"] as? [String: Any])?["k"] as? String, "v")
        let second = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        XCTAssertEqual(second["error"] as? String, "boom")
    }
}
