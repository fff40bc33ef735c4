import PThreads

/// A reply sent as it is made (chunked transfer coding): a worker writes its body piece by
/// piece and the loop that owns the request hands each piece to libevent, so the reply is never
/// held whole.
///
/// The worker: `start` once (status and headers), then `write` each chunk, then the loop's
/// `LoopMessage.finished` whose action calls `EventLoop.endStream`. Only the loop thread touches
/// libevent: every call posts a message (`LoopMessage.perform`, which does not count as the end
/// of the work begun with `EventLoop.startWork`).
///
/// Backpressure: bytes handed to the loop and not yet written (taken whole by the socket) are
/// counted in `unwritten`; `write` returns only once at most `queueLimit` of them remain, so a
/// client that reads slowly holds at most `queueLimit` plus one chunk of the server's memory,
/// and each chunk's `HeldResources` (its reservation in the memory budget) is kept until it is
/// written. libevent reports a write (`evhttp_send_reply_chunk_with_cb`'s callback) when its
/// output buffer is empty, which with the connection's `GuardedSocket` means the kernel holds
/// every byte queued so far: the callback settles everything queued before it.
///
/// Cancellation: when the connection goes away (the client left, or was cut off at a chunk's
/// deadline, `GuardMachine.chunkQueued`), the stream is cancelled: a waiting `write` returns
/// false at once, every later one too, and what queued chunks held is let go. A worker checks
/// `isCancelled` (or `write`'s answer) between pieces of work and stops.
///
/// Thread contract: `start`, `write` and `isCancelled` from the one worker writing the reply;
/// everything else on the loop thread. `unwritten` and `cancelled` are shared, under `mutex`.
package final class ReplyStream: @unchecked Sendable {
    /// The most bytes left unwritten when `write` returns: enough to keep the socket busy
    /// between two chunks of a fast client, small beside the memory budget.
    package static let defaultQueueLimit = 256 << 10

    package let handle: ReplyHandle
    package let queueLimit: Int
    private let loop: EventLoop

    private let mutex = PThreadMutex()
    private let changed = PThreadCondition()
    /// Bytes handed to the loop and not yet written. Guarded by `mutex`.
    private var unwritten = 0
    /// Guarded by `mutex`.
    private var cancelled = false

    // Loop thread only.
    /// Chunks handed to libevent and not yet reported written: their bytes and what they hold.
    var queued: [(bytes: Int, held: (any HeldResources)?)] = []
    /// Body bytes handed to libevent so far.
    package internal(set) var sentBytes = 0
    /// The head was handed to libevent (`EventLoop.startStream`).
    var started = false

    /// A stream for the request `handle`, on `loop`, the loop that received it.
    package init(handle: ReplyHandle, on loop: EventLoop, queueLimit: Int = ReplyStream.defaultQueueLimit) {
        self.handle = handle
        self.loop = loop
        self.queueLimit = queueLimit
    }

    /// Whether the connection went away: nothing more will reach the client.
    package var isCancelled: Bool { mutex.withLock { cancelled } }

    /// Sends the reply's status and headers (`EventLoop.send`'s, without a length). Once,
    /// before the first `write`; `held` is kept until the reply is written or dropped.
    package func start(status: Int32, contentType: String, headers: [HTTPHeader], holding held: (any HeldResources)?) {
        loop.post(.perform { [self] loop in loop.startStream(self, status: status, contentType: contentType, headers: headers, holding: held) })
    }

    /// Queues `chunk` (its bytes reserved in `held`, kept until written), then waits while more
    /// than `queueLimit` bytes are unwritten. False when the stream is cancelled: the chunk is
    /// dropped and nothing more is to be written.
    @discardableResult
    package func write(_ chunk: EventBuffer, holding held: (any HeldResources)?) -> Bool {
        let bytes = chunk.count
        guard bytes > 0 else { return !isCancelled }
        let accepted = mutex.withLock {
            guard !cancelled else { return false }
            unwritten += bytes
            return true
        }
        guard accepted else { return false }
        loop.post(.perform { [self] loop in loop.sendChunk(chunk, of: self, holding: held) })
        mutex.lock()
        while unwritten > queueLimit, !cancelled { changed.wait(mutex) }
        let open = !cancelled
        mutex.unlock()
        return open
    }

    // MARK: Loop side

    /// `bytes` handed to `write` were written (or dropped): the worker may queue more.
    func settle(_ bytes: Int) {
        guard bytes > 0 else { return }
        mutex.withLock { unwritten -= bytes }
        changed.signal()
    }

    /// Every chunk handed to libevent so far is written: lets go of what they held.
    func chunksWritten() {
        let bytes = queued.reduce(0) { $0 + $1.bytes }
        queued.removeAll()
        settle(bytes)
    }

    /// The connection went away: wakes the worker, and lets go of what queued chunks held.
    func cancel() {
        mutex.withLock { cancelled = true }
        changed.broadcast()
        queued.removeAll()
    }
}
