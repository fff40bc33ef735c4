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
/// - a ratio past the bound is measured once more and the lower one kept: what a neighbour on
///   the other hyperthread or a cache costs does not repeat the same way twice, a quadratic does.
public enum ScalingCheck {
    /// Linear is 4; quadratic 16. The margin absorbs what noise the measures above leave and
    /// an n log n term.
    public static let allowedRatio = 4.5

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
        var size = size
        var small = try fastest(of: try make(size), run)
        while small < minimumSeconds && size * 2 <= maximumSize {
            size *= 2
            small = try fastest(of: try make(size), run)
        }
        let large = try fastest(of: try make(4 * size), run)
        let first = Result(size: size, small: small, large: large)
        guard first.ratio > allowedRatio else { return first }
        let again = Result(size: size, small: try fastest(of: try make(size), run), large: try fastest(of: try make(4 * size), run))
        return again.ratio < first.ratio ? again : first
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

    /// The calling thread's CPU time in seconds.
    public static func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
