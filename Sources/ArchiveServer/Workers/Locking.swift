#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex on a stable heap address (a `pthread_mutex_t` must never move once initialised).
///
/// Lock and unlock failures mean memory corruption or a locking bug, so they stop the process
/// rather than continue with shared state unguarded.
final class PThreadMutex: @unchecked Sendable {
    fileprivate let raw: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(raw, nil)
        precondition(rc == 0, "pthread_mutex_init failed with \(rc)")
    }

    deinit {
        let rc = pthread_mutex_destroy(raw)
        assert(rc == 0, "pthread_mutex_destroy failed with \(rc)")
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    func lock() {
        let rc = pthread_mutex_lock(raw)
        precondition(rc == 0, "pthread_mutex_lock failed with \(rc)")
    }

    func unlock() {
        let rc = pthread_mutex_unlock(raw)
        precondition(rc == 0, "pthread_mutex_unlock failed with \(rc)")
    }

    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A pthread condition variable, always used with one `PThreadMutex`.
final class PThreadCondition: @unchecked Sendable {
    private let raw: UnsafeMutablePointer<pthread_cond_t>

    init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: pthread_cond_t())
        let rc = pthread_cond_init(raw, nil)
        precondition(rc == 0, "pthread_cond_init failed with \(rc)")
    }

    deinit {
        let rc = pthread_cond_destroy(raw)
        assert(rc == 0, "pthread_cond_destroy failed with \(rc)")
        raw.deinitialize(count: 1)
        raw.deallocate()
    }

    /// Atomically releases `mutex` (which the caller holds) and waits; holds it again on return.
    func wait(_ mutex: PThreadMutex) {
        let rc = pthread_cond_wait(raw, mutex.raw)
        precondition(rc == 0, "pthread_cond_wait failed with \(rc)")
    }

    func signal() {
        let rc = pthread_cond_signal(raw)
        precondition(rc == 0, "pthread_cond_signal failed with \(rc)")
    }

    func broadcast() {
        let rc = pthread_cond_broadcast(raw)
        precondition(rc == 0, "pthread_cond_broadcast failed with \(rc)")
    }
}

/// Nanoseconds on the monotonic clock: for durations only, never for wall time.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}
