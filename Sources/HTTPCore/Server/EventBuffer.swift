import CLibevent

/// A libevent buffer a reply's body is written into piece by piece, on any one thread at a time;
/// the loop then moves its contents into the request's output buffer without copying
/// (`evbuffer_add_buffer`), so a large body exists once in memory instead of twice.
///
/// Thread contract: the buffer has no lock. Its creator is its only user until it hands the
/// finished reply to the loop (through a `LoopMessage`, whose mutex orders the two); the loop
/// is its only user after that.
package final class EventBuffer: @unchecked Sendable {
    /// libevent's buffer: the loop hands it to libevent, which empties it (a chunk of a
    /// `ReplyStream`). Loop thread only.
    let buffer: OpaquePointer
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

    /// The last byte held; nil when empty.
    package var lastByte: UInt8? {
        guard count > 0 else { return nil }
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, count - 1, EVBUFFER_PTR_SET) == 0 else { return nil }
        var byte: UInt8 = 0
        return evbuffer_copyout_from(buffer, &position, &byte, 1) == 1 ? byte : nil
    }

    /// Moves the first `length` bytes (at most `count`) to the end of `destination`: libevent
    /// hands whole chains over and copies only a chain it cuts. False if it moved fewer.
    package func moveFirst(_ length: Int, into destination: EventBuffer) -> Bool {
        let length = min(length, count)
        let moved = Int(evbuffer_remove_buffer(buffer, destination.buffer, length))
        count -= max(0, moved)
        destination.count += max(0, moved)
        return moved == length
    }

    /// Calls `body` with the first `length` bytes (at most `count`) in the pieces libevent holds
    /// them in, in order, without copying them.
    package func forEachPiece(upTo length: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let length = min(length, count)
        guard length > 0 else { return }
        let needed = Int(evbuffer_peek(buffer, length, nil, nil, 0))
        guard needed > 0 else { return }
        var pieces = [iovec](repeating: iovec(), count: needed)
        let filled = Int(evbuffer_peek(buffer, length, nil, &pieces, Int32(needed)))
        var left = length
        for piece in pieces.prefix(filled) where left > 0 {
            let size = min(left, piece.iov_len)
            body(UnsafeBufferPointer(start: piece.iov_base?.assumingMemoryBound(to: UInt8.self), count: size))
            left -= size
        }
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
