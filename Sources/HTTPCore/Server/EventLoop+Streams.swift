import CLibevent

/// Streamed replies (`ReplyStream`), on the loop thread: the head with
/// `evhttp_send_reply_start` (libevent frames the body in chunks for an HTTP/1.1 request), each
/// chunk with `evhttp_send_reply_chunk_with_cb`, the end with `evhttp_send_reply_end`. The
/// connection's guard keeps the stream's deadlines (`GuardMachine.chunkQueued`) and cancels it
/// when the connection goes away.
///
/// Before each of these calls writing is disabled on the connection's filter, as it is when
/// evhttp queues a whole reply: libevent would otherwise write the bytes it is adding at once,
/// and report the write (the chunk callback, or the reply's completion) before the callback for
/// it is set, or never. `evhttp_write_buffer` enables writing again and the `GuardedSocket`
/// flushes the output from the loop.
extension EventLoop {
    /// Sends `stream`'s head: `status`, `contentType` and `headers` as `send` adds them, with no
    /// length. A request whose connection is gone cancels the stream.
    func startStream(
        _ stream: ReplyStream, status: Int32, contentType: String, headers: [HTTPHeader], holding held: (any HeldResources)?
    ) {
        let request = stream.handle.request
        stream.started = true
        guard let connection = evhttp_request_get_connection(request), let guarded = connectionGuard(for: request) else {
            return stream.cancel()
        }
        addHeaders(contentType: contentType, headers, to: stream.handle)
        repliesUnflushed += 1
        guarded.streamStarted(stream, holding: held)
        reportFlushed(request)
        Self.holdWriting(connection)
        evhttp_send_reply_start(request, status, nil)
    }

    /// Hands `chunk` of `stream` to libevent; it holds `held` until written. A chunk of a
    /// stream cancelled (or not started) is dropped.
    func sendChunk(_ chunk: EventBuffer, of stream: ReplyStream, holding held: (any HeldResources)?) {
        let request = stream.handle.request
        let bytes = chunk.count
        guard stream.started, !stream.isCancelled, let connection = evhttp_request_get_connection(request),
            let guarded = connectionGuard(for: request)
        else {
            return stream.settle(bytes)
        }
        Self.holdWriting(connection)
        evhttp_send_reply_chunk_with_cb(
            request, chunk.buffer,
            { _, raw in
                Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().streamChunksWritten()
            }, Unmanaged.passUnretained(guarded).toOpaque())
        stream.queued.append((bytes, held))
        stream.sentBytes += bytes
        guarded.chunkQueued(unwritten: stream.queued.reduce(0) { $0 + $1.bytes })
    }

    /// Ends `stream` (the worker wrote its last chunk): the last, empty chunk is sent and the
    /// reply completes once written (`replyFlushed`), or, when the connection is gone, libevent
    /// frees the request. Returns the body bytes handed to libevent. Once, as the action of the
    /// work's `LoopMessage.finished`.
    package func endStream(_ stream: ReplyStream) -> Int {
        let request = stream.handle.request
        if let connection = evhttp_request_get_connection(request), let guarded = connectionGuard(for: request), stream.started,
            !stream.isCancelled
        {
            Self.holdWriting(connection)
            // The last chunk's five bytes, after whatever is still unwritten.
            guarded.chunkQueued(unwritten: stream.queued.reduce(5) { $0 + $1.bytes })
        }
        evhttp_send_reply_end(request)
        return stream.sentBytes
    }

    /// Disables writing on `connection`'s filter until libevent enables it again.
    private static func holdWriting(_ connection: OpaquePointer) {
        if let filter = evhttp_connection_get_bufferevent(connection) { bufferevent_disable(filter, Int16(EV_WRITE)) }
    }
}
