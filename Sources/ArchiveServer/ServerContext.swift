import ArchiveCodec
import CZlib
import HTTPCore
import Logging
import PThreads

/// What every event loop shares: read-only settings plus the thread-safe pool and metrics.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let limits: ConversionLimits
    let pool: WorkerPool
    let metrics: Metrics
    let logger: Logger
    let accessLog: AccessLog
    let hooks: ServerHooks
    let budget: MemoryBudget
    let connections: ConnectionLimit
    private let drainState = DrainState()
    /// When the process started (`process_start_time_seconds`), read once.
    private let processStartTime = ProcessStatistics.processStartTime()
    /// The labels of `archive_build_info`.
    private let build: [(name: String, value: String)] = [
        ("version", ReleaseVersion.current),
        ("libevent", EventLoop.libeventVersion),
        ("zlib", String(cString: zlibVersion()))
    ]

    init(configuration: ServerConfiguration, pool: WorkerPool, logger: Logger, hooks: ServerHooks) {
        self.configuration = configuration
        self.limits = ConversionLimits(
            decode: configuration.decodePolicy, bodyBytes: configuration.maxBodySize, seconds: configuration.conversionTimeout, parts: configuration.maxParts,
            partBytes: configuration.maxPartSize)
        self.pool = pool
        self.metrics = Metrics()
        self.logger = logger
        self.accessLog = AccessLog(logger: logger)
        self.hooks = hooks
        self.budget = MemoryBudget(capacity: configuration.effectiveMemoryBudget)
        self.connections = ConnectionLimit(limit: configuration.effectiveMaxConnections)
    }

    var isDraining: Bool { drainState.isDraining }

    /// Marks the server draining; returns false if it already was.
    func markDraining() -> Bool { drainState.mark() }

    func renderMetrics() -> String {
        metrics.render(
            .init(
                pool: pool.snapshot, inFlight: metrics.inFlight, limits: limits,
                stackSize: configuration.stackSize, draining: isDraining,
                memory: budget.snapshot, connections: connections.count,
                connectionLimit: connections.limit,
                process: .current(startTime: processStartTime), build: build))
    }
}

private final class DrainState: @unchecked Sendable {
    private let mutex = PThreadMutex()
    private var draining = false

    var isDraining: Bool { mutex.withLock { draining } }

    func mark() -> Bool {
        mutex.withLock {
            defer { draining = true }
            return !draining
        }
    }
}
