#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex on a stable heap address (a `pthread_mutex_t` must never move once initialised).
///
/// Lock and unlock failures mean memory corruption or a locking bug, so they stop the process
/// rather than continue with shared state unguarded.
public final class PThreadMutex: @unchecked Sendable {
    let raw: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
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

    public func lock() {
        let rc = pthread_mutex_lock(raw)
        precondition(rc == 0, "pthread_mutex_lock failed with \(rc)")
    }

    public func unlock() {
        let rc = pthread_mutex_unlock(raw)
        precondition(rc == 0, "pthread_mutex_unlock failed with \(rc)")
    }

    @inlinable @inline(__always)
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
