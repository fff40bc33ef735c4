import ArchiveCodec
import ArchiveServer
import Foundation
import TestSupport
import XCTest

/// The `archive-service` executable itself: flags, environment, start-up log, SIGTERM.
final class ProcessTests: XCTestCase {
    private func executable() throws -> URL {
        let built = builtExecutable("archive-service")
        guard built.exists else { throw MissingTool.error("archive-service is not built next to the tests (\(built.url.path)); run `swift build` first") }
        return built.url
    }

    /// A started process whose standard output is collected line by line.
    private final class Service: @unchecked Sendable {
        let process = Process()
        private let lock = NSCondition()
        private var output = ""

        init(_ url: URL, arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = url
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            for name in ["HOST", "PORT", "WORKERS", "EVENT_LOOPS", "STACK_SIZE", "QUEUE_LIMIT", "MAX_BODY_SIZE", "MAX_PARTS", "MAX_PART_SIZE", "TIMEOUT", "DRAIN_TIMEOUT", "LOG_LEVEL", "LOG_FORMAT"] {
                env.removeValue(forKey: name)
            }
            env.merge(environment) { $1 }
            process.environment = env
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.lock()
                self.output += String(decoding: data, as: UTF8.self)
                self.lock.broadcast()
                self.lock.unlock()
            }
            try process.run()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return output
        }

        /// Waits for a line containing `needle` and returns it.
        func waitForLine(containing needle: String, seconds: Double = 20) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            lock.lock()
            defer { lock.unlock() }
            while true {
                if let line = output.split(separator: "\n").first(where: { $0.contains(needle) }) { return String(line) }
                if !lock.wait(until: deadline) { return nil }
            }
        }

        func port() -> Int? {
            guard let line = waitForLine(containing: "listening"),
                let range = line.range(of: "port=")
            else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }

        func waitForExit(seconds: Double) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning {
                if Date() > deadline { return nil }
                usleep(10_000)
            }
            return process.terminationStatus
        }

        deinit {
            if process.isRunning {
                process.interrupt()
                process.terminate()
            }
        }
    }

    func testHelpListsEveryOption() throws {
        let service = try Service(try executable(), arguments: ["--help"])
        XCTAssertEqual(service.waitForExit(seconds: 20), 0)
        for option in [
            "--host", "--port", "--workers", "--stack-size", "--queue-limit", "--max-body-size", "--max-parts", "--max-part-size", "--timeout", "--log-level",
            "--log-format", "--version"
        ] {
            // Waited for, not read once: the pipe can deliver the last lines after the exit.
            XCTAssertNotNil(service.waitForLine(containing: option), "\(option) missing from --help")
        }
    }

    func testVersionIsTheServiceVersion() throws {
        let service = try Service(try executable(), arguments: ["--version"])
        XCTAssertEqual(service.waitForExit(seconds: 20), 0)
        XCTAssertNotNil(service.waitForLine(containing: ReleaseVersion.current), service.text)
        XCTAssertEqual(service.text.trimmingCharacters(in: .whitespacesAndNewlines), ReleaseVersion.current)
    }

    /// --log-format json: every line one JSON object, numbers as numbers; any other format is
    /// refused at start-up.
    func testJSONLogLines() throws {
        let service = try Service(try executable(), arguments: ["--port", "0", "--host", "127.0.0.1", "--log-format", "json"])
        let listening = try XCTUnwrap(service.waitForLine(containing: "\"listening\""), service.text)
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: Any])
        XCTAssertEqual(fields["version"] as? String, ReleaseVersion.current)
        let port = try XCTUnwrap(fields["port"] as? Int, listening)
        XCTAssertEqual(try TestHTTPClient.post(port, "/v1/decode", Array("nonsense".utf8)).status, 400)
        let access = try XCTUnwrap(service.waitForLine(containing: "POST /v1/decode 400"), service.text)
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(access.utf8)) as? [String: Any], access)
        XCTAssertEqual(line["status"] as? Int, 400)
        XCTAssertEqual(line["problem"] as? String, "malformed-plist")
        XCTAssertNotNil(line["duration_ms"] as? Double)
        service.process.terminate()
        XCTAssertEqual(service.waitForExit(seconds: 20), 0, service.text)
        for line in service.text.split(separator: "\n") {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
        let refused = try Service(try executable(), arguments: ["--port", "0"], environment: ["LOG_FORMAT": "xml"])
        XCTAssertNotEqual(refused.waitForExit(seconds: 20), 0)
        XCTAssertNotNil(refused.waitForLine(containing: "logfmt or json"), refused.text)
    }

    func testInvalidStackSizeIsRefusedAtStartUp() throws {
        let service = try Service(try executable(), arguments: ["--stack-size", "1K", "--port", "0"])
        XCTAssertNotEqual(service.waitForExit(seconds: 20), 0)
        XCTAssertNotNil(service.waitForLine(containing: "stack size"), service.text)
        let garbage = try Service(try executable(), arguments: ["--port", "0"], environment: ["STACK_SIZE": "lots"])
        XCTAssertNotEqual(garbage.waitForExit(seconds: 20), 0)
        XCTAssertNotNil(garbage.waitForLine(containing: "STACK_SIZE"), garbage.text)
    }

    func testEnvironmentConfiguresAndFlagsWin() throws {
        let fromEnv = try Service(try executable(), arguments: [], environment: ["PORT": "0", "HOST": "127.0.0.1", "STACK_SIZE": "256K"])
        let envLimit = StackBudget.maxDepth(stackSize: 256 << 10)
        XCTAssertNotNil(fromEnv.waitForLine(containing: "depth limit \(envLimit) levels for a 262144-byte worker stack"), fromEnv.text)
        let port = try XCTUnwrap(fromEnv.port(), fromEnv.text)
        XCTAssertEqual(try TestHTTPClient.get(port, "/healthz").status, 200)
        fromEnv.process.terminate()
        XCTAssertEqual(fromEnv.waitForExit(seconds: 20), 0, fromEnv.text)

        let flagged = try Service(
            try executable(), arguments: ["--stack-size", "512K", "--port", "0", "--host", "127.0.0.1"],
            environment: ["STACK_SIZE": "256K", "PORT": "1"])
        let flagLimit = StackBudget.maxDepth(stackSize: 512 << 10)
        XCTAssertNotNil(flagged.waitForLine(containing: "depth limit \(flagLimit) levels for a 524288-byte worker stack"), flagged.text)
        XCTAssertNotNil(flagged.port(), flagged.text)
        flagged.process.terminate()
        XCTAssertEqual(flagged.waitForExit(seconds: 20), 0, flagged.text)
    }

    /// SIGHUP, SIGUSR1, SIGUSR2 and SIGALRM are logged and ignored: the service still answers.
    func testStraySignalsAreLoggedAndIgnored() throws {
        let service = try Service(try executable(), arguments: ["--port", "0", "--host", "127.0.0.1", "--workers", "1"])
        let port = try XCTUnwrap(service.port(), service.text)
        for signal in [SIGHUP, SIGUSR1, SIGUSR2, SIGALRM] {
            kill(service.process.processIdentifier, signal)
            XCTAssertNotNil(service.waitForLine(containing: "signal \(signal) ignored"), service.text)
            XCTAssertEqual(try TestHTTPClient.get(port, "/healthz").status, 200, "after signal \(signal)")
        }
        XCTAssertTrue(service.process.isRunning)
        kill(service.process.processIdentifier, SIGTERM)
        XCTAssertEqual(service.waitForExit(seconds: 20), 0, service.text)
    }

    /// SIGTERM while clients are sending conversions: every request the server took is answered in
    /// full, later ones are refused at connect, and the process exits 0.
    func testSIGTERMDrainsAndExitsZero() throws {
        let service = try Service(try executable(), arguments: ["--port", "0", "--host", "127.0.0.1", "--workers", "1", "--stack-size", "8M"])
        let port = try XCTUnwrap(service.port(), service.text)
        // As deep as comfortably fits, so each conversion takes a while and several are in flight.
        let archive = TestArchives.linkedList(count: max(1, StackBudget.maxDepth(stackSize: 8 << 20) / 2))
        let clients = (0..<16).map { _ in Background { try TestHTTPClient.post(port, "/v1/decode", archive) } }
        usleep(20_000)
        kill(service.process.processIdentifier, SIGTERM)
        XCTAssertEqual(service.waitForExit(seconds: 30), 0, service.text)
        var answered = 0
        for client in clients {
            switch client.wait() {
            case .success(let reply)?:
                XCTAssertEqual(reply.status, 200, reply.text)
                answered += 1
            case .failure(let error)?:
                XCTAssertTrue("\(error)".contains("connect"), "a taken request was cut off: \(error)")
            case nil:
                XCTFail("a client hung")
            }
        }
        XCTAssertGreaterThan(answered, 0)
    }
}
