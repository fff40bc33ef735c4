import ASCIIText
import ArchiveCodec
import HTTPCore
import HostResources

/// Everything the server can be told at start-up. Plain values: `ServiceSettings` reads them from
/// flags and environment variables; `validate()` is the single place that says what is allowed.
public struct ServerConfiguration: Sendable, Equatable {
    /// Address to listen on; a numeric IPv4/IPv6 address or a resolvable host name.
    public var host: String = "0.0.0.0"
    /// TCP port; 0 asks the kernel for a free one (`ArchiveHTTPServer.start()` returns it).
    public var port: Int = 8080
    /// Conversion threads. Default: one per CPU the process may use (`UsableCPUs`: its affinity
    /// mask, or the container's CPU quota rounded up when that is lower), not per online core.
    public var workers: Int = UsableCPUs.current.count
    /// libevent loops, each on its own thread with its own `SO_REUSEPORT` listener. They parse HTTP
    /// and answer the probes; conversions never run on them. Default: one per CPU the process may
    /// use (`UsableCPUs`), at most 4.
    public var eventLoops: Int = min(4, UsableCPUs.current.count)
    /// Stack size of every worker thread, in bytes. The depth limit is derived from it.
    public var stackSize: Int = 8 << 20
    /// Requests that may wait for a worker beyond those being worked on; one more gets 503.
    public var queueLimit: Int = 64
    /// Largest request body accepted, in bytes; larger bodies get 413 before they are buffered.
    public var maxBodySize: Int = 64 << 20
    /// Parts a `multipart/form-data` decode may send (`MultipartForm`): each part is a
    /// conversion of its own on one worker, one after the other, so this bounds how long one
    /// request holds its worker and how many lines it answers. The body's size bounds the rest.
    public var maxParts: Int = 256
    /// Largest part of a `multipart/form-data` decode, in bytes: as a body sent alone is bounded
    /// by `maxBodySize`, and the same by default, so a file sent as a form is taken as it would
    /// be alone. Lower it to keep each part's conversion (admitted on its own) small.
    public var maxPartSize: Int = 64 << 20
    /// Seconds a connection may stay idle between requests, or make no progress reading a reply.
    /// A body or a reply of n bytes must be through within this plus n at 256 KiB/s.
    public var timeout: Int = 30
    /// Seconds a request line and its headers may take to arrive, all of them (a trickle of
    /// bytes does not extend it).
    public var headerTimeout: Int = 10
    /// Bytes that bodies being received, conversions in progress and unsent replies may hold
    /// at once (`MemoryBudget`). Nil: derived from the memory the process may use
    /// (`MemoryLimit.defaultBudget`).
    public var memoryBudget: Int? = nil
    /// Open client connections at most. Nil: 1,024, or fewer when the descriptor limit is
    /// lower (`ConnectionLimit.defaultLimit`). Past it, the oldest connection that is idle or
    /// still sending its headers is closed for the new one; when none is, the new one gets 503.
    public var maxConnections: Int? = nil
    /// Seconds one conversion may run on its worker (from when the worker takes it, not while it
    /// waits in the queue) before it is stopped and answered 503 `conversion-timeout`
    /// (`ConversionDeadline`); fractions allowed.
    public var conversionTimeout: Double = 30
    /// The niceness of the worker threads (0–19, above the event loops' 0), so that under load
    /// the kernel runs the loops first: the probes, admission and replies are answered while
    /// conversions use every core.
    public var workerNice: Int = 5
    /// Seconds a graceful shutdown waits for in-flight requests before it gives up on them.
    public var drainTimeout: Int = 20
    /// Whether SIGTERM and SIGINT start a graceful shutdown. Only one server per process may own
    /// the signals (libevent delivers them to a single event base), so embedders and tests leave it off.
    public var handleSignals: Bool = false

    public init() {}

    /// Deepest archive accepted by decode: the depth the codec's recursive JSON writer may reach on
    /// a worker thread with `stackSize` bytes of stack.
    public var depthLimit: Int { decodePolicy.depthLimit }
    /// What a decode may produce on a worker's stack.
    public var decodePolicy: DecodePolicy { DecodePolicy(stackSize: stackSize) }

    /// How long every worker must have been on its current conversion for `/readyz` to say
    /// the instance is stuck (503): a third of `conversionTimeout`, at least a second and at most
    /// ten. Long enough that one large conversion per worker does not flap readiness; short
    /// enough that traffic leaves an instance whose workers are all held by slow requests well
    /// before those requests time out.
    public var stuckWorkerSeconds: Double { min(10, max(1, conversionTimeout / 3)) }

    /// The memory budget in force: `memoryBudget`, or the default derived from the machine.
    public var effectiveMemoryBudget: Int { memoryBudget ?? MemoryLimit.defaultBudget() }

    /// The connection limit in force: `maxConnections`, or the default for the descriptor limit.
    public var effectiveMaxConnections: Int { maxConnections ?? ConnectionLimit.defaultLimit(eventLoops: eventLoops) }

    /// Largest stack accepted. Beyond this the limit is no longer the stack but memory per thread.
    public static let maximumStackSize = 1 << 30

    public func validate() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        if host.isEmpty { throw fail("host must not be empty") }
        if !(0...65_535).contains(port) { throw fail("port must be between 0 and 65535, got \(port)") }
        if !(1...1_024).contains(workers) { throw fail("workers must be between 1 and 1024, got \(workers)") }
        if !(1...64).contains(eventLoops) { throw fail("event loops must be between 1 and 64, got \(eventLoops)") }
        if stackSize < StackBudget.minimumStackSize {
            throw fail("stack size must be at least \(StackBudget.minimumStackSize) bytes (the codec's minimum), got \(stackSize)")
        }
        if stackSize > Self.maximumStackSize {
            throw fail("stack size must be at most \(Self.maximumStackSize) bytes, got \(stackSize)")
        }
        if !(0...1_000_000).contains(queueLimit) { throw fail("queue limit must be between 0 and 1000000, got \(queueLimit)") }
        if !(1...Int(Int32.max)).contains(maxBodySize) { throw fail("max body size must be between 1 byte and 2 GiB - 1, got \(maxBodySize)") }
        if !(1...100_000).contains(maxParts) { throw fail("max parts must be between 1 and 100000, got \(maxParts)") }
        if !(1...Int(Int32.max)).contains(maxPartSize) { throw fail("max part size must be between 1 byte and 2 GiB - 1, got \(maxPartSize)") }
        if !(1...86_400).contains(timeout) { throw fail("timeout must be between 1 and 86400 seconds, got \(timeout)") }
        if !(1...3_600).contains(headerTimeout) { throw fail("header timeout must be between 1 and 3600 seconds, got \(headerTimeout)") }
        if let memoryBudget, memoryBudget < 16 << 20 {
            throw fail("memory budget must be at least 16 MiB, got \(memoryBudget)")
        }
        if let maxConnections, !(1...1_000_000).contains(maxConnections) {
            throw fail("max connections must be between 1 and 1000000, got \(maxConnections)")
        }
        if !(conversionTimeout >= 0.01 && conversionTimeout <= 86_400) {
            throw fail("conversion timeout must be between 0.01 and 86400 seconds, got \(conversionTimeout)")
        }
        if !(0...19).contains(workerNice) { throw fail("worker nice must be between 0 and 19, got \(workerNice)") }
        if !(0...86_400).contains(drainTimeout) { throw fail("drain timeout must be between 0 and 86400 seconds, got \(drainTimeout)") }
    }

    /// Parses a byte count: plain digits, or digits followed by K, M or G (powers of 1024), optionally
    /// with a trailing "B" or "iB" ("512K", "64M", "8MiB", "1g"). Returns nil for anything else or on overflow.
    public static func parseByteSize(_ text: String) -> Int? {
        var s = Substring(text.trimmingASCIIWhitespace().asciiLowercased())
        if s.hasSuffix("ib") { s = s.dropLast(2) } else if s.hasSuffix("b") { s = s.dropLast() }
        var multiplier = 1
        switch s.last {
        case "k": multiplier = 1 << 10
        case "m": multiplier = 1 << 20
        case "g": multiplier = 1 << 30
        default: break
        }
        if multiplier != 1 { s = s.dropLast() }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(s) else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}
