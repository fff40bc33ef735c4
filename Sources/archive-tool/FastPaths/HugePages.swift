#if canImport(Glibc)
import Glibc
#endif

/// Large conversions fault in their memory 4 KiB at a time, and the kernel's work on those
/// faults is a large share of their time. glibc's malloc asks for transparent huge pages
/// (2 MiB) when its `glibc.malloc.hugetlb=1` tunable is set, and Debian's kernels grant them
/// to processes that ask (`madvise` mode). Tunables are read at process start only, so the
/// tool re-executes itself once with the tunable set. A re-execution is a fixed cost that
/// small inputs do not win back, so it is done for input files of at least `threshold` bytes
/// only (docs/benchmarks.md, "Why reading got two threads").
///
/// Nothing happens when `GLIBC_TUNABLES` is already set (set it to anything, even empty, to
/// opt out), when huge pages are off or always on, or when re-executing fails.
///
/// It runs before the arguments are parsed (a re-execution would pay for parsing twice), so
/// it finds the input itself: the first argument after `decode` or `encode` that
/// names a regular file (an option's value names none, as a rule). A misreading costs at most a needless or a missed re-execution.
enum HugePages {
    static let threshold = 8 << 20

    static func reexecIfWorthIt(arguments: [String]) {
        #if os(Linux)
        guard arguments.count > 2, ["decode", "encode"].contains(arguments[1]),
            getenv("GLIBC_TUNABLES") == nil, isMadviseMode()
        else { return }
        var status = stat()
        // The words as the shell passed them: a name that is not UTF-8 is another name as text.
        guard arguments.count == Int(CommandLine.argc),
            arguments.indices.dropFirst(2).contains(where: { index in
                guard !arguments[index].hasPrefix("-"), let word = CommandLine.unsafeArgv[index] else { return false }
                return stat(word, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
            }), Int(status.st_size) >= threshold
        else { return }
        guard setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) == 0 else { return }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: exec failed. Carry on without huge pages.
        unsetenv("GLIBC_TUNABLES")
        #endif
    }

    /// Whether the kernel gives huge pages to memory that asks for them, and only then.
    private static func isMadviseMode() -> Bool {
        guard let file = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r") else { return false }
        defer { fclose(file) }
        var line = [UInt8](repeating: 0, count: 128)
        let read = fread(&line, 1, line.count - 1, file)
        return String(decoding: line.prefix(read), as: UTF8.self).contains("[madvise]")
    }
}
