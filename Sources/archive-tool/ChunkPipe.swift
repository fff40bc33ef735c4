#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pieces of output passed from the converting thread to the thread that writes them out.
/// Holds at most `capacity` pieces: a slow reader of stdout stalls the conversion instead of
/// letting memory grow. Every pthread call's result is checked.
final class ChunkPipe: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var chunks: [[UInt8]] = []
    private var closed = false
    private let capacity: Int

    init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        precondition(pthread_cond_init(changed, nil) == 0, "pthread_cond_init failed")
    }

    deinit {
        precondition(pthread_cond_destroy(changed) == 0, "pthread_cond_destroy failed")
        precondition(pthread_mutex_destroy(mutex) == 0, "pthread_mutex_destroy failed")
        changed.deallocate()
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        precondition(pthread_mutex_lock(mutex) == 0, "pthread_mutex_lock failed")
        defer { precondition(pthread_mutex_unlock(mutex) == 0, "pthread_mutex_unlock failed") }
        return body()
    }

    private func wait() {
        precondition(pthread_cond_wait(changed, mutex) == 0, "pthread_cond_wait failed")
    }

    private func signal() {
        precondition(pthread_cond_broadcast(changed) == 0, "pthread_cond_broadcast failed")
    }

    /// Adds a piece, waiting while the pipe is full.
    func push(_ chunk: [UInt8]) {
        locked {
            while chunks.count >= capacity { wait() }
            chunks.append(chunk)
            signal()
        }
    }

    /// No more pieces will come.
    func close() {
        locked {
            closed = true
            signal()
        }
    }

    /// Hands every piece to `body` in order, until the pipe is closed and empty.
    func drain(_ body: ([UInt8]) -> Void) {
        while let chunk = next() { body(chunk) }
    }

    private func next() -> [UInt8]? {
        locked {
            while chunks.isEmpty && !closed { wait() }
            guard !chunks.isEmpty else { return nil }
            let chunk = chunks.removeFirst()
            signal()
            return chunk
        }
    }
}
