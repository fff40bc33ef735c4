import HostResources

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process uses, read from the kernel when `/metrics` is scraped: the `process_*`
/// metrics every Prometheus client library exports under these names, so dashboards and alerts
/// written for them work unchanged. Linux reads `/proc/self`; elsewhere the values it cannot
/// read are nil and their metrics are left out.
struct ProcessStatistics: Sendable {
    /// User and system CPU time (`getrusage`).
    var cpuSeconds: Double
    /// Resident and virtual memory (`/proc/self/statm`).
    var residentBytes: Int?
    var virtualBytes: Int?
    /// Open descriptors (`/proc/self/fd`) and the soft limit on them (`RLIMIT_NOFILE`).
    var openDescriptors: Int?
    var maximumDescriptors: Int?
    /// Seconds since the Unix epoch at which the process started.
    var startTime: Double?

    static func current(startTime: Double?) -> ProcessStatistics {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        var limit = rlimit()
        // RLIM_INFINITY is all ones, which Swift cannot import from its C definition.
        let maximum = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < rlim_t(Int.max) ? Int(limit.rlim_cur) : nil
        let memory = memoryBytes()
        return ProcessStatistics(
            cpuSeconds: cpu,
            residentBytes: memory?.resident,
            virtualBytes: memory?.virtual,
            openDescriptors: countDescriptors(),
            maximumDescriptors: maximum,
            startTime: startTime)
    }

    /// Virtual and resident bytes now (`/proc/self/statm`); nil where it cannot be read.
    static func memoryBytes() -> (virtual: Int, resident: Int)? {
        guard let pages = KernelFile.text("/proc/self/statm").map({ $0.split(separator: " ").compactMap { Int($0) } }), pages.count > 1 else {
            return nil
        }
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        return (pages[0] * pageSize, pages[1] * pageSize)
    }

    /// When the process started, from its start in clock ticks after boot (`/proc/self/stat`,
    /// field 22) and the boot time (`btime` in `/proc/stat`). Read once: it does not change.
    static func processStartTime() -> Double? {
        guard let stat = KernelFile.text("/proc/self/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        // The fields after the command name (which may hold spaces and parentheses) start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]),
            let boot = KernelFile.text("/proc/stat")?.split(separator: "\n").first(where: { $0.hasPrefix("btime ") })
                .flatMap({ Double($0.dropFirst(6)) })
        else { return nil }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticksPerSecond > 0 ? boot + ticks / ticksPerSecond : nil
    }

    /// The open descriptors, less the one that reads the directory.
    private static func countDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in name.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count - 1
    }
}
