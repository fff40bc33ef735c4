/// How deep the recursive converters may go on a thread with a given stack.
///
/// The readable JSON writer (decode) and the archive encoder recurse once per nesting level;
/// everything else (parsing, validation, the depth probe, releasing results) is iterative or
/// flat, so these per-level costs are the whole story. They were measured with
/// `scripts/measure_stack.sh` (binary search for the deepest linked list that converts under
/// a given `ulimit -s`; bytes per level = stack / depth; results in BENCHMARKS.md) and are
/// used here with a 25 % margin. Debug builds have much larger frames, hence their own figures.
public enum StackBudget {
    #if DEBUG
    static let measuredDecodeBytesPerLevel = 3_524
    static let measuredEncodeBytesPerLevel = 9_818
    #else
    static let measuredDecodeBytesPerLevel = 369
    static let measuredEncodeBytesPerLevel = 2_260
    #endif

    /// Stack bytes one level of the readable JSON writer may use (measured, plus margin).
    public static let bytesPerLevel = measuredDecodeBytesPerLevel * 5 / 4
    /// Stack bytes one JSON nesting level of the encoder may use (measured, plus margin).
    public static let encodeBytesPerLevel = measuredEncodeBytesPerLevel * 5 / 4
    /// Kept free for the frames below the recursion (worker loop, libc, the leaf calls).
    public static let reserveBytes = 128 * 1024
    /// The smallest stack the service accepts: enough for the reserve and a useful depth.
    public static let minimumStackSize = 256 * 1024

    /// Deepest readable view (`KeyedArchive.depth(of: .readable)`) safe on `stackSize`.
    public static func maxDepth(stackSize: Int) -> Int {
        max(0, (stackSize - reserveBytes) / bytesPerLevel)
    }

    /// Deepest JSON document (`JSONDocument.depth`) the encoder can take on `stackSize`.
    public static func maxEncodeDepth(stackSize: Int) -> Int {
        max(0, (stackSize - reserveBytes) / encodeBytesPerLevel)
    }
}
