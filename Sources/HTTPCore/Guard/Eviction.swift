/// How a connection may be closed to make room for another (docs/service.md, "Memory and
/// connections are bounded"): `idle` between requests with nothing of a head received (closed
/// without a word), `partialHead` part way through a head, `body` with its body arriving at
/// `bytesPerSecond` (both answered 503); a connection with a request at the server has none.
/// They go in that order, bodies slowest first: what holds a connection while sending least
/// makes room first; an idle connection that has just opened or just had its reply (`fresh`,
/// under `GuardLimits.freshIdleNanos`) goes last, as it has had no time to send.
package enum Eviction: Equatable, Sendable {
    case idle(fresh: Bool)
    case partialHead
    case body(bytesPerSecond: Int)

    /// Orders candidates: the smaller goes first.
    package var rank: (Int, Int) {
        switch self {
        case .idle(let fresh): fresh ? (3, 0) : (0, 0)
        case .partialHead: (1, 0)
        case .body(let rate): (2, rate)
        }
    }
}
