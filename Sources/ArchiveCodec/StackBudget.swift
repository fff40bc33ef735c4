#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How deep the recursive converters may go on a thread with a given stack.
///
/// The readable JSON writer (decode) recurses once per nesting level; everything else
/// (parsing, validation, the depth probe, the encoder, releasing results) is iterative or
/// flat, so this per-level cost is the whole story. A level costs a different amount for
/// each shape of nesting (class instance, array, dictionary, set, ordered set, `$dict`
/// pairs, `$plist`, inline plist containers): `scripts/bench/measure_stack.sh` measures every shape
/// (the most levels that convert on a 16 MiB stack with the check off; bytes per depth unit
/// = (stack − reserve) / depth; the table is in docs/benchmarks.md,
/// "Stack per recursion level (the depth limit)"), and the figures here are the largest of
/// all shapes, used with a 25 % margin. `StackBudgetTests` runs every shape at exactly the
/// admitted depth on a stack just big enough, so a frame that grows past its budget crashes
/// the tests rather than the service. Debug builds have much larger frames, hence their own
/// figures.
public enum StackBudget {
    #if DEBUG
    static let measuredDecodeBytesPerLevel = 6_402  // dictionaries, the largest shape; the raw view takes less
    #else
    static let measuredDecodeBytesPerLevel = 397  // dictionaries, the largest shape; the raw view takes less
    #endif

    /// Stack bytes one level of the readable JSON writer may use (measured, plus margin).
    public static let bytesPerLevel = measuredDecodeBytesPerLevel * 5 / 4
    /// Kept free for the frames below the recursion (worker loop, libc, the leaf calls).
    public static let reserveBytes = 128 * 1024
    /// The smallest stack the service accepts: enough for the reserve and a useful depth.
    public static let minimumStackSize = 256 * 1024

    /// Whether the per-level figures hold for the running build. They were measured on builds
    /// without sanitizers: AddressSanitizer puts redzones around every local, so its frames
    /// are several times larger and the admitted depth would overflow the stack. False when
    /// AddressSanitizer's runtime is in the process (a test or diagnostic build, never the
    /// shipped one); what admits depth then protects nothing, and tests that run at the
    /// limit skip.
    package static let holdsForThisBuild: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return true }
        defer { dlclose(process) }
        return dlsym(process, "__asan_init") == nil
    }()

    /// Deepest readable view (`KeyedArchive.depth(of: .readable)`) safe on `stackSize`.
    public static func maxDepth(stackSize: Int) -> Int {
        max(0, (stackSize - reserveBytes) / bytesPerLevel)
    }
}
