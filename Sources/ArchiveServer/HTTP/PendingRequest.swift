import HTTPCore

/// A pointer to a libevent request, carried through a worker and back. Only the loop thread that
/// received the request ever dereferences it; workers just hand it back.
struct RequestHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// A request accepted by a loop and waiting for its reply.
struct PendingRequest: Sendable {
    let handle: RequestHandle
    var summary: RequestSummary
    let startNanos: UInt64
    var bytesIn = 0
    /// The request's share of the memory budget, from admission until its reply is written.
    var reservation: Reservation?
    /// The client asked to close the connection after this reply (`RequestHead.closeRequested`).
    var closeAfterReply = false
}
