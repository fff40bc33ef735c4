#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread condition variable on a stable heap address, always used with one `PThreadMutex`.
///
/// As with the mutex, a failing call means a locking bug or corrupt memory and stops the process.
public final class PThreadCondition: @unchecked Sendable {
    private let raw: UnsafeMutablePointer<pthread_cond_t>

    public init() {
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
    /// Wake-ups may be spurious: wait in a loop on the condition the caller is waiting for.
    public func wait(_ mutex: PThreadMutex) {
        let rc = pthread_cond_wait(raw, mutex.raw)
        precondition(rc == 0, "pthread_cond_wait failed with \(rc)")
    }

    public func signal() {
        let rc = pthread_cond_signal(raw)
        precondition(rc == 0, "pthread_cond_signal failed with \(rc)")
    }

    public func broadcast() {
        let rc = pthread_cond_broadcast(raw)
        precondition(rc == 0, "pthread_cond_broadcast failed with \(rc)")
    }
}
