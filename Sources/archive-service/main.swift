import ArchiveServer
import ArgumentParser
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every option may also come from an environment variable (for containers); a flag wins over its
/// variable, and a variable over the default.
@main
struct ArchiveServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-service",
        abstract: "HTTP service converting NSKeyedArchiver archives to JSON and back.",
        discussion: """
            Endpoints: POST /v1/decode, POST /v1/encode, GET /healthz, GET /readyz, GET /metrics,
            GET /openapi.yaml (this API's description).
            Each option can also be set with the environment variable shown in brackets.
            The deepest archive accepted follows from --stack-size (logged at start-up).
            SIGTERM or SIGINT drains in-flight requests and exits 0; a second signal exits at once.
            """,
        version: ServiceVersion.current
    )

    @Option(help: "Address to listen on. [HOST] (default: 0.0.0.0)")
    var host: String?

    @Option(help: "TCP port; 0 picks a free one. [PORT] (default: 8080)")
    var port: Int?

    @Option(help: "Worker threads converting requests. [WORKERS] (default: number of cores)")
    var workers: Int?

    @Option(name: .customLong("event-loops"), help: "HTTP event-loop threads sharing the port. [EVENT_LOOPS] (default: cores, at most 4)")
    var eventLoops: Int?

    @Option(name: .customLong("stack-size"), help: "Stack of each worker thread: bytes, or with a K/M/G suffix. [STACK_SIZE] (default: 8M)")
    var stackSize: String?

    @Option(name: .customLong("queue-limit"), help: "Requests that may wait for a worker before 503. [QUEUE_LIMIT] (default: 64)")
    var queueLimit: Int?

    @Option(name: .customLong("max-body-size"), help: "Largest request body, with optional K/M/G suffix. [MAX_BODY_SIZE] (default: 64M)")
    var maxBodySize: String?

    @Option(help: "Seconds a connection may idle between requests; a body or reply of n bytes gets this plus n at 256 KiB/s. [TIMEOUT] (default: 30)")
    var timeout: Int?

    @Option(name: .customLong("header-timeout"), help: "Seconds the request line and headers may take, all of them. [HEADER_TIMEOUT] (default: 10)")
    var headerTimeout: Int?

    @Option(name: .customLong("memory-budget"), help: "Bytes that bodies, conversions and unsent replies may hold at once, with optional K/M/G suffix. [MEMORY_BUDGET] (default: 3/4 of the container's memory limit, or of half the machine's memory)")
    var memoryBudget: String?

    @Option(name: .customLong("max-connections"), help: "Open client connections at most. [MAX_CONNECTIONS] (default: 1024, fewer if the descriptor limit is lower)")
    var maxConnections: Int?

    @Option(name: .customLong("drain-timeout"), help: "Seconds a shutdown waits for in-flight requests. [DRAIN_TIMEOUT] (default: 20)")
    var drainTimeout: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. [LOG_LEVEL] (default: info)")
    var logLevel: String?

    @Option(name: .customLong("log-format"), help: "logfmt (key=value) or json (one object per line). [LOG_FORMAT] (default: logfmt)")
    var logFormat: String?

    func run() throws {
        let environment = ProcessInfoEnvironment()
        var config = ServerConfiguration()
        config.handleSignals = true
        if let value = host ?? environment["HOST"] { config.host = value }
        config.port = try integer(port, "PORT", default: config.port)
        config.workers = try integer(workers, "WORKERS", default: config.workers)
        config.eventLoops = try integer(eventLoops, "EVENT_LOOPS", default: config.eventLoops)
        config.queueLimit = try integer(queueLimit, "QUEUE_LIMIT", default: config.queueLimit)
        config.timeout = try integer(timeout, "TIMEOUT", default: config.timeout)
        config.headerTimeout = try integer(headerTimeout, "HEADER_TIMEOUT", default: config.headerTimeout)
        if memoryBudget != nil || environment["MEMORY_BUDGET"] != nil {
            config.memoryBudget = try byteSize(memoryBudget, "MEMORY_BUDGET", option: "--memory-budget", default: 0)
        }
        if maxConnections != nil || environment["MAX_CONNECTIONS"] != nil {
            config.maxConnections = try integer(maxConnections, "MAX_CONNECTIONS", default: 0)
        }
        config.drainTimeout = try integer(drainTimeout, "DRAIN_TIMEOUT", default: config.drainTimeout)
        config.stackSize = try byteSize(stackSize, "STACK_SIZE", option: "--stack-size", default: config.stackSize)
        config.maxBodySize = try byteSize(maxBodySize, "MAX_BODY_SIZE", option: "--max-body-size", default: config.maxBodySize)

        let levelText = (logLevel ?? environment["LOG_LEVEL"] ?? "info").lowercased()
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ValidationError("log level must be one of trace, debug, info, notice, warning, error, critical; got \(levelText)")
        }
        let formatText = (logFormat ?? environment["LOG_FORMAT"] ?? "logfmt").lowercased()
        guard let format = LineLogHandler.LogFormat(rawValue: formatText) else {
            throw ValidationError("log format must be logfmt or json; got \(formatText)")
        }
        do {
            try config.validate()
        } catch {
            throw ValidationError(error.message)
        }

        raiseDescriptorLimit()
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level, format: format) }
        var logger = Logger(label: "archive-service")
        logger.logLevel = level

        let server = try ArchiveHTTPServer(configuration: config, logger: logger)
        do {
            try server.start()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode.failure
        }
        logger.info("depth limit \(server.depthLimit) levels for a \(config.stackSize)-byte worker stack (decode; encode takes any depth)")
        logger.info("memory budget \(config.effectiveMemoryBudget) bytes, at most \(config.effectiveMaxConnections) connections")
        server.run()
    }

    /// Connections are bounded by `--max-connections`, not by the soft descriptor limit, which
    /// containers often leave at 1,024: raise it to the hard limit.
    private func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private func integer(_ flag: Int?, _ variable: String, default value: Int) throws -> Int {
        if let flag { return flag }
        guard let text = ProcessInfoEnvironment()[variable] else { return value }
        guard let parsed = Int(text.trimmingCharacters(in: " \t")) else {
            throw ValidationError("\(variable) must be an integer, got \"\(text)\"")
        }
        return parsed
    }

    private func byteSize(_ flag: String?, _ variable: String, option: String, default value: Int) throws -> Int {
        let source = flag.map { (option, $0) } ?? ProcessInfoEnvironment()[variable].map { (variable, $0) }
        guard let (name, text) = source else { return value }
        guard let parsed = ServerConfiguration.parseByteSize(text) else {
            throw ValidationError("\(name) must be a byte count such as 524288, 512K or 64M, got \"\(text)\"")
        }
        return parsed
    }
}

/// The process environment without Foundation.
struct ProcessInfoEnvironment {
    subscript(name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
