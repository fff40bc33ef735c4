/// What other threads post to an event loop (`EventLoop.post`); the loop handles it on its thread.
enum LoopMessage: Sendable {
    /// A worker finished a conversion.
    case completed(PendingRequest, HTTPResponse)
    /// Stop accepting, answer what is in flight, then exit the loop; give up at `deadline`.
    case drain(deadline: UInt64)
    /// Exit the loop now, whatever is still in flight.
    case exitNow
}
