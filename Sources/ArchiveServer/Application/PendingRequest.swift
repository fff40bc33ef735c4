import HTTPCore

/// A request accepted by a loop and waiting for its reply, carried through a worker and back.
struct PendingRequest: Sendable {
    /// Where the reply goes (the HTTP core's).
    let handle: ReplyHandle
    var summary: RequestSummary
    let startNanos: UInt64
    var bytesIn = 0
    /// The request's share of the memory budget, from admission until its reply is written.
    var reservation: Reservation?
}
