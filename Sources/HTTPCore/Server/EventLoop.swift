import CLibevent
import Logging
import PThreads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libevent event base with its own `evhttp` and listening socket, run by one thread: the
/// HTTP core's server. It accepts connections, puts a `ConnectionGuard` under each, hands every
/// request that arrives whole to its `HTTPApplication`, writes the replies, and drains: the
/// application decides nothing here but what a request gets.
///
/// Invariant: every evhttp object of this loop is touched only on the loop's thread. Other threads
/// reach the loop only through `post(_:)`, which queues a message and wakes the loop with
/// `event_active` on a user event (libevent's thread-safe wake-up once `evthread_use_pthreads` ran).
package final class EventLoop: @unchecked Sendable {
    package let index: Int
    let base: OpaquePointer
    /// Nil once `closeConnections()` ran.
    var http: OpaquePointer!
    let settings: LoopSettings
    let application: any HTTPApplication
    var boundSocket: OpaquePointer?
    var wakeEvent: OpaquePointer!
    private var drainTimer: OpaquePointer?
    private var signalEvents: [OpaquePointer] = []
    /// Called on this loop's thread when SIGTERM or SIGINT arrives (only on the loop owning signals).
    package var onSignal: ((Int32) -> Void)?

    private let mailboxMutex = PThreadMutex()
    private var mailbox: [LoopMessage] = []  // guarded by mailboxMutex
    private var spareMailbox: [LoopMessage] = []  // loop thread only

    // Loop-thread state (also used by the extensions, on the loop thread only).
    /// Work begun by `startWork` and not yet `finished`.
    var workInFlight = 0
    var repliesUnflushed = 0
    /// Ids for requests that came without a usable `X-Request-Id`.
    var requestIDs: RequestIDGenerator
    /// Whether a drain has begun on this loop.
    package private(set) var draining = false
    private var drainDeadline: UInt64 = 0
    /// The wait for replies still being written once no work is left.
    private var flushGrace = FlushGrace()
    private var exiting = false
    var acceptPauseTimer: OpaquePointer?
    var lastAcceptErrorLog: UInt64 = 0
    /// The guard of every open connection, by its bufferevent (`Connections.swift`).
    var guards: [OpaquePointer: ConnectionGuard] = [:]
    var nextConnectionSerial: UInt64 = 0
    /// Refused sockets still open for their clients.
    let lingering: LingeringSockets
    var laterActions: [() -> Void] = []

    /// libevent 2.1's type for a request method it does not recognise (`EVHTTP_REQ_UNKNOWN_`).
    static let unknownMethodBit: UInt16 = 1 << 15

    /// How long before the drain's deadline the requests still arriving are answered 503, so
    /// that their clients read the answer before the process exits.
    private static let arrivalCutoffNanos: UInt64 = 1_000_000_000
    /// Whether the requests still arriving have been answered (`answerArrivingRequests`).
    private var arrivalsAnswered = false

    /// Whether libevent uses pthread locks, which it must be told once, before any event base
    /// exists, or `event_active` from a worker thread would race with the loop. Read it before
    /// making the first loop.
    package static let threadsEnabled: Bool = evthread_use_pthreads() == 0

    /// The libevent version linked, for build information.
    package static var libeventVersion: String { String(cString: event_get_version()) }

    var unmanagedSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ raw: UnsafeMutableRawPointer?) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(raw!).takeUnretainedValue()
    }

    /// A loop answering through `application`. Its index numbers its request ids and its log lines.
    package init(index: Int, settings: LoopSettings, application: any HTTPApplication) throws(LoopError) {
        self.index = index
        requestIDs = RequestIDGenerator(loop: index)
        self.settings = settings
        self.application = application
        guard let base = event_base_new() else { throw LoopError("event_base_new failed") }
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            throw LoopError("evhttp_new failed")
        }
        self.base = base
        self.http = http
        lingering = LingeringSockets(base: base, clock: settings.clock)
        // No evhttp timeouts: the connection guard keeps every deadline (`ConnectionGuard`).
        evhttp_set_max_body_size(http, settings.guardLimits.maxBodySize)
        // The connection guard refuses longer heads first (431, as a problem document).
        evhttp_set_max_headers_size(http, 2 * GuardLimits.maximumHeadSize)
        // Let every method through so that the application, not libevent, answers 405 with Allow and a
        // problem document. Bit 15 is libevent 2.1's internal EVHTTP_REQ_UNKNOWN_ (http-internal.h):
        // without it, a method libevent does not know (QUERY, PROPFIND, …) gets libevent's HTML 501.
        let allMethods = [
            EVHTTP_REQ_GET, EVHTTP_REQ_POST, EVHTTP_REQ_HEAD, EVHTTP_REQ_PUT, EVHTTP_REQ_DELETE,
            EVHTTP_REQ_OPTIONS, EVHTTP_REQ_TRACE, EVHTTP_REQ_CONNECT, EVHTTP_REQ_PATCH
        ]
        evhttp_set_allowed_methods(http, UInt16(allMethods.reduce(0) { $0 | $1.rawValue }) | Self.unknownMethodBit)
        // Read an oversized body to its end before answering 413, so the client sees the reply
        // instead of a connection reset.
        _ = evhttp_set_flags(http, EVHTTP_SERVER_LINGERING_CLOSE)
        evhttp_set_gencb(
            http,
            { request, raw in
                guard let request else { return }
                EventLoop.from(raw).received(request)
            }, unmanagedSelf)
        guard
            let wake = event_new(
                base, -1, 0,
                { _, _, raw in
                    EventLoop.from(raw).processMailbox()
                }, unmanagedSelf)
        else {
            evhttp_free(http)
            event_base_free(base)
            throw LoopError("event_new failed for the wake-up event")
        }
        wakeEvent = wake
        installConnectionGuards()
    }

    /// Makes SIGTERM and SIGINT call `onSignal` on this loop, and `ignoredSignals` do nothing
    /// but leave a log line. Call before `run()`.
    package func handleSignals() throws(LoopError) {
        for signal in [SIGTERM, SIGINT] + Self.ignoredSignals {
            guard
                let event = event_new(
                    base, signal, Int16(EV_SIGNAL | EV_PERSIST),
                    { signal, _, raw in
                        let loop = EventLoop.from(raw)
                        guard !EventLoop.ignoredSignals.contains(signal) else {
                            return loop.settings.logger.notice("signal \(signal) ignored: SIGTERM or SIGINT drains and stops the service")
                        }
                        loop.onSignal?(signal)
                    }, unmanagedSelf), event_add(event, nil) == 0
            else {
                throw LoopError("cannot install the handler for signal \(signal)")
            }
            signalEvents.append(event)
        }
    }

    /// Signals whose default action ends the process without a word, and which a supervisor or
    /// an operator sends by habit (SIGHUP to reload, SIGUSR1/SIGUSR2 to reopen logs, a stray
    /// SIGALRM): the service has no use for them, so it logs them and runs on.
    package static let ignoredSignals: [Int32] = [SIGHUP, SIGUSR1, SIGUSR2, SIGALRM]

    // MARK: Running

    /// Runs the loop on the calling thread until a drain completes or `exitNow` arrives.
    package func run() {
        let rc = event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        if rc < 0 { settings.logger.error("event loop \(index) stopped with an error") }
    }

    /// Closes the listener and every connection, abandoning requests still unanswered. Only after
    /// `run()` returned. Workers may still `post`: the wake-up event outlives this.
    package func closeConnections() {
        guard let http else { return }
        evhttp_free(http)
        self.http = nil
    }

    /// Frees every remaining libevent object of this loop. Only once no worker can post any more.
    package func teardown() {
        EventLoop.registry.unregister(self)
        if let acceptPauseTimer { event_free(acceptPauseTimer) }
        acceptPauseTimer = nil
        closeConnections()
        lingering.endAll()
        for event in signalEvents { event_free(event) }
        signalEvents.removeAll()
        if let drainTimer { event_free(drainTimer) }
        drainTimer = nil
        event_free(wakeEvent)
        event_base_free(base)
    }

    /// Queues a message for the loop thread. Safe from any thread.
    package func post(_ message: LoopMessage) {
        mailboxMutex.lock()
        mailbox.append(message)
        let wasEmpty = mailbox.count == 1
        mailboxMutex.unlock()
        // One wake-up per batch: the loop takes the whole mailbox each time it wakes.
        if wasEmpty { event_active(wakeEvent, EV_READ, 0) }
    }

    private func processMailbox() {
        runLaterActions()
        mailboxMutex.withLock { swap(&mailbox, &spareMailbox) }
        for message in spareMailbox {
            switch message {
            case .finished(let then):
                workInFlight -= 1
                then(self)
            case .perform(let action):
                action(self)
            case .drain(let deadline):
                beginDrain(deadline: deadline)
            case .exitNow:
                exit(reason: "forced")
            }
        }
        spareMailbox.removeAll(keepingCapacity: true)
        runLaterActions()
        checkDrained()
    }

    // MARK: Draining

    private func beginDrain(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        for connection in guards.values where connection.requestArriving { connection.arrivedBeforeDrain = true }
        if let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)
            self.boundSocket = nil
        }
        if let acceptPauseTimer {
            event_free(acceptPauseTimer)
            self.acceptPauseTimer = nil
        }
        // A periodic check bounds the drain even if nothing else happens on this loop.
        if let timer = event_new(
            base, -1, Int16(EV_PERSIST),
            { _, _, raw in
                EventLoop.from(raw).checkDrained()
            }, unmanagedSelf)
        {
            var interval = timeval(tv_sec: 0, tv_usec: 10_000)
            if event_add(timer, &interval) == 0 {
                drainTimer = timer
            } else {
                event_free(timer)
            }
        }
        if drainTimer == nil {
            settings.logger.error("event loop \(index) could not arm its drain timer; exiting without waiting")
            exit(reason: "no drain timer")
        }
    }

    /// A drain ends when every request that started has its reply written: work in
    /// flight, and requests whose head or body is still arriving (they finish and are answered,
    /// or, a second before the deadline, are refused `.draining`).
    func checkDrained() {
        guard draining, !exiting else { return }
        let now = settings.clock()
        let arriving = guards.values.contains { $0.requestArriving }
        if arriving, !arrivalsAnswered, now + Self.arrivalCutoffNanos >= drainDeadline {
            answerArrivingRequests()
            return
        }
        if workInFlight == 0, !arriving {
            if repliesUnflushed == 0 { return exit(reason: "drained") }
            if flushGrace.expired(now: now, notTaken: outputNotTaken()) {
                return exit(reason: "drained; \(repliesUnflushed) replies still unflushed")
            }
        }
        if now >= drainDeadline {
            settings.logger.warning(
                "drain timeout: abandoning requests still in flight",
                metadata: [
                    "loop": .stringConvertible(index), "in_flight": .stringConvertible(workInFlight)
                ])
            exit(reason: "drain timeout")
        }
    }

    /// The output of the replies still being written that their clients have not taken.
    private func outputNotTaken() -> Int {
        guards.values.reduce(0) { $0 + ($1.replyPending ? $1.outputNotTaken : 0) }
    }

    /// Answers every request still arriving with the application's `.draining` refusal
    /// (Connection: close).
    private func answerArrivingRequests() {
        arrivalsAnswered = true
        let arriving = guards.values.filter { $0.requestArriving }
        settings.logger.notice("drain: answering \(arriving.count) requests still arriving", metadata: ["loop": .stringConvertible(index)])
        for connection in arriving {
            connection.refuse(.draining, head: connection.currentHead)
        }
    }

    private func exit(reason: String) {
        guard !exiting else { return }
        exiting = true
        settings.logger.debug("event loop \(index) exiting: \(reason)")
        event_base_loopexit(base, nil)
    }
}
