/// What other threads post to an event loop (`EventLoop.post`); the loop handles it on its thread.
package enum LoopMessage: Sendable {
    /// Work begun with `EventLoop.startWork` has finished: `then` runs on the loop (it sends
    /// the reply), and the loop counts the work done.
    case finished(then: @Sendable (EventLoop) -> Void)
    /// `action` runs on the loop, as a step of work begun with `EventLoop.startWork` that does
    /// not end it (a chunk of a streamed reply, `ReplyStream`).
    case perform(@Sendable (EventLoop) -> Void)
    /// Stop accepting, answer what is in flight, then exit the loop; give up at `deadline`.
    case drain(deadline: UInt64)
    /// Exit the loop now, whatever is still in flight.
    case exitNow
}
