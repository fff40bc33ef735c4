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
/// HTML; the guard lets the server decide before any of that happens. The decisions are its
/// `GuardMachine`'s (heads read first, bodies admitted by their head, one request at a time,
/// deadlines on the whole head, body and reply; its documentation has them); this class feeds
/// it the socket's bytes and the time and carries out its `GuardAction`s, and words its
/// refusals as problem documents. A client cut off at its reply's deadline frees the reply's
/// memory (`replyReservation`) with the connection. Bodies are admitted against `maxBodySize` and the
/// `MemoryBudget` (`BodyReservation`: `ConversionCost.admission` of what has arrived, a step
/// ahead, so a slow body holds only what it has paid for).
///
/// Bytes after a request wait in the kernel: the socket is not read past
/// `GuardLimits.heldBytesLimit`. The connection's only timers are the machine's: libevent's own
/// (reset by every byte) are not set.
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
/// descriptor so the client can read the answer (`LingeringSockets.linger`), and libevent is told the
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
    /// The guard's decisions.
    private var machine: GuardMachine<BodyReservation>
    /// Bytes reserved for the reply being written.
    private var replyReservation: Reservation?

    init(loop: EventLoop, serial: UInt64, underlying: OpaquePointer) {
        self.loop = loop
        self.serial = serial
        self.underlying = underlying
        let configuration = loop.context.configuration
        machine = GuardMachine(
            limits: GuardLimits(
                timeout: configuration.timeout, headerTimeout: configuration.headerTimeout, maxBodySize: configuration.maxBodySize),
            admission: BodyReservation(budget: loop.context.budget), now: monotonicNanoseconds())
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
        bufferevent_setwatermark(underlying, Int16(EV_READ), 0, GuardLimits.heldBytesLimit)
        evbuffer_add_cb(
            bufferevent_get_output(filter),
            { _, info, raw in
                guard let info, info.pointee.n_added > 0 else { return }
                Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().outputQueued()
            }, me)
        guard timer != nil, flushEvent != nil else { return false }
        perform(machine.start())
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
        if machine.detach() { loop.replyAbandoned() }
        replyReservation = nil
        filter = nil
    }

    /// The request arriving when the drain began (`requestArriving` then): it is served, and a
    /// drain waits for it; the connection's later requests are answered 503 `shutting-down`.
    var arrivedBeforeDrain = false

    /// A request of this connection has begun and is not yet with the server: part of its head
    /// has arrived, or its head has and its body is arriving. A drain waits for it.
    var requestArriving: Bool {
        machine.requestArriving(unread: unreadBytes, now: monotonicNanoseconds())
    }

    /// How the connection may be closed to make room for another (`Eviction`); nil while a
    /// request of it is with the server.
    var eviction: Eviction? {
        machine.eviction(unread: unreadBytes, now: monotonicNanoseconds())
    }

    /// A reply was handed to libevent and has not been written yet.
    var replyPending: Bool { machine.replyPending }

    /// The head let through last (`GuardMachine.currentHead`).
    var currentHead: RequestHead? { machine.currentHead }

    /// Bytes in the socket's buffer the filter has not run over yet.
    private var unreadBytes: Int { evbuffer_get_length(bufferevent_get_input(underlying)) }

    // MARK: Input

    /// The filter callback: moves what libevent may see from `source` (the socket's input) to
    /// `destination` (libevent's). Returns whether anything was consumed.
    func filterInput(source: OpaquePointer, destination: OpaquePointer) -> bufferevent_filter_result {
        var progressed = false
        let now = monotonicNanoseconds()
        while true {
            let available = evbuffer_get_length(source)
            let actions = machine.nextStep(available: available, now: now) { count in
                UnsafeRawBufferPointer(start: evbuffer_pullup(source, count), count: count)
            }
            if actions.isEmpty { break }
            for action in actions {
                switch action {
                case .pass(let count):
                    evbuffer_remove_buffer(source, destination, count)
                    progressed = true
                case .drop(let count):
                    evbuffer_drain(source, count)
                    progressed = true
                default:
                    perform([action])
                }
            }
        }
        return progressed ? BEV_OK : BEV_NEED_MORE
    }

    // MARK: Output

    private func outputQueued() {
        if let flushEvent { event_active(flushEvent, EV_WRITE, 0) }
    }

    /// Runs the filter's output side, if libevent still owns the connection (after
    /// `bufferevent_free` its callbacks are cleared; the memory lives until `detach`).
    private func flushOutput() {
        guard let filter, !machine.isClosed else { return }
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

    // MARK: Requests and replies (called by the handler)

    /// The request let through has reached the handler; takes over its reservation.
    func dispatch() -> Reservation? {
        machine.dispatch()
        return machine.admission.takeOver()
    }

    /// A reply of `bytes` bytes was handed to libevent; it holds `reservation` until written.
    func replySent(bytes: Int, reservation: Reservation?) {
        replyReservation = reservation
        perform(machine.replySent(bytes: bytes))
    }

    /// The reply has been written: the next request may come through.
    func replyFlushed() {
        arrivedBeforeDrain = false
        replyReservation = nil
        perform(machine.replyFlushed(now: monotonicNanoseconds()))
        // Bytes of the next request may wait in the socket's buffer: run the filter over them.
        if unreadBytes > 0 {
            bufferevent_trigger(
                underlying, Int16(EV_READ),
                Int32(BEV_TRIG_IGNORE_WATERMARKS.rawValue | BEV_TRIG_DEFER_CALLBACKS.rawValue))
        }
    }

    // MARK: Carrying out the machine's actions

    private func deadlinePassed() {
        perform(machine.deadlinePassed())
    }

    /// Carries out actions that do not consume input (those are `filterInput`'s).
    private func perform(_ actions: [GuardMachine<BodyReservation>.Action]) {
        for action in actions {
            switch action {
            case .pass, .drop:
                assertionFailure("input is consumed by filterInput alone")
            case .armTimer(let seconds):
                guard let timer else { continue }
                var interval = timeval(tv_sec: seconds, tv_usec: 0)
                event_add(timer, &interval)
            case .disarmTimer:
                if let timer { event_del(timer) }
            case .refuse(let refusal, let head):
                guard filter != nil else { continue }
                answer(problem(for: refusal, head: head), head: head)
                endConnection()
            case .close(let reason):
                if reason == .replyNotRead { loop.context.logger.info("reply not read in time: closing the connection") }
                endConnection()
            }
        }
    }

    /// The problem document that words `refusal`.
    private func problem(for refusal: GuardRefusal<Problem>, head: RequestHead?) -> Problem {
        let path = head?.path ?? ""
        switch refusal {
        case .headTooLarge(let limit): return Problem.headTooLarge(limit: limit)
        case .badHead(let error, let path): return Problem(error, path: path)
        case .bodyTooLarge(let size, let limit): return Problem.bodyTooLarge(size: size, limit: limit, path: path)
        case .badChunk(let detail): return Problem.badRequest(detail, path: path)
        case .headerTimeout(let seconds): return Problem.headerTimeout(seconds: seconds)
        case .bodyTimeout: return Problem.bodyTimeout(path: path)
        case .denied(let problem): return problem
        }
    }

    // MARK: Refusing and cutting off

    /// Answers `problem` (unless a reply of this connection is already libevent's to write) and
    /// closes the connection, letting the client read the answer first.
    func refuse(_ problem: Problem, head: RequestHead?) {
        guard filter != nil, !machine.isClosed else { return }
        answer(problem, head: head)
        cut()
    }

    /// Writes `problem` straight to the socket (nothing else writes to it then: no request of
    /// this connection is with the server, `GuardMachine.dispatched`), keeps the socket open a
    /// moment on a duplicate descriptor so the client can read it (`LingeringSockets.linger`), and
    /// records it.
    private func answer(_ problem: Problem, head: RequestHead?) {
        var problem = problem
        if problem.instance == nil, let head { problem.instance = head.path }
        let requestID = RequestID.accepted(head?.requestID) ?? loop.requestIDs.next()
        problem.headers.append(.init(name: "X-Request-Id", value: requestID))
        let response = problem.response()
        if !machine.dispatched, let fd = socketDescriptor {
            let bytes = response.closingMessage
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if written == bytes.count { loop.lingering.linger(fd) }
            let path = head?.path ?? problem.instance ?? ""
            let summary = RequestSummary(
                method: head?.method ?? .unknown, path: path, query: head?.query, route: Route(path: path),
                client: peer, requestID: requestID)
            loop.context.record(response, for: summary, bytesIn: 0)
        }
    }

    /// Closes the connection without an answer: libevent is told the client went away (from the
    /// loop, not inside this callback) and frees everything the connection holds.
    func cut() {
        guard filter != nil else { return }
        perform(machine.close(.cutOff))
    }

    /// Tells libevent the client went away, once the machine has closed.
    private func endConnection() {
        guard let filter else { return }
        bufferevent_trigger_event(filter, Int16(BEV_EVENT_EOF | BEV_EVENT_READING), Int32(BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    /// The client's address and port, for access lines: asked of the socket once per connection.
    private(set) lazy var peer: String = socketDescriptor.map(PeerAddress.name(of:)) ?? "-"

    private var socketDescriptor: Int32? {
        let fd = bufferevent_getfd(underlying)
        return fd >= 0 ? fd : nil
    }
}
