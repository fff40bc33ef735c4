#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory this process may use, as the machine or its container says, and the default
/// `MemoryBudget` drawn from it.
public enum MemoryLimit {
    /// The container's memory limit (cgroup v2 `memory.max`, else cgroup v1
    /// `memory.limit_in_bytes`), or nil when there is none.
    public static func containerLimit() -> Int? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = KernelFile.text(path)?.trimmingWhitespace() else { continue }
            // "max" (v2) or a huge number (v1's "unlimited") mean no limit.
            guard let value = Int(text), value > 0, value < 1 << 60 else { return nil }
            return value
        }
        return nil
    }

    /// Physical memory of the machine.
    public static var physicalMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        return pages > 0 && size > 0 ? pages * size : 1 << 30
    }

    /// Three quarters of the container's limit, or of half the machine's memory when there is
    /// no container limit. The quarter left over holds what the budget does not count: the
    /// process itself (about 20 MB), request heads and socket buffers of open connections
    /// (`ConnectionGuard.heldBytesLimit` each) and the allocator's slack.
    public static func defaultBudget() -> Int {
        let limit = containerLimit().map { min($0, physicalMemory) } ?? physicalMemory / 2
        return max(16 << 20, limit / 4 * 3)
    }
}

/// The open-connection count shared by every loop, against one limit.
final class ConnectionLimit: @unchecked Sendable {
    let limit: Int
    private let mutex = PThreadMutex()
    private var open = 0        // guarded by mutex

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection; returns whether the count is now over the limit.
    func opened() -> Bool { mutex.withLock { open += 1; return open > limit } }

    func closed() { mutex.withLock { open -= 1 } }

    var count: Int { mutex.withLock { open } }

    /// Descriptors kept free beyond the connection limit: listeners, event-loop internals,
    /// lingering refusals (`EventLoop.maximumLingering` per loop) and files.
    static func reservedDescriptors(eventLoops: Int) -> Int { 64 + eventLoops * (8 + EventLoop.maximumLingering) }

    /// 1,024, or the descriptor limit less the reserved descriptors when that is lower.
    static func defaultLimit(eventLoops: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else { return 1_024 }
        return max(16, min(1_024, Int(limit.rlim_cur) - reservedDescriptors(eventLoops: eventLoops)))
    }
}
