import CLibevent

/// A request that has arrived whole, as the application's handler sees it on the loop thread:
/// what it asks for, and the handle its reply is sent to (`EventLoop.send`), now or from a
/// `LoopMessage.finished`.
///
/// The request itself is libevent's and lives until its reply is sent; read it only on the loop
/// thread and only until then.
package struct IncomingRequest {
    /// Where the reply goes; may travel to a worker and back.
    package let reply: ReplyHandle
    package let path: String
    package let query: String?
    /// The client's address and port, for access lines ("-" when unknown).
    package let peer: String
    /// The request began arriving before this loop's drain began, so it is to be served.
    package let arrivedBeforeDrain: Bool
    /// What the connection's admission held for the body, handed over to the request
    /// (`BodyAdmission.takeOver`).
    package let held: (any HeldResources)?

    package var method: HTTPMethod { reply.method }
    /// The client's `X-Request-Id` when usable (`RequestID.accepted`), else one made by the loop.
    package var requestID: String { reply.requestID }

    /// The first value of the header `name`.
    package func header(_ name: String) -> String? {
        evhttp_find_header(evhttp_request_get_input_headers(reply.request), name).map { String(cString: $0) }
    }

    /// The first bytes of the body (at most `limit`), copied: the body stays where it is.
    package func bodyStart(limit: Int) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(reply.request) else { return [] }
        let count = min(evbuffer_get_length(input), limit)
        return [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            initialized = max(0, evbuffer_copyout(input, bytes.baseAddress, count))
        }
    }

    /// Moves the body out of libevent's buffer (nil when there is none). Once.
    package func takeBody() -> RequestBody? {
        guard let input = evhttp_request_get_input_buffer(reply.request) else { return nil }
        return RequestBody(taking: input)
    }
}

/// Where a request's reply goes: the libevent request, which only the loop thread that received
/// it ever dereferences (workers just hand it back), and what the reply's framing depends on.
package struct ReplyHandle: @unchecked Sendable {
    let request: OpaquePointer
    package let method: HTTPMethod
    package let requestID: String
    /// The client asked to close the connection after this reply (`RequestHead.closeRequested`).
    package let closeAfterReply: Bool
    /// The client reads a chunked reply (HTTP/1.1, `RequestHead.readsChunkedReplies`): its reply
    /// may be streamed (`ReplyStream`).
    package let readsChunkedReplies: Bool
}

extension HTTPMethod {
    init(_ command: evhttp_cmd_type) {
        switch command {
        case EVHTTP_REQ_GET: self = .get
        case EVHTTP_REQ_POST: self = .post
        case EVHTTP_REQ_HEAD: self = .head
        case EVHTTP_REQ_PUT: self = .put
        case EVHTTP_REQ_DELETE: self = .delete
        case EVHTTP_REQ_OPTIONS: self = .options
        case EVHTTP_REQ_TRACE: self = .trace
        case EVHTTP_REQ_CONNECT: self = .connect
        case EVHTTP_REQ_PATCH: self = .patch
        default: self = .unknown
        }
    }
}
