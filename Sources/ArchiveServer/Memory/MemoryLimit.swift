import HostResources

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
    public static func containerLimit() -> Int? { ControlGroup.memoryLimit() }

    /// Physical memory of the machine.
    public static var physicalMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let size = sysconf(Int32(_SC_PAGESIZE))
        return pages > 0 && size > 0 ? pages * size : 1 << 30
    }

    /// Three quarters of the container's limit, or of half the machine's memory when there is
    /// no container limit. The quarter left over holds what the budget does not count: the
    /// process itself (its idle size is in docs/benchmarks.md, "Memory of the service"),
    /// request heads and socket buffers of open connections (`GuardLimits.heldBytesLimit`
    /// each) and the allocator's slack.
    public static func defaultBudget() -> Int {
        let limit = containerLimit().map { min($0, physicalMemory) } ?? physicalMemory / 2
        return max(16 << 20, limit / 4 * 3)
    }
}
