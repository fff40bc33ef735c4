import Logging

/// What an application plugs into the HTTP core: the handler of every request a connection's
/// guard lets through, the admission of bodies, and the wording of the refusals the core
/// decides. The core (`EventLoop`, its connections and their `ConnectionGuard`s) knows nothing
/// else of the application: no routes, no problem documents, no metrics, no log lines of
/// requests.
///
/// Called on a loop's thread only; with several loops, from several threads at once.
package protocol HTTPApplication: AnyObject, Sendable {
    /// Handles a request that has arrived whole. Answer it with `EventLoop.send`, now or later
    /// (from a worker: `EventLoop.startWork`, then `LoopMessage.finished`).
    func handle(_ request: IncomingRequest, on loop: EventLoop)

    /// The admission of bodies for a connection just accepted.
    func makeAdmission() -> any BodyAdmission<AdmissionDenial>

    /// Answers `refusal` of the request `head` (nil: none had arrived) on a connection about to
    /// close: words it as a reply carrying `requestID`, hands it to `write` (which sends it
    /// straight to the socket, as far as the socket takes it), and records it as the
    /// application records its replies.
    func answer(
        _ refusal: ConnectionRefusal, head: RequestHead?, requestID: String, peer: String, write: (HTTPReply) -> Void)
}

/// An application's reason to refuse a body (`BodyAdmission.Denial` as the core holds it); the
/// application words it when it is answered (`HTTPApplication.answer`).
package struct AdmissionDenial: Sendable {
    package let reason: any Sendable

    package init(_ reason: any Sendable) { self.reason = reason }
}

/// Why the core closes a connection with an answer: the guard's decision, or the loop's own
/// (the connection table is full, the server is draining).
package enum ConnectionRefusal {
    case guarded(GuardRefusal<AdmissionDenial>)
    /// The connection limit is reached and no other connection could make room.
    case connectionLimit(limit: Int)
    /// The server is draining and the request was still arriving a second before its deadline.
    case draining
}

/// What the core needs besides its application: the limits of a connection, the shared
/// connection table, the headers on every reply, the clock and the log.
package struct LoopSettings: Sendable {
    /// The guard's limits (timeouts, largest body).
    package var guardLimits: GuardLimits
    /// The open connections of every loop, against one limit.
    package var connections: ConnectionLimit
    /// Sent with every reply, whoever writes it (evhttp or a guard), before the reply's own.
    package var commonHeaders: [HTTPHeader]
    /// Monotonic nanoseconds.
    package var clock: @Sendable () -> UInt64
    package var logger: Logger

    package init(
        guardLimits: GuardLimits, connections: ConnectionLimit, commonHeaders: [HTTPHeader],
        clock: @escaping @Sendable () -> UInt64, logger: Logger
    ) {
        self.guardLimits = guardLimits
        self.connections = connections
        self.commonHeaders = commonHeaders
        self.clock = clock
        self.logger = logger
    }
}
