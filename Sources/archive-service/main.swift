import ArchiveCodec
import ArchiveServer
import ArgumentParser
import Logging

/// `archive-service`: the flags and their help. Every option may also come from an environment
/// variable (for containers); a flag wins over its variable, and a variable over the default
/// (`ServiceSettings`, which reads them).
@main
struct ArchiveServiceCommand: ParsableCommand, ServiceArguments {
    static let configuration = CommandConfiguration(
        commandName: "archive-service",
        abstract: "HTTP service converting Apple's archives to JSON and back.",
        discussion: """
            Reads NSKeyedArchiver archives, other property lists (binary or XML) and NSArchiver \
            typedstreams, with the archives and lists that their data values hold; writes them back \
            from the JSON. A page to browse and edit them is at /.
            Endpoints: POST /v1/decode, POST /v1/encode, GET /healthz, GET /readyz, GET /metrics,
            GET /openapi.yaml (this API's description).
            Each option can also be set with the environment variable shown in brackets.
            The deepest archive accepted follows from --stack-size (logged at start-up).
            SIGTERM or SIGINT drains in-flight requests and exits 0; a second signal exits at once.
            SIGHUP, SIGUSR1, SIGUSR2 and SIGALRM are logged and ignored.
            """,
        version: ReleaseVersion.current
    )

    @Option(help: "Address to listen on. [HOST] (default: 0.0.0.0)")
    var host: String?

    @Option(help: "TCP port; 0 picks a free one. [PORT] (default: 8080)")
    var port: Int?

    @Option(help: "Worker threads converting requests. [WORKERS] (default: the CPUs the process may use: its affinity mask, or its cgroup CPU quota rounded up when lower)")
    var workers: Int?

    @Option(name: .customLong("event-loops"), help: "HTTP event-loop threads sharing the port. [EVENT_LOOPS] (default: the CPUs the process may use, at most 4)")
    var eventLoops: Int?

    @Option(name: .customLong("stack-size"), help: "Stack of each worker thread: bytes, or with a K/M/G suffix. [STACK_SIZE] (default: 8M)")
    var stackSize: String?

    @Option(name: .customLong("queue-limit"), help: "Requests that may wait for a worker before 503. [QUEUE_LIMIT] (default: 64)")
    var queueLimit: Int?

    @Option(name: .customLong("max-body-size"), help: "Largest request body, with optional K/M/G suffix. [MAX_BODY_SIZE] (default: 64M)")
    var maxBodySize: String?

    @Option(name: .customLong("max-parts"), help: "Parts (files) one multipart/form-data decode may send. [MAX_PARTS] (default: 256)")
    var maxParts: Int?

    @Option(
        name: .customLong("max-part-size"), help: "Largest part (file) of a multipart/form-data decode, with optional K/M/G suffix. [MAX_PART_SIZE] (default: 64M)")
    var maxPartSize: String?

    @Option(help: "Seconds a connection may idle between requests; a body or reply of n bytes gets this plus n at 256 KiB/s. [TIMEOUT] (default: 30)")
    var timeout: Int?

    @Option(name: .customLong("header-timeout"), help: "Seconds the request line and headers may take, all of them. [HEADER_TIMEOUT] (default: 10)")
    var headerTimeout: Int?

    @Option(
        name: .customLong("memory-budget"),
        help:
            "Bytes that bodies, conversions and unsent replies may hold at once, with optional K/M/G suffix. [MEMORY_BUDGET] (default: 3/4 of the container's memory limit, or of half the machine's memory)"
    )
    var memoryBudget: String?

    @Option(name: .customLong("max-connections"), help: "Open client connections at most. [MAX_CONNECTIONS] (default: 1024, fewer if the descriptor limit is lower)")
    var maxConnections: Int?

    @Option(name: .customLong("drain-timeout"), help: "Seconds a shutdown waits for in-flight requests. [DRAIN_TIMEOUT] (default: 20)")
    var drainTimeout: Int?

    @Option(
        name: .customLong("conversion-timeout"),
        help: "Seconds one conversion may run on its worker before it is stopped (503 conversion-timeout); fractions allowed. [CONVERSION_TIMEOUT] (default: 30)")
    var conversionTimeout: String?

    @Option(name: .customLong("worker-nice"), help: "Niceness of the worker threads (0-19), so the event loops run first. [WORKER_NICE] (default: 5)")
    var workerNice: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. [LOG_LEVEL] (default: info)")
    var logLevel: String?

    @Option(name: .customLong("log-format"), help: "logfmt (key=value) or json (one object per line). [LOG_FORMAT] (default: logfmt)")
    var logFormat: String?

    func run() throws {
        var settings: ServiceSettings
        do {
            settings = try ServiceSettings(arguments: self)
        } catch {
            throw ValidationError(error.message)
        }
        settings.configuration.handleSignals = true
        ArchiveHTTPServer.raiseDescriptorLimit()
        // No metadata provider of the service's own; a handler is given the system's.
        LoggingSystem.bootstrap(
            { [settings] label, provider in
                LineLogHandler(label: label, level: settings.logLevel, format: settings.logFormat, metadataProvider: provider)
            }, metadataProvider: nil)
        var logger = Logger(label: "archive-service")
        logger.logLevel = settings.logLevel

        let config = settings.configuration
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
}
