import CLibevent

/// A request body handed to a worker once. The loop moves libevent's buffer of it here (its
/// chains change hands; no byte is copied on the loop thread), and the worker's `take()` copies
/// it into one array and frees the buffer, so the conversion holds the only copy.
///
/// Thread contract: the buffer has no lock; the loop stops touching it once it is moved here,
/// and the worker is its only user after the pool hands the job over.
package final class RequestBody: @unchecked Sendable {
    private var buffer: OpaquePointer?
    /// Size of the body as received.
    package let count: Int

    /// Moves the contents of `input` (a request's input buffer); nil if it is empty.
    package init?(taking input: OpaquePointer) {
        let length = evbuffer_get_length(input)
        guard length > 0, let buffer = evbuffer_new() else { return nil }
        guard evbuffer_add_buffer(buffer, input) == 0 else {
            evbuffer_free(buffer)
            return nil
        }
        self.buffer = buffer
        count = length
    }

    deinit {
        if let buffer { evbuffer_free(buffer) }
    }

    /// The bytes, once; the buffer is freed as they are copied out.
    package func take() -> [UInt8] {
        guard let buffer else { return [] }
        defer {
            evbuffer_free(buffer)
            self.buffer = nil
        }
        return [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            initialized = max(0, Int(evbuffer_remove(buffer, bytes.baseAddress, count)))
        }
    }
}
