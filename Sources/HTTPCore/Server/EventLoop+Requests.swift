import CLibevent

/// Requests and replies, on the loop thread: a request that has arrived goes to the application
/// (`HTTPApplication.handle`); its reply comes back to `send`, and the connection's guard lets
/// the next request through once the reply is written.
extension EventLoop {
    /// evhttp's callback for a request whose head and body have arrived.
    func received(_ request: OpaquePointer) {
        let uri = evhttp_request_get_evhttp_uri(request)
        let path = uri.flatMap { evhttp_uri_get_path($0) }.map { String(cString: $0) } ?? ""
        let query = uri.flatMap { evhttp_uri_get_query($0) }.map { String(cString: $0) }
        let sentID = evhttp_find_header(evhttp_request_get_input_headers(request), "X-Request-Id").map { String(cString: $0) }
        let connection = connectionGuard(for: request)
        let handle = ReplyHandle(
            request: request, method: HTTPMethod(evhttp_request_get_command(request)),
            requestID: RequestID.accepted(sentID) ?? requestIDs.next(),
            closeAfterReply: connection?.currentHead?.closeRequested ?? false,
            readsChunkedReplies: connection?.currentHead?.readsChunkedReplies ?? false)
        // The guard admitted the request (and its admission held its body) before libevent read it.
        let held = connection?.dispatch()
        application.handle(
            IncomingRequest(
                reply: handle, path: path, query: query, peer: connection?.peer ?? "-",
                arrivedBeforeDrain: connection?.arrivedBeforeDrain ?? false, held: held),
            on: self)
    }

    /// Counts work begun for a request (on a worker, say) until its `LoopMessage.finished`
    /// arrives: a drain waits for it.
    package func startWork() {
        workInFlight += 1
    }

    /// Sends `reply` to the request `handle` names, with the loop's common headers and
    /// `X-Request-Id`; `held` is kept until the reply is written or its connection dropped.
    /// After this call the request may already be freed by libevent.
    package func send(_ reply: HTTPReply, to handle: ReplyHandle, holding held: (any HeldResources)?) {
        let request = handle.request
        let headers = addHeaders(contentType: reply.contentType, reply.headers, to: handle)
        // libevent writes no Content-Length for HEAD and CONNECT replies: every reply says its length.
        if handle.method == .head || handle.method == .connect {
            evhttp_add_header(headers, "Content-Length", String(reply.bodyCount))
        }
        // libevent sends whatever is in the output buffer, even for HEAD: send only the length.
        if handle.method != .head, reply.bodyCount > 0, let output = evhttp_request_get_output_buffer(request) {
            let added: Bool
            if let buffered = reply.buffered {
                added = buffered.move(into: output)
            } else {
                added = reply.body.withUnsafeBytes { evbuffer_add(output, $0.baseAddress, $0.count) } == 0
            }
            if !added {
                settings.logger.error("out of memory while queueing a \(reply.bodyCount)-byte reply")
            }
        }
        // A request whose client already left has no connection; libevent frees it on send and never
        // reports completion. Otherwise the reply (and what it holds) is kept until it is
        // written (`replyFlushed`) or its connection is dropped (`ConnectionGuard.detach`).
        if evhttp_request_get_connection(request) != nil, let connection = connectionGuard(for: request) {
            repliesUnflushed += 1
            connection.replySent(bytes: reply.bodyCount, holding: held)
            reportFlushed(request)
        }
        evhttp_send_reply(request, reply.status, nil, nil)
    }

    /// Adds a reply's headers to `handle`'s request: its Content-Type, `X-Request-Id`, the loop's
    /// common headers, `headers`, and `Connection: close` when the connection ends after it.
    /// Returns the request's output headers.
    @discardableResult
    func addHeaders(contentType: String, _ headers: [HTTPHeader], to handle: ReplyHandle) -> UnsafeMutablePointer<evkeyvalq>? {
        let output = evhttp_request_get_output_headers(handle.request)
        evhttp_add_header(output, "Content-Type", contentType)
        evhttp_add_header(output, "X-Request-Id", handle.requestID)
        for header in settings.commonHeaders {
            evhttp_add_header(output, header.name, header.value)
        }
        for header in headers {
            evhttp_add_header(output, header.name, header.value)
        }
        // libevent closes after a reply that says so; it reads only a request whose first
        // Connection header is exactly "close" as asking for that.
        if draining || handle.closeAfterReply {
            evhttp_add_header(output, "Connection", "close")
        }
        return output
    }

    /// Has libevent report when `request`'s reply is written whole (`replyFlushed`).
    func reportFlushed(_ request: OpaquePointer) {
        evhttp_request_set_on_complete_cb(
            request,
            { request, raw in
                EventLoop.from(raw).replyFlushed(request)
            }, unmanagedSelf)
    }

    private func replyFlushed(_ request: OpaquePointer?) {
        if let request, let connection = connectionGuard(for: request), connection.replyPending {
            connection.replyFlushed()
            repliesUnflushed -= 1
        }
        if draining { checkDrained() }
    }
}
