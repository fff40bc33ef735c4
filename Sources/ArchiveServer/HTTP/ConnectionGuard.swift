import ArchiveCodec
import CLibevent
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stands between one client socket and libevent's HTTP parser: a bufferevent filter that every
/// byte the client sends passes first. libevent itself buffers a whole body before the server
/// hears of the request, resets its read timeout on every byte and answers its own errors in
/// HTML; the guard lets the server decide before any of that happens:
///
/// - it reads each request head itself (`RequestHead`) and only then lets it through, so a
///   request is admitted against `maxBodySize` and the `MemoryBudget` from its `Content-Length`
///   before a byte of its body is read, and refused, with a problem document, otherwise; the
///   budget is then reserved as the body's bytes arrive (`ConversionCost.admission` of what
///   has arrived, a step ahead), so a head that announces a large body and sends nothing holds
///   nothing, and a slow body holds only what it has paid for;
/// - the whole head and the whole body each have a deadline, not reset by a trickle of bytes;
/// - it passes one request at a time: bytes after a request wait in the kernel (the socket
///   is not read past `heldBytesLimit`) until its reply has been written, so a pipelining
///   client cannot queue unbounded input, and the body of a request libevent would not read
///   (HEAD, TRACE, unknown methods) is dropped here instead of being taken for the next request;
/// - a reply has a deadline too, after which a client that does not read is cut off and the
///   reply's memory freed, and a connection idle between requests is closed after the timeout.
///   These are the connection's only timers: libevent's own (reset by every byte) are not set.
///
/// Output bypasses the bufferevent under the filter: the filter's output callback writes
/// libevent's reply straight to the socket (`filterOutput`), so libevent counts a reply as sent
/// only once the kernel holds all of it. (Through the socket bufferevent, libevent 2.1 would call
/// a reply done while its tail still sat in that bufferevent, and free it unsent when the
/// connection closes after the reply; it would also never start a reply whose bytes were queued
/// while writing was disabled, which is how evhttp queues every reply.)
///
/// A refusal is written straight to the socket (nothing else writes to it then: no request of
/// this connection is with the server), the socket is kept open a moment on a duplicate
/// descriptor so the client can read the answer (`EventLoop.linger`), and libevent is told the
/// client went away, so it frees the connection its own way.
///
/// Lifetime: created by the loop's `evhttp_set_bevcb` hook for each accepted socket, retained
/// by the filter and released when libevent frees the filter. Loop thread only.
final class ConnectionGuard {
    unowned let loop: EventLoop
    /// Order of acceptance within the loop; the oldest evictable connection goes first.
    let serial: UInt64
    let underlying: OpaquePointer
    private(set) var filter: OpaquePointer?
    private var timer: OpaquePointer?
    /// Activated when libevent queues output, to write it from the loop.
    private var flushEvent: OpaquePointer?
    /// Waits for the socket to take more, while a reply is only partly written.
    private var writableEvent: OpaquePointer?

    private enum Phase {
        /// Reading a head; `scanned` bytes of it were searched for its end.
        case head(scanned: Int)
        case body(remaining: Int)
        case chunked(ChunkedBodyFramer)
        /// Refused or cut off: everything the client still sends is dropped.
        case closed
    }

    private enum Deadline { case none, idle, head, body, reply }

    private var phase = Phase.head(scanned: 0)
    private var deadline = Deadline.none
    /// The current request's body is one libevent leaves unread: the guard drops it.
    private var droppingBody = false
    /// A request was let through and its reply has not been written yet.
    private(set) var requestOutstanding = false
    /// That request reached the handler, so a reply to it is (or will be) libevent's to write.
    private var dispatched = false
    /// A reply was handed to libevent and has not been written yet.
    private(set) var replyPending = false
    /// The head let through last: for refusals that come later (body deadline, chunk size), and
    /// for the handler, which reads the request as the guard did (`RequestHead.closeRequested`).
    private(set) var currentHead: RequestHead?
    private var chunkedBytes = 0
    /// Body bytes of the current request let through (or dropped) so far (`received(_:)`).
    private var receivedBytes = 0
    /// When the current request's head was let through (monotonic nanoseconds), for the rate
    /// its body arrives at (`eviction`).
    private var headPassedAt: UInt64 = 0
    /// Since when the connection has waited for a request (accepted, or its last reply written).
    private var idleSince = monotonicNanoseconds()
    /// How long a connection waiting for its next request counts as just opened: it has had no
    /// time to send (a probe that has just connected), so it makes room last.
    static let freshIdleNanos: UInt64 = 1_000_000_000
    /// Bytes reserved for the request being received, grown as its body arrives; the handler
    /// takes it over.
    private var admission: Reservation?
    /// The route of the request being received, for `ConversionCost.admission`.
    private var admissionRoute: Route?
    /// Bytes reserved for the reply being written.
    private var replyReservation: Reservation?

    /// Longest request head accepted (request line and headers); longer ones get 431.
    static let maximumHeadSize = 32 << 10
    /// Bytes read from the socket but not yet let through; reading stops there.
    static let heldBytesLimit = maximumHeadSize + (16 << 10)
    /// The slowest a body or a reply may move once started, in bytes per second: the deadline
    /// for a body or reply of n bytes is the timeout plus n at this rate.
    static let minimumTransferRate = 256 << 10
    /// How far ahead of the bytes received a body's reservation is grown, so the budget's lock
    /// is taken once per step rather than once per read.
    static let admissionStep = 1 << 20

    init(loop: EventLoop, serial: UInt64, underlying: OpaquePointer) {
        self.loop = loop
        self.serial = serial
        self.underlying = underlying
    }

    /// Completes set-up once the filter exists. False if its events cannot be made.
    func attach(filter: OpaquePointer) -> Bool {
        self.filter = filter
        let me = Unmanaged.passUnretained(self).toOpaque()
        timer = event_new(
            loop.base, -1, 0,
            { _, _, raw in
                Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().deadlinePassed()
            }, me)
        flushEvent = event_new(
            loop.base, -1, 0,
            { _, _, raw in
                Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().flushOutput()
            }, me)
        bufferevent_setwatermark(underlying, Int16(EV_READ), 0, Self.heldBytesLimit)
        evbuffer_add_cb(
            bufferevent_get_output(filter),
            { _, info, raw in
                guard let info, info.pointee.n_added > 0 else { return }
                Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().outputQueued()
            }, me)
        guard timer != nil, flushEvent != nil else { return false }
        arm(.idle, seconds: loop.context.configuration.timeout)
        return true
    }

    /// libevent is freeing the connection (the filter's context is being freed).
    func detach() {
        for event in [timer, flushEvent, writableEvent] {
            if let event { event_free(event) }
        }
        timer = nil
        flushEvent = nil
        writableEvent = nil
        if replyPending {
            replyPending = false
            loop.replyAbandoned()
        }
        admission = nil
        replyReservation = nil
        phase = .closed
        filter = nil
    }

    /// The request arriving when the drain began (`requestArriving` then): it is served, and a
    /// drain waits for it; the connection's later requests are answered 503 `shutting-down`.
    var arrivedBeforeDrain = false

    /// A request of this connection has begun and is not yet with the server: part of its head
    /// has arrived, or its head has and its body is arriving. A drain waits for it.
    var requestArriving: Bool {
        if isClosed { return false }
        if requestOutstanding { return !dispatched }
        if case .partialHead? = eviction { return true }
        return false
    }

    /// How the connection may be closed to make room for another (docs/service.md, "Memory and
    /// connections are bounded"): `idle` between requests with nothing of a head received
    /// (closed without a word), `partialHead` part way through a head, `body` with its body
    /// arriving at `bytesPerSecond` (both answered 503); nil while a request of it is with the
    /// server. They go in that order, bodies slowest first: what holds a connection while
    /// sending least makes room first; an idle connection that has just opened or just had its
    /// reply (`fresh`, under `freshIdleNanos`) goes last, as it has had no time to send.
    enum Eviction {
        case idle(fresh: Bool)
        case partialHead
        case body(bytesPerSecond: Int)

        /// Orders candidates: the smaller goes first.
        var rank: (Int, Int) {
            switch self {
            case .idle(let fresh): fresh ? (3, 0) : (0, 0)
            case .partialHead: (1, 0)
            case .body(let rate): (2, rate)
            }
        }
    }

    var eviction: Eviction? {
        switch phase {
        case .head(let scanned) where !requestOutstanding:
            guard scanned == 0, evbuffer_get_length(bufferevent_get_input(underlying)) == 0 else { return .partialHead }
            return .idle(fresh: monotonicNanoseconds() &- idleSince < Self.freshIdleNanos)
        case .body, .chunked:
            guard requestOutstanding, !dispatched else { return nil }
            let elapsed = max(monotonicNanoseconds() &- headPassedAt, 1_000_000)
            return .body(bytesPerSecond: Int(min(UInt64(receivedBytes) &* 1_000_000_000 / elapsed, UInt64(Int.max))))
        default:
            return nil
        }
    }

    // MARK: Input

    /// The filter callback: moves what libevent may see from `source` (the socket's input) to
    /// `destination` (libevent's). Returns whether anything was consumed.
    func filterInput(source: OpaquePointer, destination: OpaquePointer) -> bufferevent_filter_result {
        var progressed = false
        while true {
            let available = evbuffer_get_length(source)
            if available == 0 { break }
            switch phase {
            case .closed:
                evbuffer_drain(source, available)
                return BEV_OK
            case .head(let scanned):
                if requestOutstanding { return progressed ? BEV_OK : BEV_NEED_MORE }
                if scanned == 0, skipBlankLines(source) {
                    progressed = true
                    continue
                }
                if deadline == .none || deadline == .idle { arm(.head, seconds: loop.context.configuration.headerTimeout) }
                let window = min(available, Self.maximumHeadSize)
                let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(source, window), count: window)
                guard let end = RequestHead.endOfHead(in: bytes, from: RequestHead.resumePoint(afterSearching: scanned)) else {
                    if window >= Self.maximumHeadSize {
                        refuse(Problem.headTooLarge(limit: Self.maximumHeadSize), head: nil)
                        continue
                    }
                    phase = .head(scanned: window)
                    return progressed ? BEV_OK : BEV_NEED_MORE
                }
                let head: RequestHead
                do {
                    head = try RequestHead.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
                } catch {
                    refuse(Problem(error, path: error.head?.path ?? Self.pathForLog(bytes[0..<end])), head: error.head)
                    continue
                }
                if let problem = admit(head) {
                    refuse(problem, head: head)
                    continue
                }
                evbuffer_remove_buffer(source, destination, end)
                progressed = true
                requestOutstanding = true
                currentHead = head
                headPassedAt = monotonicNanoseconds()
                droppingBody = !head.method.bodyIsReadByLibevent
                switch head.body {
                case .none:
                    phase = .head(scanned: 0)
                    if deadline == .head { disarm() }
                case .length(let length):
                    phase = .body(remaining: length)
                    arm(.body, seconds: transferSeconds(length))
                case .chunked:
                    chunkedBytes = 0
                    phase = .chunked(ChunkedBodyFramer())
                    arm(.body, seconds: transferSeconds(loop.context.configuration.maxBodySize))
                }
            case .body(let remaining):
                let taken = min(remaining, available)
                if let refusal = received(taken, upTo: receivedBytes + remaining) {
                    refuse(refusal, head: currentHead)
                    continue
                }
                pass(taken, from: source, to: destination)
                progressed = true
                if taken == remaining {
                    bodyEnded()
                } else {
                    phase = .body(remaining: remaining - taken)
                }
            case .chunked(var framer):
                if case .data(let remaining) = framer.state {
                    let taken = min(remaining, available)
                    if let refusal = received(taken, upTo: chunkedBytes) {
                        refuse(refusal, head: currentHead)
                        continue
                    }
                    framer.skipData(taken)
                    pass(taken, from: source, to: destination)
                    progressed = true
                    phase = .chunked(framer)
                    continue
                }
                let window = min(available, ChunkedBodyFramer.maximumLineLength + 2)
                let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(source, window), count: window)
                var refusal: Problem?
                let used: Int
                let dataBefore = framer.dataBytes
                do {
                    used = try framer.consume(bytes) { size in
                        refusal = admitChunk(size)
                        return refusal == nil
                    }
                } catch {
                    refuse(Problem.badRequest(error.detail, path: currentHead?.path ?? ""), head: currentHead)
                    continue
                }
                if refusal == nil { refusal = received(framer.dataBytes - dataBefore, upTo: chunkedBytes) }
                if let refusal {
                    // The refused chunk's size line is not let through: libevent would answer it
                    // itself (an HTML 413 beside this one).
                    refuse(refusal, head: currentHead)
                    continue
                }
                if used > 0 {
                    pass(used, from: source, to: destination)
                    progressed = true
                }
                if framer.state == .done {
                    bodyEnded()
                } else {
                    phase = .chunked(framer)
                    if used == 0 { return progressed ? BEV_OK : BEV_NEED_MORE }
                }
            }
        }
        return progressed ? BEV_OK : BEV_NEED_MORE
    }

    private func pass(_ count: Int, from source: OpaquePointer, to destination: OpaquePointer) {
        if droppingBody {
            evbuffer_drain(source, count)
        } else {
            evbuffer_remove_buffer(source, destination, count)
        }
    }

    private func bodyEnded() {
        phase = .head(scanned: 0)
        droppingBody = false
        if deadline == .body { disarm() }
    }

    /// Drops CR and LF bytes before a request line (RFC 9112 §2.2); true if any were dropped.
    private func skipBlankLines(_ source: OpaquePointer) -> Bool {
        let available = evbuffer_get_length(source)
        let window = min(available, 64)
        let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(source, window), count: window)
        let blanks = bytes.prefix { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }.count
        if blanks > 0 { evbuffer_drain(source, blanks) }
        return blanks > 0
    }

    /// Seconds allowed for `bytes` to move: the configured timeout plus the bytes at the
    /// minimum transfer rate.
    private func transferSeconds(_ bytes: Int) -> Int {
        loop.context.configuration.timeout + bytes / Self.minimumTransferRate
    }

    // MARK: Output

    private func outputQueued() {
        if let flushEvent { event_active(flushEvent, EV_WRITE, 0) }
    }

    /// Runs the filter's output side, if libevent still owns the connection (after
    /// `bufferevent_free` its callbacks are cleared; the memory lives until `detach`).
    private func flushOutput() {
        guard let filter, !isClosed else { return }
        var eventCallback: bufferevent_event_cb?
        bufferevent_getcb(filter, nil, nil, &eventCallback, nil)
        guard eventCallback != nil else { return }
        bufferevent_flush(filter, Int16(EV_WRITE), BEV_NORMAL)
    }

    /// The filter's output callback: writes what libevent queued to the socket, as much as the
    /// kernel takes; the rest waits for the socket to become writable.
    func filterOutput(source: OpaquePointer) -> bufferevent_filter_result {
        guard let fd = socketDescriptor, evbuffer_get_length(source) > 0 else { return BEV_NEED_MORE }
        let written = evbuffer_write(source, fd)
        if written < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            cut()
            return BEV_ERROR
        }
        if evbuffer_get_length(source) > 0 {
            if writableEvent == nil {
                writableEvent = event_new(
                    loop.base, fd, Int16(EV_WRITE),
                    { _, _, raw in
                        Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().flushOutput()
                    }, Unmanaged.passUnretained(self).toOpaque())
            }
            if let writableEvent { event_add(writableEvent, nil) }
        }
        return written > 0 ? BEV_OK : BEV_NEED_MORE
    }

    // MARK: Admission

    /// Decides on a complete head; nil admits it. A body that could not fit the budget even
    /// alone is refused (413), one that does not fit what is free now too (503), before a
    /// byte of it is read; what it needs is reserved only as its bytes arrive (`received`).
    private func admit(_ head: RequestHead) -> Problem? {
        receivedBytes = 0
        admissionRoute = nil
        switch head.body {
        case .length(let length) where head.method.bodyIsReadByLibevent:
            let limit = loop.context.configuration.maxBodySize
            if length > limit {
                return Problem.bodyTooLarge(size: length, limit: limit, path: head.path)
            }
            return startAdmission(route: Route(path: head.path), announced: length, path: head.path)
        case .chunked where head.method.bodyIsReadByLibevent:
            return startAdmission(route: Route(path: head.path), announced: 0, path: head.path)
        default:
            return nil
        }
    }

    /// Opens the (empty) reservation of a body of `announced` bytes on `route`, if its whole
    /// need fits what is free now.
    private func startAdmission(route: Route?, announced: Int, path: String) -> Problem? {
        let budget = loop.context.budget
        let needed = ConversionCost.admission(route: route, bodyBytes: announced)
        guard needed <= budget.available, let reservation = budget.reserve(0) else {
            return Problem.memoryBudget(needed: needed, capacity: budget.capacity, path: path)
        }
        admission = reservation
        admissionRoute = route
        return nil
    }

    /// `count` more body bytes are about to be let through, of a body that will have `total`
    /// at most (its length, or the chunk sizes announced so far): grows the reservation to
    /// what the bytes received need, a step ahead; nil when granted.
    private func received(_ count: Int, upTo total: Int) -> Problem? {
        receivedBytes += count
        guard !droppingBody, let admission else { return nil }
        let needed = ConversionCost.admission(route: admissionRoute, bodyBytes: receivedBytes)
        guard needed > admission.bytes else { return nil }
        let ahead = ConversionCost.admission(route: admissionRoute, bodyBytes: min(total, receivedBytes + Self.admissionStep))
        if admission.grow(to: max(needed, ahead)) || admission.grow(to: needed) { return nil }
        return Problem.memoryBudget(needed: needed, capacity: admission.capacity, path: currentHead?.path ?? "")
    }

    /// A chunk of `size` bytes was announced; nil admits it (its bytes are reserved as they
    /// arrive, `received`).
    private func admitChunk(_ size: Int) -> Problem? {
        guard let head = currentHead, !droppingBody else { return nil }
        let context = loop.context
        chunkedBytes += size
        let limit = context.configuration.maxBodySize
        if chunkedBytes > limit {
            return Problem.bodyTooLarge(size: chunkedBytes, limit: limit, path: head.path)
        }
        let needed = ConversionCost.admission(route: admissionRoute, bodyBytes: chunkedBytes)
        if needed > context.budget.capacity {
            return Problem.memoryBudget(needed: needed, capacity: context.budget.capacity, path: head.path)
        }
        return nil
    }

    // MARK: Requests and replies (called by the handler)

    /// The request let through has reached the handler; takes over its reservation.
    func dispatch() -> Reservation? {
        dispatched = true
        defer { admission = nil }
        return admission
    }

    /// A reply of `bytes` bytes was handed to libevent; it holds `reservation` until written.
    func replySent(bytes: Int, reservation: Reservation?) {
        replyPending = true
        replyReservation = reservation
        arm(.reply, seconds: transferSeconds(bytes))
    }

    /// The reply has been written: the next request may come through.
    func replyFlushed() {
        arrivedBeforeDrain = false
        idleSince = monotonicNanoseconds()
        replyPending = false
        replyReservation = nil
        requestOutstanding = false
        dispatched = false
        currentHead = nil
        if deadline == .reply || deadline == .none { arm(.idle, seconds: loop.context.configuration.timeout) }
        // Bytes of the next request may wait in the socket's buffer: run the filter over them.
        if evbuffer_get_length(bufferevent_get_input(underlying)) > 0 {
            bufferevent_trigger(
                underlying, Int16(EV_READ),
                Int32(BEV_TRIG_IGNORE_WATERMARKS.rawValue | BEV_TRIG_DEFER_CALLBACKS.rawValue))
        }
    }

    // MARK: Deadlines

    private func arm(_ kind: Deadline, seconds: Int) {
        guard let timer else { return }
        deadline = kind
        var interval = timeval(tv_sec: seconds, tv_usec: 0)
        event_add(timer, &interval)
    }

    private func disarm() {
        deadline = .none
        if let timer { event_del(timer) }
    }

    private func deadlinePassed() {
        let kind = deadline
        deadline = .none
        switch kind {
        case .none:
            return
        case .idle:
            cut()
        case .head:
            refuse(Problem.headerTimeout(seconds: loop.context.configuration.headerTimeout), head: nil)
        case .body:
            refuse(Problem.bodyTimeout(path: currentHead?.path ?? ""), head: currentHead)
        case .reply:
            loop.context.logger.info("reply not read in time: closing the connection")
            cut()
        }
    }

    // MARK: Refusing and cutting off

    /// Answers `problem` (unless a reply of this connection is already libevent's to write) and
    /// closes the connection, letting the client read the answer first.
    func refuse(_ problem: Problem, head: RequestHead?) {
        guard filter != nil, !isClosed else { return }
        var problem = problem
        if problem.instance == nil, let head { problem.instance = head.path }
        let requestID = RequestID.accepted(head?.requestID) ?? loop.requestIDs.next()
        problem.headers.append(.init(name: "X-Request-Id", value: requestID))
        let response = problem.response()
        if !dispatched, let fd = socketDescriptor {
            let bytes = response.closingMessage
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if written == bytes.count { loop.linger(fd) }
            let path = head?.path ?? problem.instance ?? ""
            let summary = RequestSummary(
                method: head?.method ?? .unknown, path: path, query: head?.query, route: Route(path: path),
                client: peer, requestID: requestID)
            loop.context.record(response, for: summary, bytesIn: 0)
        }
        cut()
    }

    /// Closes the connection without an answer: libevent is told the client went away (from the
    /// loop, not inside this callback) and frees everything the connection holds.
    func cut() {
        guard let filter, !isClosed else { return }
        phase = .closed
        disarm()
        admission = nil
        bufferevent_trigger_event(filter, Int16(BEV_EVENT_EOF | BEV_EVENT_READING), Int32(BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    private var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// The client's address and port, for access lines: asked of the socket once per connection.
    private(set) lazy var peer: String = socketDescriptor.map(PeerAddress.name(of:)) ?? "-"

    private var socketDescriptor: Int32? {
        let fd = bufferevent_getfd(underlying)
        return fd >= 0 ? fd : nil
    }

    /// The target of a head that could not be parsed, if its request line has one, for the log.
    private static func pathForLog(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let line = bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "))
        guard parts.count >= 2 else { return "" }
        let target = String(decoding: parts[1].prefix(256), as: UTF8.self)
        return String(target.prefix { $0 != "?" })
    }
}
