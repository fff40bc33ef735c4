#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound in time on the conversion the current thread runs. A caller that must stop work
/// which runs too long (the service, whose workers are few) runs it inside
/// `ConversionDeadline.run(seconds:_:)`; every loop of the codec whose trips grow with the input
/// polls the deadline at bounded intervals (`poll`) and, once it has passed, throws
/// `CodecError.Kind.timedOut`, which unwinds the conversion like any refusal: nothing is killed,
/// every structure is released as usual, and the thread is free for its next job.
///
/// The deadline belongs to the thread (a thread-specific value), so it reaches every loop of
/// every format without a parameter threaded through each reader, planner and writer; a thread
/// that never set one pays one load and one compare per poll. Work that runs on threads of its
/// own (archive-tool's split writing) is not bounded by it.
///
/// Polls are cheap (a mask test on a counter the loop keeps; every `pollInterval` trips, one
/// thread-specific read and, when a deadline is set, one read of the monotonic clock), so the
/// interval is chosen so that no loop runs long between two reads: at most a few thousand
/// trips of work that is itself linear.
public enum ConversionDeadline {
    /// Trips between two reads of the clock: each loop reads it when its counter is a multiple
    /// of this (a power of two).
    public static let pollInterval = 1 << 10

    /// Runs `body` with a deadline `seconds` from now on this thread (nil: none), and restores
    /// the thread's previous deadline afterwards.
    public static func run<Result, Failure: Error>(seconds: Double?, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let previous = pthread_getspecific(key)
        let deadline = seconds.map { monotonicNanoseconds() &+ UInt64(max(0, min($0, 1e9)) * 1e9) }
        pthread_setspecific(key, deadline.flatMap { UnsafeRawPointer(bitPattern: UInt(max($0, 1))) })
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// Whether this thread runs under a deadline that has passed.
    public static var hasPassed: Bool {
        guard let deadline = currentDeadline else { return false }
        return monotonicNanoseconds() >= deadline
    }

    /// Throws `timedOut` when `trip` is a multiple of `pollInterval` and this thread's deadline
    /// has passed. Loops pass their own counter (an index, a count of steps).
    @inline(__always)
    public static func poll(_ trip: Int) throws(CodecError) {
        if trip & (pollInterval - 1) == 0 { try check() }
    }

    /// For loops that cannot throw: whether `trip` is a multiple of `pollInterval` and this
    /// thread's deadline has passed. The loop then ends at once, leaving its result unfinished,
    /// and the throwing caller that runs it calls `check()` right after, before anything reads
    /// that result.
    @inline(__always)
    public static func shouldStop(_ trip: Int) -> Bool {
        trip & (pollInterval - 1) == 0 && hasPassed
    }

    /// Runs `body` on `range` cut into blocks of `pollInterval`, checking the deadline before
    /// each: for the hottest loops, which then pay nothing per trip. `body` sees one block at a
    /// time, so a `return` in it ends only that block.
    @inline(__always)
    public static func forEachBlock(of range: Range<Int>, _ body: (Range<Int>) throws(CodecError) -> Void) throws(CodecError) {
        var start = range.lowerBound
        while start < range.upperBound {
            try check()
            let end = start + min(pollInterval, range.upperBound - start)
            try body(start..<end)
            start = end
        }
    }

    /// Throws `timedOut` when this thread's deadline has passed.
    public static func check() throws(CodecError) {
        guard let deadline = currentDeadline, monotonicNanoseconds() >= deadline else { return }
        throw passed
    }

    /// The error every poll throws once the deadline has passed.
    static let passed = CodecError(.timedOut, "the conversion ran past its time limit and was stopped")

    private static var currentDeadline: UInt64? {
        pthread_getspecific(key).map { UInt64(UInt(bitPattern: $0)) }
    }

    /// The thread-specific slot: the deadline's nanoseconds stored as the pointer's bits
    /// (no allocation; 0 is no deadline).
    nonisolated(unsafe) private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "no thread-specific key for conversion deadlines")
        return key
    }()
}
