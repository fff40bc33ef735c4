import PThreads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open-connection count shared by every loop, against one limit.
package final class ConnectionLimit: @unchecked Sendable {
    package let limit: Int
    private let mutex = PThreadMutex()
    private var open = 0  // guarded by mutex

    package init(limit: Int) { self.limit = limit }

    /// Counts a new connection; returns whether the count is now over the limit.
    func opened() -> Bool {
        mutex.withLock {
            open += 1
            return open > limit
        }
    }

    func closed() { mutex.withLock { open -= 1 } }

    package var count: Int { mutex.withLock { open } }

    /// Descriptors kept free beyond the connection limit: listeners, event-loop internals,
    /// lingering refusals (`LingeringSockets.maximum` per loop) and files.
    package static func reservedDescriptors(eventLoops: Int) -> Int { 64 + eventLoops * (8 + LingeringSockets.maximum) }

    /// Raises the soft descriptor limit to the hard one. Connections are bounded by
    /// the connection limit (the service's `--max-connections`), not by the soft limit, which containers often leave at 1,024.
    /// Call before the limit is read (`defaultLimit`), once per process.
    package static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// 1,024, or the descriptor limit less the reserved descriptors when that is lower.
    package static func defaultLimit(eventLoops: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else { return 1_024 }
        return max(16, min(1_024, Int(limit.rlim_cur) - reservedDescriptors(eventLoops: eventLoops)))
    }
}
