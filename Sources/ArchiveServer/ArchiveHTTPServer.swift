import ArchiveCodec
import HTTPCore
import HostResources
import Logging
import PThreads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ArchiveService HTTP server: `eventLoops` libevent loops in front of a `WorkerPool`.
///
/// Life cycle: `init` validates, `start()` binds and starts the worker threads and every loop but the
/// first, `run()` runs the first loop on the calling thread and returns once the server has drained
/// and released everything. `shutdown()` (or SIGTERM/SIGINT when `handleSignals` is set) starts the
/// drain: stop accepting, answer every accepted request, then exit, bounded by `drainTimeout`.
/// A second signal, or `shutdown(force: true)`, exits at once.
public final class ArchiveHTTPServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    /// Deepest archive this server decodes, in JSON nesting levels of the readable view; deeper ones get 413.
    public var depthLimit: Int { configuration.depthLimit }

    private let logger: Logger
    private let hooks: ServerHooks
    private enum State { case created, started, running, finished }
    private let stateMutex = PThreadMutex()
    private var state = State.created  // guarded by stateMutex
    private var shutdownRequested = false  // guarded by stateMutex
    private var drainPosted = false  // guarded by stateMutex
    private var context: ServerContext?
    private var loops: [EventLoop] = []
    private var loopThreads: [PThread] = []
    private var boundPort = 0

    package init(configuration: ServerConfiguration, logger: Logger, hooks: ServerHooks = ServerHooks()) throws {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        self.hooks = hooks
    }

    /// A server started but never run still owns threads and sockets: stop and free them.
    deinit {
        guard state == .started else { return }
        for loop in loops.dropFirst() { loop.post(.exitNow) }
        for thread in loopThreads { thread.join() }
        context?.pool.shutdown(discardPending: true)
        for loop in loops { loop.teardown() }
    }

    /// Raises the soft descriptor limit to the hard one (`ConnectionLimit.raiseDescriptorLimit`).
    /// Once per process, before a configuration's connection limit is read.
    public static func raiseDescriptorLimit() {
        ConnectionLimit.raiseDescriptorLimit()
    }

    /// The port bound by `start()`.
    public var port: Int { stateMutex.withLock { boundPort } }

    /// Binds the listening sockets and starts the workers and the extra event loops.
    /// Returns the bound port (useful with port 0). Call once.
    @discardableResult
    public func start() throws -> Int {
        try stateMutex.withLock {
            guard state == .created else { throw ServerError("start() called twice") }
            guard EventLoop.threadsEnabled else { throw ServerError("evthread_use_pthreads failed") }
            // A client closing early must cost an EPIPE on write, not the process.
            signal(SIGPIPE, SIG_IGN)

            let pool = try WorkerPool(
                threadCount: configuration.workers, stackSize: configuration.stackSize,
                queueLimit: configuration.queueLimit, nice: configuration.workerNice)
            let context = ServerContext(configuration: configuration, pool: pool, logger: logger, hooks: hooks)
            let application = ArchiveApplication(context: context)
            let settings = application.loopSettings
            var loops: [EventLoop] = []
            do {
                var port = configuration.port
                do throws(LoopError) {
                    for index in 0..<configuration.eventLoops {
                        let loop = try EventLoop(index: index, settings: settings, application: application)
                        loops.append(loop)
                        port = try loop.listen(host: configuration.host, port: port, reusePort: configuration.eventLoops > 1, isFirst: index == 0)
                    }
                    boundPort = port
                    if configuration.handleSignals {
                        loops[0].onSignal = { [weak self] signal in self?.signalReceived(signal) }
                        try loops[0].handleSignals()
                    }
                } catch {
                    throw Self.serverError(error)
                }
                for loop in loops.dropFirst() {
                    loopThreads.append(try Self.spawn(loop))
                }
            } catch {
                stopSpawnedLoops(loops)
                pool.shutdown(discardPending: true)
                for loop in loops { loop.teardown() }
                loopThreads.removeAll()
                throw error
            }
            self.context = context
            self.loops = loops
            state = .started
            return boundPort
        }
    }

    /// Runs the first event loop on the calling thread until the server has shut down, then joins
    /// every thread and frees every libevent object. Returns normally after a drain.
    public func run() {
        let shouldDrain: Bool = stateMutex.withLock {
            precondition(state == .started, "run() requires a successful start() and may run once")
            state = .running
            return shutdownRequested
        }
        logger.info(
            "listening",
            metadata: [
                "version": .string(ReleaseVersion.current), "host": .string(configuration.host), "port": .stringConvertible(port),
                "workers": .stringConvertible(configuration.workers), "event_loops": .stringConvertible(configuration.eventLoops),
                "cpus": .stringConvertible(UsableCPUs.current.count), "cpus_from": .string(UsableCPUs.current.source),
                "stack_size": .stringConvertible(configuration.stackSize), "depth_limit": .stringConvertible(depthLimit)
            ])
        if shouldDrain { postDrain(force: false) }
        loops[0].run()
        for thread in loopThreads { thread.join() }
        // Clients of requests abandoned by a drain timeout are told now, not after their job ends.
        for loop in loops { loop.closeConnections() }
        // Jobs still running finish and post to mailboxes that still exist; jobs never started are dropped.
        context?.pool.shutdown(discardPending: true)
        for loop in loops { loop.teardown() }
        stateMutex.withLock {
            loopThreads.removeAll()
            state = .finished
        }
        logger.info("stopped")
    }

    /// Starts a graceful shutdown (or, with `force`, an immediate one). Safe from any thread, any
    /// number of times; before `run()` it takes effect as soon as `run()` starts.
    public func shutdown(force: Bool = false) {
        let running: Bool = stateMutex.withLock {
            shutdownRequested = true
            return state == .running
        }
        if running { postDrain(force: force) }
    }

    private func signalReceived(_ signal: Int32) {
        let second = stateMutex.withLock { drainPosted }
        logger.notice(second ? "second signal \(signal): exiting now" : "signal \(signal): draining")
        shutdown(force: second)
    }

    private func postDrain(force: Bool) {
        let first: Bool = stateMutex.withLock {
            defer { drainPosted = true }
            return !drainPosted
        }
        guard let context else { return }
        if force {
            for loop in loops { loop.post(.exitNow) }
            return
        }
        guard first, context.markDraining() else { return }
        let deadline = monotonicNanoseconds() + UInt64(configuration.drainTimeout) * 1_000_000_000
        for loop in loops { loop.post(.drain(deadline: deadline)) }
    }

    /// `error` in the service's words: a taken address names the likely culprit and the option.
    private static func serverError(_ error: LoopError) -> ServerError {
        guard let (host, port) = error.addressInUse else { return ServerError(error.message) }
        return ServerError("\(host):\(port) is already in use by another process (an archive-service still running?); stop it, or choose another --port")
    }

    private static func spawn(_ loop: EventLoop) throws(ServerError) -> PThread {
        do {
            // `archive-loop-1` on, as `top -H`, gdb and perf show it.
            return try PThread.start(name: "archive-loop-\(loop.index + 1)") { loop.run() }
        } catch {
            throw ServerError("event loop \(loop.index): \(error)")
        }
    }

    /// Start-up failed after some loop threads were spawned: stop them and wait for them.
    private func stopSpawnedLoops(_ loops: [EventLoop]) {
        for (offset, thread) in loopThreads.enumerated() {
            loops[offset + 1].post(.exitNow)
            thread.join()
        }
    }
}
