import PThreads

/// Pieces of output passed from the converting thread to the thread that writes them out.
/// Holds at most `capacity` pieces: a slow reader of stdout stalls the conversion instead of
/// letting memory grow.
final class ChunkPipe: @unchecked Sendable {
    private let mutex = PThreadMutex()
    private let changed = PThreadCondition()
    // Guarded by `mutex`.
    private var chunks: [[UInt8]] = []
    private var closed = false
    private let capacity: Int

    init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    /// Adds a piece, waiting while the pipe is full.
    func push(_ chunk: [UInt8]) {
        mutex.withLock {
            while chunks.count >= capacity { changed.wait(mutex) }
            chunks.append(chunk)
            changed.broadcast()
        }
    }

    /// No more pieces will come.
    func close() {
        mutex.withLock {
            closed = true
            changed.broadcast()
        }
    }

    /// Hands every piece to `body` in order, until the pipe is closed and empty.
    func drain(_ body: ([UInt8]) -> Void) {
        while let chunk = next() { body(chunk) }
    }

    private func next() -> [UInt8]? {
        mutex.withLock {
            while chunks.isEmpty && !closed { changed.wait(mutex) }
            guard !chunks.isEmpty else { return nil }
            let chunk = chunks.removeFirst()
            changed.broadcast()
            return chunk
        }
    }
}
