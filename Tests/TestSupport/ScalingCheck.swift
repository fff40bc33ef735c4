#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether work grows linearly with its input: runs it on an input of size n and of size 4n and
/// compares the times. Linear work takes 4 times as long, quadratic 16 times; the check allows
/// `allowedRatio`.
///
/// How it keeps noise out (the machine runs other builds on its two cores):
/// - it measures the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), not the wall clock, so time
///   spent descheduled while another process runs is not counted;
/// - each size is measured three times and the fastest run kept: a run only ever gets slower
///   from outside (page faults of a fresh heap, a cold cache, an interrupt), never faster;
/// - n is doubled until the small run takes at least `minimumSeconds` (30 ms), so fixed costs
///   and the clock's granularity are a small part of it;
/// - inputs are made outside the measurement (`make`), only `run` is timed;
/// - while it measures, glibc serves every block up to 32 MiB from its heap and keeps the heap's
///   top (`mallopt`): otherwise a block past the mmap threshold, which glibc moves with what
///   was freed before, comes from fresh pages at every run, and their page faults are charged to
///   whichever size crossed it (a ratio of 5.8 for linear work, depending on the tests before);
/// - a ratio past the bound is measured up to twice more, each size keeping its best time of all
///   rounds: what a neighbour on the other core or a cache costs does not repeat the same way
///   every time, a quadratic does.
public enum ScalingCheck {
    /// Linear is 4; quadratic 16, and every quadratic shape these tests guard measured 9 or more
    /// before it was fixed. Linear work measured 3.9–4.2 alone but up to 5.8 when run among the
    /// other tests (caches and the heap's state differ between n and 4n), so the bound is 6: it
    /// never lets a quadratic pass, and a linear shape does not fail for the machine's noise.
    /// Under AddressSanitizer, whose allocator keeps freed blocks in quarantine and ignores
    /// `mallopt`, the bound is 8, still below any quadratic.
    public static let allowedRatio: Double = AddressSanitizer.isOn ? 8 : 6

    public struct Result: CustomStringConvertible {
        public let size: Int
        public let small: Double
        public let large: Double
        public var ratio: Double { large / small }
        public var description: String {
            "n = \(size): \(milliseconds(small)) ms; 4n: \(milliseconds(large)) ms; ratio \(Double(Int(ratio * 100)) / 100) (at most \(ScalingCheck.allowedRatio))"
        }
        private func milliseconds(_ seconds: Double) -> Double { Double(Int(seconds * 10_000)) / 10 }
    }

    /// Times `run` on `make(n)` and on `make(4 * n)`, n starting at `size` and doubled (up to
    /// `maximumSize`) until the small run takes `minimumSeconds`.
    public static func measure<Input>(
        startingAt size: Int, maximumSize: Int, minimumSeconds: Double = 0.03,
        make: (Int) throws -> Input, run: (Input) throws -> Void
    ) rethrows -> Result {
        _ = mallopt(mmapThreshold, 32 << 20)
        _ = mallopt(trimThreshold, Int32.max)
        // Back to glibc's initial thresholds, fixed.
        defer {
            _ = mallopt(mmapThreshold, 128 << 10)
            _ = mallopt(trimThreshold, 128 << 10)
        }
        var size = size
        var small = try fastest(of: try make(size), run)
        while small < minimumSeconds && size * 2 <= maximumSize {
            size *= 2
            small = try fastest(of: try make(size), run)
        }
        var large = try fastest(of: try make(4 * size), run)
        // Past the bound, both sizes are measured again (up to twice) and each keeps its best
        // time of all rounds: noise only ever adds time, so more rounds only remove it.
        for _ in 0..<2 where large / small > allowedRatio {
            small = min(small, try fastest(of: try make(size), run))
            large = min(large, try fastest(of: try make(4 * size), run))
        }
        return Result(size: size, small: small, large: large)
    }

    /// The least thread CPU time of three runs of `run` on `input`.
    public static func fastest<Input>(of input: Input, _ run: (Input) throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<3 {
            let start = threadSeconds()
            try run(input)
            best = min(best, threadSeconds() - start)
        }
        return best
    }

    /// glibc's `mallopt` parameters (malloc.h), which Swift's Glibc module does not bring.
    private static let trimThreshold: Int32 = -1
    private static let mmapThreshold: Int32 = -3

    /// The calling thread's CPU time in seconds.
    public static func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

@_silgen_name("mallopt")
private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
