#if canImport(Glibc)
import ASCIIText
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPUs this process may use, which the defaults of `workers` and `eventLoops` follow: the
/// CPUs its affinity mask allows (`Cpus_allowed_list` in `/proc/self/status`, what
/// `sched_getaffinity` answers; the online cores where that cannot be read), or fewer when the
/// container's CPU quota is lower (`ControlGroup.cpuQuota`, rounded up: 1.5 CPUs are 2); at
/// least 1. A pod limited to 1 CPU on a 64-core node gets 1, not 64.
public struct UsableCPUs: Sendable, Equatable {
    /// Threads the process may run at once.
    public var count: Int
    /// Where `count` comes from, for the start-up line: the quota's file and text, the
    /// affinity mask, or the online cores.
    public var source: String

    /// This process's, read once.
    public static let current = UsableCPUs(read: KernelFile.text, onlineCores: onlineCores)

    /// The machine's online cores.
    public static var onlineCores: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }
}

extension UsableCPUs {
    /// The CPUs from the files `read` gives (`/proc/self/status` and the cgroup's CPU files), with
    /// `onlineCores` where the affinity mask cannot be read.
    init(read: ControlGroup.Reader, onlineCores: Int) {
        let allowed = read("/proc/self/status").flatMap(Self.allowedList(status:))
        let affinity = allowed.flatMap(Self.count(cpuList:))
        self.init(
            affinity: affinity.map { ($0, "affinity \(allowed ?? "")") } ?? (max(1, onlineCores), "online cores"),
            quota: ControlGroup.cpuQuota(read: read))
    }

    /// The lower of the affinity mask's count and the quota's CPUs, at least 1; the quota when
    /// they are equal (the container's limit is the one its operator set).
    init(affinity: (count: Int, source: String), quota: ControlGroup.CPUQuota?) {
        if let quota, quota.cpus <= affinity.count {
            (count, source) = (max(1, quota.cpus), "cgroup \(quota.source)")
        } else {
            (count, source) = (max(1, affinity.count), affinity.source)
        }
    }

    /// The value of the `Cpus_allowed_list:` line of `/proc/<pid>/status` ("0-3,8-11"), or nil.
    /// Read as bytes, line by line: the file is ASCII, and splitting its text into characters
    /// cost archive-tool 0.7 M instructions at every start, a quarter of a small file's decode.
    static func allowedList(status: String) -> String? {
        var status = status
        return status.withUTF8 { text in
            ("Cpus_allowed_list:" as StaticString).withUTF8Buffer { key in
                var start = 0
                while start < text.count {
                    var end = start
                    while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
                    if end - start >= key.count, text[start..<(start + key.count)].elementsEqual(key) {
                        return String(decoding: text[(start + key.count)..<end], as: UTF8.self).trimmingASCIIWhitespace()
                    }
                    start = end + 1
                }
                return nil
            }
        }
    }

    /// The CPUs a kernel CPU list names ("0-3,8-11" is 8, "5" is 1), or nil when it is empty,
    /// malformed, names a range backwards or a CPU past any kernel's. Read as bytes.
    static func count(cpuList: String) -> Int? {
        var total = 0
        for item in cpuList.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let bounds = item.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let first = cpuNumber(bounds[0]), let last = cpuNumber(bounds[bounds.count - 1]), first <= last
            else { return nil }
            total += last - first + 1
        }
        return total > 0 ? total : nil
    }

    /// A CPU's number in decimal digits, below any kernel's limit (2^20), or nil.
    private static func cpuNumber(_ digits: Substring.UTF8View.SubSequence) -> Int? {
        guard !digits.isEmpty, digits.count <= 7 else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value < 1 << 20 ? value : nil
    }
}
