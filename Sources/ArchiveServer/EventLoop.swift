import CLibevent
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pointer to a libevent request, carried through a worker and back. Only the loop thread that
/// received the request ever dereferences it; workers just hand it back.
struct RequestHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// A request accepted by a loop and waiting for its reply.
struct PendingRequest: Sendable {
    let handle: RequestHandle
    let method: HTTPMethod
    let path: String
    var route: Route?
    let startNanos: UInt64
    var bytesIn = 0
}

enum LoopMessage: Sendable {
    /// A worker finished a conversion.
    case completed(PendingRequest, HTTPResponse)
    /// Stop accepting, answer what is in flight, then exit the loop; give up at `deadline`.
    case drain(deadline: UInt64)
    /// Exit the loop now, whatever is still in flight.
    case exitNow
}

/// One libevent event base with its own `evhttp` and listening socket, run by one thread.
///
/// Invariant: every evhttp object of this loop is touched only on the loop's thread. Other threads
/// reach the loop only through `post(_:)`, which queues a message and wakes the loop with
/// `event_active` on a user event (libevent's thread-safe wake-up once `evthread_use_pthreads` ran).
final class EventLoop: @unchecked Sendable {
    let index: Int
    let base: OpaquePointer
    /// Nil once `closeConnections()` ran.
    private var http: OpaquePointer!
    private let context: ServerContext
    private var boundSocket: OpaquePointer?
    private var wakeEvent: OpaquePointer!
    private var drainTimer: OpaquePointer?
    private var signalEvents: [OpaquePointer] = []
    /// Called on this loop's thread when SIGTERM or SIGINT arrives (only on the loop owning signals).
    var onSignal: ((Int32) -> Void)?

    private let mailboxMutex = PThreadMutex()
    private var mailbox: [LoopMessage] = []          // guarded by mailboxMutex
    private var spareMailbox: [LoopMessage] = []     // loop thread only

    // Loop-thread state.
    private var conversionsInFlight = 0
    private var repliesUnflushed = 0
    private var draining = false
    private var drainDeadline: UInt64 = 0
    private var flushGraceEnd: UInt64?
    private var exiting = false

    /// How long a drained loop waits for replies still being written to slow or vanished clients.
    private static let flushGraceNanos: UInt64 = 1_000_000_000

    private var unmanagedSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ raw: UnsafeMutableRawPointer?) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(raw!).takeUnretainedValue()
    }

    init(index: Int, context: ServerContext) throws(ServerError) {
        self.index = index
        self.context = context
        guard let base = event_base_new() else { throw ServerError("event_base_new failed") }
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            throw ServerError("evhttp_new failed")
        }
        self.base = base
        self.http = http
        let config = context.configuration
        evhttp_set_timeout(http, Int32(config.timeout))
        evhttp_set_max_body_size(http, config.maxBodySize)
        evhttp_set_max_headers_size(http, 64 << 10)
        // Accept every method libevent knows so that the router, not libevent, answers 405 with Allow.
        let allMethods = [EVHTTP_REQ_GET, EVHTTP_REQ_POST, EVHTTP_REQ_HEAD, EVHTTP_REQ_PUT, EVHTTP_REQ_DELETE,
                          EVHTTP_REQ_OPTIONS, EVHTTP_REQ_TRACE, EVHTTP_REQ_CONNECT, EVHTTP_REQ_PATCH]
        evhttp_set_allowed_methods(http, UInt16(allMethods.reduce(0) { $0 | $1.rawValue }))
        // Read an oversized body to its end before answering 413, so the client sees the reply
        // instead of a connection reset.
        _ = evhttp_set_flags(http, EVHTTP_SERVER_LINGERING_CLOSE)
        evhttp_set_gencb(http, { request, raw in
            guard let request else { return }
            EventLoop.from(raw).handle(request)
        }, unmanagedSelf)
        guard let wake = event_new(base, -1, 0, { _, _, raw in
            EventLoop.from(raw).processMailbox()
        }, unmanagedSelf) else {
            evhttp_free(http)
            event_base_free(base)
            throw ServerError("event_new failed for the wake-up event")
        }
        wakeEvent = wake
    }

    // MARK: Listening

    /// Binds this loop's listening socket. With `reusePort` several loops bind the same port and the
    /// kernel spreads connections across them. Returns the port actually bound.
    func listen(host: String, port: Int, reusePort: Bool) throws(ServerError) -> Int {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &found)
        guard rc == 0, let first = found else {
            throw ServerError("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }

        var flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE
        if reusePort { flags |= LEV_OPT_REUSEABLE_PORT }
        var lastError: Int32 = 0
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            if let listener = evconnlistener_new_bind(base, nil, nil, flags, 1024, info.pointee.ai_addr,
                                                      Int32(info.pointee.ai_addrlen)) {
                guard let bound = evhttp_bind_listener(http, listener) else {
                    evconnlistener_free(listener)
                    throw ServerError("evhttp_bind_listener failed")
                }
                boundSocket = bound
                return try Self.localPort(of: evconnlistener_get_fd(listener))
            }
            lastError = errno
            candidate = info.pointee.ai_next
        }
        throw ServerError("cannot listen on \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    private static func localPort(of fd: Int32) throws(ServerError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw ServerError("getsockname failed: \(String(cString: strerror(errno)))") }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            throw ServerError("unexpected address family \(storage.ss_family)")
        }
    }

    /// Makes SIGTERM and SIGINT call `onSignal` on this loop. Call before `run()`.
    func handleSignals() throws(ServerError) {
        for signal in [SIGTERM, SIGINT] {
            guard let event = event_new(base, signal, Int16(EV_SIGNAL | EV_PERSIST), { signal, _, raw in
                EventLoop.from(raw).onSignal?(signal)
            }, unmanagedSelf), event_add(event, nil) == 0 else {
                throw ServerError("cannot install the handler for signal \(signal)")
            }
            signalEvents.append(event)
        }
    }

    // MARK: Running

    /// Runs the loop on the calling thread until a drain completes or `exitNow` arrives.
    func run() {
        let rc = event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        if rc < 0 { context.logger.error("event loop \(index) stopped with an error") }
    }

    /// Closes the listener and every connection, abandoning requests still unanswered. Only after
    /// `run()` returned. Workers may still `post`: the wake-up event outlives this.
    func closeConnections() {
        guard let http else { return }
        evhttp_free(http)
        self.http = nil
    }

    /// Frees every remaining libevent object of this loop. Only once no worker can post any more.
    func teardown() {
        closeConnections()
        for event in signalEvents { event_free(event) }
        signalEvents.removeAll()
        if let drainTimer { event_free(drainTimer) }
        drainTimer = nil
        event_free(wakeEvent)
        event_base_free(base)
    }

    /// Queues a message for the loop thread. Safe from any thread.
    func post(_ message: LoopMessage) {
        mailboxMutex.lock()
        mailbox.append(message)
        let wasEmpty = mailbox.count == 1
        mailboxMutex.unlock()
        // One wake-up per batch: the loop takes the whole mailbox each time it wakes.
        if wasEmpty { event_active(wakeEvent, EV_READ, 0) }
    }

    private func processMailbox() {
        mailboxMutex.withLock { swap(&mailbox, &spareMailbox) }
        for message in spareMailbox {
            switch message {
            case let .completed(pending, response):
                conversionsInFlight -= 1
                send(response, to: pending, finishesConversion: true)
            case let .drain(deadline):
                beginDrain(deadline: deadline)
            case .exitNow:
                exit(reason: "forced")
            }
        }
        spareMailbox.removeAll(keepingCapacity: true)
        checkDrained()
    }

    // MARK: Draining

    private func beginDrain(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        if let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)
            self.boundSocket = nil
        }
        // A periodic check bounds the drain even if nothing else happens on this loop.
        if let timer = event_new(base, -1, Int16(EV_PERSIST), { _, _, raw in
            EventLoop.from(raw).checkDrained()
        }, unmanagedSelf) {
            var interval = timeval(tv_sec: 0, tv_usec: 10_000)
            if event_add(timer, &interval) == 0 {
                drainTimer = timer
            } else {
                event_free(timer)
            }
        }
        if drainTimer == nil {
            context.logger.error("event loop \(index) could not arm its drain timer; exiting without waiting")
            exit(reason: "no drain timer")
        }
    }

    private func checkDrained() {
        guard draining, !exiting else { return }
        let now = monotonicNanoseconds()
        if conversionsInFlight == 0 {
            if repliesUnflushed == 0 { return exit(reason: "drained") }
            if let end = flushGraceEnd {
                if now >= end { return exit(reason: "drained; \(repliesUnflushed) replies still unflushed") }
            } else {
                flushGraceEnd = now + Self.flushGraceNanos
            }
        }
        if now >= drainDeadline {
            context.logger.warning("drain timeout: abandoning requests still in flight", metadata: [
                "loop": .stringConvertible(index), "in_flight": .stringConvertible(conversionsInFlight),
            ])
            exit(reason: "drain timeout")
        }
    }

    private func exit(reason: String) {
        guard !exiting else { return }
        exiting = true
        context.logger.debug("event loop \(index) exiting: \(reason)")
        event_base_loopexit(base, nil)
    }

    // MARK: Requests

    private func handle(_ request: OpaquePointer) {
        let start = monotonicNanoseconds()
        let uri = evhttp_request_get_evhttp_uri(request)
        let path = uri.flatMap { evhttp_uri_get_path($0) }.map { String(cString: $0) } ?? ""
        var pending = PendingRequest(handle: RequestHandle(raw: request),
                                     method: HTTPMethod(evhttp_request_get_command(request)),
                                     path: path, route: nil, startNanos: start)
        guard let route = Route(path: path) else {
            return send(Problem.notFound(path: path).response(), to: pending)
        }
        pending.route = route
        guard route.allowedMethods.contains(pending.method) else {
            let problem = Problem.methodNotAllowed(method: pending.method.rawValue, path: path, allow: route.allowHeader)
            return send(problem.response(), to: pending)
        }
        switch route {
        case .healthz:
            send(.json(200, "{\"status\":\"ok\"}"), to: pending)
        case .readyz:
            send(readiness(), to: pending)
        case .metrics:
            let text = context.renderMetrics()
            send(HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(text.utf8)),
                 to: pending)
        case .decode, .encode:
            startConversion(route: route, request: request, uri: uri, pending: pending)
        }
    }

    private func readiness() -> HTTPResponse {
        if draining || context.isDraining {
            return Problem.notReady(reason: "The server is shutting down.").response()
        }
        let pool = context.pool.snapshot
        guard pool.hasCapacity else {
            return Problem.notReady(reason: "All \(pool.threads) workers are busy and \(pool.queued) requests are queued (limit \(pool.queueLimit)).").response()
        }
        return .json(200, "{\"status\":\"ready\",\"workersBusy\":\(pool.busy),\"queued\":\(pool.queued)}")
    }

    private func startConversion(route: Route, request: OpaquePointer, uri: OpaquePointer?, pending: PendingRequest) {
        var pending = pending
        let path = pending.path
        if draining {
            return send(Problem.draining(path: path).response(), to: pending)
        }
        if route == .encode, let contentType = evhttp_find_header(evhttp_request_get_input_headers(request), "Content-Type") {
            let value = String(cString: contentType)
            if !isJSONMediaType(value) {
                return send(Problem.unsupportedMediaType(value, path: path).response(), to: pending)
            }
        }
        let conversion: ConversionRequest
        do {
            let query = QueryParameters(uri.flatMap { evhttp_uri_get_query($0) }.map { String(cString: $0) })
            conversion = try ConversionRequest(route: route, query: query, path: path)
        } catch {
            return send(error.response(), to: pending)
        }
        let body = Self.readBody(request)
        pending.bytesIn = body.count
        if body.isEmpty {
            return send(Problem.emptyBody(path: path).response(), to: pending)
        }
        let limit = context.configuration.maxBodySize
        if body.count > limit {
            return send(Problem.bodyTooLarge(size: body.count, limit: limit, path: path).response(), to: pending)
        }

        let context = self.context
        let accepted = context.pool.submit { [pending] in
            context.hooks.beforeConversion?()
            let response = Conversion.run(conversion, body: body, depthLimit: context.depthLimit, path: pending.path)
            self.post(.completed(pending, response))
        }
        if accepted {
            conversionsInFlight += 1
            context.metrics.conversionQueued()
        } else {
            send(Problem.overloaded(path: path).response(), to: pending)
        }
    }

    private static func readBody(_ request: OpaquePointer) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(request) else { return [] }
        let length = evbuffer_get_length(input)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            count = max(0, evbuffer_copyout(input, buffer.baseAddress, length))
        }
    }

    /// Sends `response` and records it. After this call the request may already be freed by libevent.
    private func send(_ response: HTTPResponse, to pending: PendingRequest, finishesConversion: Bool = false) {
        let request = pending.handle.raw
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Content-Type", response.contentType)
        for header in response.headers {
            evhttp_add_header(headers, header.name, header.value)
        }
        if draining {
            evhttp_add_header(headers, "Connection", "close")
        }
        if pending.method == .head {
            // libevent sends whatever is in the output buffer, even for HEAD: send only the length.
            evhttp_add_header(headers, "Content-Length", String(response.body.count))
        } else if !response.body.isEmpty, let output = evhttp_request_get_output_buffer(request) {
            let added = response.body.withUnsafeBytes { evbuffer_add(output, $0.baseAddress, $0.count) }
            if added != 0 {
                context.logger.error("out of memory while queueing a \(response.body.count)-byte reply")
            }
        }
        // A request whose client already left has no connection; libevent frees it on send and never
        // reports completion, so only connected requests are counted as unflushed.
        if evhttp_request_get_connection(request) != nil {
            repliesUnflushed += 1
            evhttp_request_set_on_complete_cb(request, { _, raw in
                EventLoop.from(raw).replyFlushed()
            }, unmanagedSelf)
        }
        evhttp_send_reply(request, response.status, nil, nil)

        let elapsed = monotonicNanoseconds() &- pending.startNanos
        context.metrics.record(route: pending.route?.rawValue ?? Route.unmatchedLabel, status: response.status,
                               seconds: Double(elapsed) / 1e9, bytesIn: pending.bytesIn, bytesOut: response.body.count,
                               rejection: response.rejection, finishesConversion: finishesConversion)
        context.accessLog.record(method: pending.method, path: pending.path, route: pending.route, status: response.status,
                                 bytesIn: pending.bytesIn, bytesOut: response.body.count, nanoseconds: elapsed)
    }

    private func replyFlushed() {
        repliesUnflushed -= 1
        if draining { checkDrained() }
    }
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

public struct ServerError: Error, Sendable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
