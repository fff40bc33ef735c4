import CLibevent

/// A libevent buffer a reply's body is written into piece by piece, on any one thread at a time;
/// the loop then moves its contents into the request's output buffer without copying
/// (`evbuffer_add_buffer`), so a large body exists once in memory instead of twice.
///
/// Thread contract: the buffer has no lock. Its creator is its only user until it hands the
/// finished reply to the loop (through a `LoopMessage`, whose mutex orders the two); the loop
/// is its only user after that.
package final class EventBuffer: @unchecked Sendable {
    private let buffer: OpaquePointer
    /// Bytes held.
    package private(set) var count = 0

    package init?() {
        guard let buffer = evbuffer_new() else { return nil }
        self.buffer = buffer
    }

    deinit {
        evbuffer_free(buffer)
    }

    /// Appends `piece`; false when libevent could not take it (out of memory).
    package func append(_ piece: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = piece.baseAddress else { return true }
        guard evbuffer_add(buffer, base, piece.count) == 0 else { return false }
        count += piece.count
        return true
    }

    /// Lets go of everything held.
    package func removeAll() {
        evbuffer_drain(buffer, count)
        count = 0
    }

    /// Moves everything into `output` (a request's output buffer); false if libevent refused.
    /// Loop thread only.
    func move(into output: OpaquePointer) -> Bool {
        evbuffer_add_buffer(output, buffer) == 0
    }
}
