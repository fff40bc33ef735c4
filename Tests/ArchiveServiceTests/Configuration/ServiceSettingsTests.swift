import Logging
import XCTest

@testable import ArchiveServer

final class ServiceSettingsTests: XCTestCase {
    /// The command line, as `archive-service` would have parsed it.
    private struct Arguments: ServiceArguments {
        var host: String?
        var port: Int?
        var workers: Int?
        var eventLoops: Int?
        var stackSize: String?
        var queueLimit: Int?
        var maxBodySize: String?
        var maxParts: Int?
        var maxPartSize: String?
        var timeout: Int?
        var headerTimeout: Int?
        var memoryBudget: String?
        var maxConnections: Int?
        var drainTimeout: Int?
        var conversionTimeout: String?
        var workerNice: Int?
        var logLevel: String?
        var logFormat: String?
    }

    private func settings(_ arguments: Arguments = Arguments(), _ environment: [String: String] = [:]) throws(ConfigurationError) -> ServiceSettings {
        try ServiceSettings(arguments: arguments, environment: ProcessEnvironment(environment))
    }

    private func refusal(_ arguments: Arguments = Arguments(), _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try settings(arguments, environment)
            return nil
        } catch {
            return error.message
        }
    }

    func testNothingGivenIsTheDefaultConfiguration() throws {
        let settings = try settings()
        XCTAssertEqual(settings.configuration, ServerConfiguration())
        XCTAssertEqual(settings.logLevel, .info)
        XCTAssertEqual(settings.logFormat, .logfmt)
    }

    func testEveryVariableReachesItsSetting() throws {
        let settings = try settings(
            Arguments(),
            [
                "HOST": "127.0.0.1", "PORT": "9000", "WORKERS": "3", "EVENT_LOOPS": "2", "STACK_SIZE": "512K",
                "QUEUE_LIMIT": "7", "MAX_BODY_SIZE": "1M", "MAX_PARTS": "12", "MAX_PART_SIZE": "512K", "TIMEOUT": "11", "HEADER_TIMEOUT": "4",
                "MEMORY_BUDGET": "64M", "MAX_CONNECTIONS": "99", "DRAIN_TIMEOUT": "5", "CONVERSION_TIMEOUT": "2.5", "WORKER_NICE": "3",
                "LOG_LEVEL": "WARNING", "LOG_FORMAT": "json"
            ])
        var expected = ServerConfiguration()
        expected.host = "127.0.0.1"
        expected.port = 9000
        expected.workers = 3
        expected.eventLoops = 2
        expected.stackSize = 512 << 10
        expected.queueLimit = 7
        expected.maxBodySize = 1 << 20
        expected.maxParts = 12
        expected.maxPartSize = 512 << 10
        expected.timeout = 11
        expected.headerTimeout = 4
        expected.memoryBudget = 64 << 20
        expected.maxConnections = 99
        expected.drainTimeout = 5
        expected.conversionTimeout = 2.5
        expected.workerNice = 3
        XCTAssertEqual(settings.configuration, expected)
        XCTAssertEqual(settings.logLevel, .warning)
        XCTAssertEqual(settings.logFormat, .json)
    }

    func testAFlagWinsOverItsVariable() throws {
        var arguments = Arguments()
        arguments.port = 7000
        arguments.stackSize = "1M"
        arguments.memoryBudget = "32M"
        arguments.logLevel = "error"
        let settings = try settings(arguments, ["PORT": "9000", "STACK_SIZE": "512K", "MEMORY_BUDGET": "bad", "LOG_LEVEL": "debug"])
        XCTAssertEqual(settings.configuration.port, 7000)
        XCTAssertEqual(settings.configuration.stackSize, 1 << 20)
        XCTAssertEqual(settings.configuration.memoryBudget, 32 << 20)
        XCTAssertEqual(settings.logLevel, .error)
    }

    func testAnEmptyVariableIsUnsetAndSpacesAroundANumberAreIgnored() throws {
        let settings = try settings(Arguments(), ["PORT": "", "WORKERS": " 2 ", "MAX_CONNECTIONS": ""])
        XCTAssertEqual(settings.configuration.port, 8080)
        XCTAssertEqual(settings.configuration.workers, 2)
        XCTAssertNil(settings.configuration.maxConnections)
    }

    func testAnUnreadableValueNamesWhereItCameFrom() {
        XCTAssertEqual(refusal(Arguments(), ["PORT": "80a"]), "PORT must be an integer, got \"80a\"")
        XCTAssertEqual(refusal(Arguments(), ["STACK_SIZE": "8X"]), "STACK_SIZE must be a byte count such as 524288, 512K or 64M, got \"8X\"")
        var arguments = Arguments()
        arguments.maxBodySize = "lots"
        XCTAssertEqual(refusal(arguments), "--max-body-size must be a byte count such as 524288, 512K or 64M, got \"lots\"")
        arguments.maxBodySize = nil
        arguments.maxPartSize = "big"
        XCTAssertEqual(refusal(arguments, ["MAX_PART_SIZE": "1M"]), "--max-part-size must be a byte count such as 524288, 512K or 64M, got \"big\"")
        XCTAssertEqual(refusal(Arguments(), ["MAX_PARTS": "many"]), "MAX_PARTS must be an integer, got \"many\"")
        XCTAssertEqual(refusal(Arguments(), ["LOG_LEVEL": "loud"]), "log level must be one of trace, debug, info, notice, warning, error, critical; got loud")
        XCTAssertEqual(refusal(Arguments(), ["LOG_FORMAT": "xml"]), "log format must be logfmt or json; got xml")
    }

    func testTheConversionTimeoutIsSecondsWithAnOptionalFraction() throws {
        var arguments = Arguments()
        arguments.conversionTimeout = "0.25"
        XCTAssertEqual(try settings(arguments, ["CONVERSION_TIMEOUT": "9"]).configuration.conversionTimeout, 0.25)
        XCTAssertEqual(try settings(Arguments(), ["CONVERSION_TIMEOUT": " 45 "]).configuration.conversionTimeout, 45)
        XCTAssertEqual(try settings().configuration.conversionTimeout, 30)
        for bad in ["1e3", "-1", ".5", "5.", "inf", "nan", "1,5", "0x10", "1.2.3"] {
            XCTAssertEqual(
                refusal(Arguments(), ["CONVERSION_TIMEOUT": bad]), "CONVERSION_TIMEOUT must be a number of seconds such as 30 or 2.5, got \"\(bad)\"", bad)
        }
        XCTAssertEqual(refusal(Arguments(), ["CONVERSION_TIMEOUT": "0"]), "conversion timeout must be between 0.01 and 86400 seconds, got 0.0")
        XCTAssertEqual(refusal(Arguments(), ["CONVERSION_TIMEOUT": "90000"]), "conversion timeout must be between 0.01 and 86400 seconds, got 90000.0")
        XCTAssertEqual(refusal(Arguments(), ["WORKER_NICE": "20"]), "worker nice must be between 0 and 19, got 20")
        var stuck = ServerConfiguration()
        stuck.conversionTimeout = 30
        XCTAssertEqual(stuck.stuckWorkerSeconds, 10)
        stuck.conversionTimeout = 0.5
        XCTAssertEqual(stuck.stuckWorkerSeconds, 1)
        stuck.conversionTimeout = 6
        XCTAssertEqual(stuck.stuckWorkerSeconds, 2)
    }

    func testTheResultIsValidated() {
        XCTAssertEqual(refusal(Arguments(), ["PORT": "70000"]), "port must be between 0 and 65535, got 70000")
        var arguments = Arguments()
        arguments.stackSize = "4K"
        XCTAssertEqual(refusal(arguments)?.hasPrefix("stack size must be at least"), true)
    }

    func testTheProcessEnvironmentIsReadLive() {
        setenv("ARCHIVE_SERVICE_SETTINGS_TEST", "value", 1)
        defer { unsetenv("ARCHIVE_SERVICE_SETTINGS_TEST") }
        XCTAssertEqual(ProcessEnvironment()["ARCHIVE_SERVICE_SETTINGS_TEST"], "value")
        setenv("ARCHIVE_SERVICE_SETTINGS_TEST", "", 1)
        XCTAssertNil(ProcessEnvironment()["ARCHIVE_SERVICE_SETTINGS_TEST"])
    }
}
