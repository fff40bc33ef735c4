import CLibevent

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
/// it the socket's bytes and the time and carries out its `GuardAction`s; the application words
/// its refusals (`HTTPApplication.answer`). A client cut off at its reply's deadline frees what
/// the reply holds (`replyHeld`) with the connection. Bodies are admitted against
/// `GuardLimits.maxBodySize` and the application's `BodyAdmission`.
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
    /// The application's admission as a guard holds it: one concrete type, so that the loop's
    /// guards (reached from libevent's C callbacks) need no generics.
    struct Admission: BodyAdmission {
        var base: any BodyAdmission<AdmissionDenial>

        mutating func begin(_ head: RequestHead, announced: Int) -> AdmissionDenial? { base.begin(head, announced: announced) }
        mutating func received(_ received: Int, upTo total: Int, of head: RequestHead?) -> AdmissionDenial? {
            base.received(received, upTo: total, of: head)
        }
        mutating func chunksAnnounced(_ announced: Int, of head: RequestHead) -> AdmissionDenial? { base.chunksAnnounced(announced, of: head) }
        mutating func release() { base.release() }
        mutating func takeOver() -> (any HeldResources)? { base.takeOver() }
    }

    unowned let loop: EventLoop
    /// Order of acceptance within the loop; the oldest evictable connection goes first.
    let serial: UInt64
    /// The socket's bufferevent, the filter over it and the connection's timer.
    private var socket: GuardedSocket!
    /// The guard's decisions.
    private var machine: GuardMachine<Admission>
    /// What the reply being written holds (`BodyAdmission.takeOver`).
    private var replyHeld: (any HeldResources)?
    /// The reply being written, when it is streamed: cancelled if the connection goes away.
    private var stream: ReplyStream?

    init(loop: EventLoop, serial: UInt64, underlying: OpaquePointer) {
        self.loop = loop
        self.serial = serial
        machine = GuardMachine(
            limits: loop.settings.guardLimits, admission: Admission(base: loop.application.makeAdmission()), now: loop.settings.clock())
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
        replyHeld = nil
        // The worker writing it stops at its next chunk.
        stream?.cancel()
        stream = nil
    }

    /// The request arriving when the drain began (`requestArriving` then): it is served, and a
    /// drain waits for it; the connection's later requests are the application's to turn away.
    var arrivedBeforeDrain = false

    /// A request of this connection has begun and is not yet with the server: part of its head
    /// has arrived, or its head has and its body is arriving. A drain waits for it.
    var requestArriving: Bool {
        machine.requestArriving(unread: socket.unreadBytes, now: loop.settings.clock())
    }

    /// How the connection may be closed to make room for another (`Eviction`); nil while a
    /// request of it is with the server.
    var eviction: Eviction? {
        machine.eviction(unread: socket.unreadBytes, now: loop.settings.clock())
    }

    /// A reply was handed to libevent and has not been written yet.
    var replyPending: Bool { machine.replyPending }

    /// Output the client has not taken yet (`GuardedSocket.outputNotTaken`).
    var outputNotTaken: Int { socket.outputNotTaken }

    /// The head let through last (`GuardMachine.currentHead`).
    var currentHead: RequestHead? { machine.currentHead }

    /// The client's address and port, for access lines.
    var peer: String { socket.peer }

    // MARK: The filter's callbacks

    /// The filter's input side: moves what libevent may see from `source` (the socket's input)
    /// to `destination` (libevent's), as the machine decides. Returns whether anything was
    /// consumed.
    func filterInput(source: OpaquePointer, destination: OpaquePointer) -> bufferevent_filter_result {
        let now = loop.settings.clock()
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

    /// The request let through has reached the handler; takes over what its body holds.
    func dispatch() -> (any HeldResources)? {
        machine.dispatch()
        return machine.admission.takeOver()
    }

    /// A reply of `bytes` bytes was handed to libevent; it holds `held` until written.
    func replySent(bytes: Int, holding held: (any HeldResources)?) {
        replyHeld = held
        perform(machine.replySent(bytes: bytes))
    }

    /// A streamed reply's head was handed to libevent; the reply holds `held` until written
    /// whole (`replyFlushed`). Its chunks follow (`chunkQueued`).
    func streamStarted(_ stream: ReplyStream, holding held: (any HeldResources)?) {
        self.stream = stream
        replyHeld = held
        perform(machine.replyStreamStarted())
    }

    /// A chunk of the streamed reply was handed to libevent; `unwritten` bytes of it are not yet
    /// written (`GuardMachine.chunkQueued`).
    func chunkQueued(unwritten: Int) {
        perform(machine.chunkQueued(unwritten: unwritten))
    }

    /// libevent wrote every chunk queued so far (its chunk callback).
    func streamChunksWritten() {
        stream?.chunksWritten()
        perform(machine.chunksWritten())
    }

    /// The reply has been written: the next request may come through.
    func replyFlushed() {
        arrivedBeforeDrain = false
        replyHeld = nil
        stream?.chunksWritten()
        stream = nil
        perform(machine.replyFlushed(now: loop.settings.clock()))
        // Bytes of the next request may wait in the socket's buffer: run the filter over them.
        socket.readAgain()
    }

    // MARK: Carrying out the machine's actions

    private func deadlinePassed() {
        perform(machine.deadlinePassed())
    }

    /// Carries out actions that do not consume input (those are `filterInput`'s).
    private func perform(_ actions: [GuardMachine<Admission>.Action]) {
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
                answer(.guarded(refusal), head: head)
                socket.endConnection()
            case .close(let reason):
                if reason == .replyNotRead { loop.settings.logger.info("reply not read in time: closing the connection") }
                socket.endConnection()
            }
        }
    }

    // MARK: Refusing and cutting off

    /// Answers `refusal` (unless a reply of this connection is already libevent's to write) and
    /// closes the connection, letting the client read the answer first.
    func refuse(_ refusal: ConnectionRefusal, head: RequestHead?) {
        guard filter != nil, !machine.isClosed else { return }
        answer(refusal, head: head)
        cut()
    }

    /// Has the application answer `refusal` straight on the socket (nothing else writes to it
    /// then: no request of this connection is with the server, `GuardMachine.dispatched`), and
    /// keeps the socket open a moment on a duplicate descriptor so the client can read it
    /// (`LingeringSockets.linger`).
    private func answer(_ refusal: ConnectionRefusal, head: RequestHead?) {
        let requestID = RequestID.accepted(head?.requestID) ?? loop.requestIDs.next()
        guard !machine.dispatched, let fd = socket.socketDescriptor else { return }
        let common = loop.settings.commonHeaders
        loop.application.answer(refusal, head: head, requestID: requestID, peer: peer) { reply in
            if socket.sendNow(reply.closingMessage(common: common)) { loop.lingering.linger(fd) }
        }
    }

    /// Closes the connection without an answer: libevent is told the client went away (from the
    /// loop, not inside this callback) and frees everything the connection holds.
    func cut() {
        guard filter != nil else { return }
        perform(machine.close(.cutOff))
    }
}
