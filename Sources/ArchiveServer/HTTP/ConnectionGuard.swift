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
/// memory (`replyReservation`) with the connection. Bodies are admitted against `maxBodySize`
/// and the `MemoryBudget` (`BodyReservation`: `ConversionCost.admission` of what has arrived, a
/// step ahead, so a slow body holds only what it has paid for).
///
/// Its socket, filter and timer are a `GuardedSocket`'s: bytes after a request wait in the
/// kernel (the socket is not read past `GuardLimits.heldBytesLimit`), replies are written
/// straight to the socket, and the connection's only timer is the machine's: libevent's own
/// (reset by every byte) are not set.
///
/// A refusal is written straight to the socket (nothing else writes to it then: no request of
/// this connection is with the server), the socket is kept open a moment on a duplicate
/// descriptor so the client can read the answer (`LingeringSockets.linger`), and libevent is
/// told the client went away, so it frees the connection its own way.
///
/// Lifetime: created by the loop's `evhttp_set_bevcb` hook for each accepted socket, retained
/// by the filter and released when libevent frees the filter. Loop thread only.
final class ConnectionGuard {
    unowned let loop: EventLoop
    /// Order of acceptance within the loop; the oldest evictable connection goes first.
    let serial: UInt64
    /// The socket's bufferevent, the filter over it and the connection's timer.
    private var socket: GuardedSocket!
    /// The guard's decisions.
    private var machine: GuardMachine<BodyReservation>
    /// Bytes reserved for the reply being written.
    private var replyReservation: Reservation?

    init(loop: EventLoop, serial: UInt64, underlying: OpaquePointer) {
        self.loop = loop
        self.serial = serial
        let configuration = loop.context.configuration
        machine = GuardMachine(
            limits: GuardLimits(
                timeout: configuration.timeout, headerTimeout: configuration.headerTimeout, maxBodySize: configuration.maxBodySize),
            admission: BodyReservation(budget: loop.context.budget), now: monotonicNanoseconds())
        // The socket is this guard's: its callbacks run only while the guard lives (`detach`).
        socket = GuardedSocket(
            base: loop.base, underlying: underlying, timerFired: { [unowned self] in self.deadlinePassed() },
            writeFailed: { [unowned self] in self.cut() }, isOpen: { [unowned self] in !self.machine.isClosed })
    }

    /// The filter evhttp reads and writes through; nil once libevent freed it.
    var filter: OpaquePointer? { socket.filter }

    /// Completes set-up once the filter exists. False if its events cannot be made.
    func attach(filter: OpaquePointer) -> Bool {
        guard socket.attach(filter: filter) else { return false }
        perform(machine.start())
        return true
    }

    /// libevent is freeing the connection (the filter's context is being freed).
    func detach() {
        socket.detach()
        if machine.detach() { loop.replyAbandoned() }
        replyReservation = nil
    }

    /// The request arriving when the drain began (`requestArriving` then): it is served, and a
    /// drain waits for it; the connection's later requests are answered 503 `shutting-down`.
    var arrivedBeforeDrain = false

    /// A request of this connection has begun and is not yet with the server: part of its head
    /// has arrived, or its head has and its body is arriving. A drain waits for it.
    var requestArriving: Bool {
        machine.requestArriving(unread: socket.unreadBytes, now: monotonicNanoseconds())
    }

    /// How the connection may be closed to make room for another (`Eviction`); nil while a
    /// request of it is with the server.
    var eviction: Eviction? {
        machine.eviction(unread: socket.unreadBytes, now: monotonicNanoseconds())
    }

    /// A reply was handed to libevent and has not been written yet.
    var replyPending: Bool { machine.replyPending }

    /// The head let through last (`GuardMachine.currentHead`).
    var currentHead: RequestHead? { machine.currentHead }

    /// The client's address and port, for access lines.
    var peer: String { socket.peer }

    // MARK: The filter's callbacks

    /// The filter's input side: moves what libevent may see from `source` (the socket's input)
    /// to `destination` (libevent's), as the machine decides. Returns whether anything was
    /// consumed.
    func filterInput(source: OpaquePointer, destination: OpaquePointer) -> bufferevent_filter_result {
        let now = monotonicNanoseconds()
        return socket.filterInput(
            source: source, destination: destination,
            decide: { available, peek in machine.nextStep(available: available, now: now, peek: peek) },
            perform: { perform([$0]) })
    }

    /// The filter's output side (`GuardedSocket.filterOutput`).
    func filterOutput(source: OpaquePointer) -> bufferevent_filter_result {
        socket.filterOutput(source: source)
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
        socket.readAgain()
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
                socket.armTimer(seconds: seconds)
            case .disarmTimer:
                socket.disarmTimer()
            case .refuse(let refusal, let head):
                guard filter != nil else { continue }
                answer(problem(for: refusal, head: head), head: head)
                socket.endConnection()
            case .close(let reason):
                if reason == .replyNotRead { loop.context.logger.info("reply not read in time: closing the connection") }
                socket.endConnection()
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
    /// moment on a duplicate descriptor so the client can read it (`LingeringSockets.linger`),
    /// and records it.
    private func answer(_ problem: Problem, head: RequestHead?) {
        var problem = problem
        if problem.instance == nil, let head { problem.instance = head.path }
        let requestID = RequestID.accepted(head?.requestID) ?? loop.requestIDs.next()
        problem.headers.append(.init(name: "X-Request-Id", value: requestID))
        let response = problem.response()
        if !machine.dispatched, let fd = socket.socketDescriptor {
            if socket.sendNow(response.closingMessage) { loop.lingering.linger(fd) }
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
}
