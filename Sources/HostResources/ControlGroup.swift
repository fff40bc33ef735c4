import ASCIIText

/// The limits the container's control group sets on this process, read from its files under
/// `/sys/fs/cgroup`: cgroup v2's files first, then cgroup v1's. The first of a limit's files that
/// can be read decides it, so a v2 file saying "no limit" is not overruled by a v1 file. The files
/// are read as the container sees them: its own cgroup mounted at `/sys/fs/cgroup` (a cgroup
/// namespace, or v1's per-container mounts), as Docker and Kubernetes set it up.
///
/// Every reading takes the files through `read` (a path to its text, nil when it cannot be
/// read), so tests give contents without a cgroup.
public enum ControlGroup {
    /// A path to the file's text, or nil when the file cannot be read.
    public typealias Reader = (String) -> String?

    /// cgroup v2's `memory.max`, then cgroup v1's `memory.limit_in_bytes`.
    static let memoryFiles = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
    /// cgroup v2's `cpu.max`: the quota and the period on one line.
    static let cpuMaxFile = "/sys/fs/cgroup/cpu.max"
    /// cgroup v1's CPU controller: its own mount, or the one it shares with cpuacct.
    static let cpuV1Directories = ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"]

    /// The memory limit in bytes, or nil when there is none.
    public static func memoryLimit(read: Reader = KernelFile.text) -> Int? {
        for path in memoryFiles {
            guard let text = read(path)?.trimmingASCIIWhitespace() else { continue }
            // "max" (v2) or a huge number (v1's "unlimited") mean no limit.
            guard let value = Int(text), value > 0, value < 1 << 60 else { return nil }
            return value
        }
        return nil
    }

    /// A CPU limit: `quota` microseconds of CPU time in every `period`, over all the process's threads.
    struct CPUQuota: Sendable, Equatable {
        var quota: Int
        var period: Int
        /// The file it was read from, and its text, for the start-up line.
        var source: String

        /// Threads that may run at once within the quota: quota / period, rounded up (1.5 → 2;
        /// a quota below its period, 1).
        var cpus: Int { quota / period + (quota % period == 0 ? 0 : 1) }
    }

    /// The CPU limit, or nil when there is none or its files say nothing that can be read:
    /// v2's `cpu.max` ("max 100000" is no limit), else v1's `cpu.cfs_quota_us` ("-1" is no limit)
    /// over `cpu.cfs_period_us`.
    static func cpuQuota(read: Reader = KernelFile.text) -> CPUQuota? {
        if let text = read(cpuMaxFile) {
            // Split as bytes: the file is ASCII (a split into characters costs every start of
            // archive-tool more than reading the file).
            let fields = text.utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\t") })
                .map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]) else { return nil }
            return limit(quota, period, source: "\(cpuMaxFile) \(fields[0]) \(fields[1])")
        }
        for directory in cpuV1Directories {
            guard let quotaText = read(directory + "/cpu.cfs_quota_us")?.trimmingASCIIWhitespace() else { continue }
            guard let quota = Int(quotaText), let periodText = read(directory + "/cpu.cfs_period_us")?.trimmingASCIIWhitespace(),
                let period = Int(periodText)
            else { return nil }
            return limit(quota, period, source: "\(directory)/cpu.cfs_quota_us \(quotaText) over cpu.cfs_period_us \(periodText)")
        }
        return nil
    }

    /// A quota and a period as the kernel allows them (both positive; v1's -1 is no limit).
    private static func limit(_ quota: Int, _ period: Int, source: String) -> CPUQuota? {
        guard quota > 0, period > 0 else { return nil }
        return CPUQuota(quota: quota, period: period, source: source)
    }
}
