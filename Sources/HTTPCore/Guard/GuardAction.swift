/// What a connection guard's shell carries out for its `GuardMachine`, in the order given.
package enum GuardAction<Denial> {
    /// Let the first `count` bytes of the socket's input through to the HTTP parser.
    case pass(Int)
    /// Discard the first `count` bytes of the socket's input: blank lines before a request line,
    /// a body libevent would not read, everything after a refusal.
    case drop(Int)
    /// Start (or restart) the connection's one timer, to fire `seconds` from now
    /// (`GuardMachine.deadlinePassed`).
    case armTimer(seconds: Int)
    /// Stop the connection's timer.
    case disarmTimer
    /// Answer the refusal (unless a reply of the connection is already the parser's to write,
    /// `GuardMachine.dispatched`) and close the connection. `head` is the request refused, when
    /// its head was read.
    case refuse(GuardRefusal<Denial>, head: RequestHead?)
    /// Close the connection without an answer.
    case close(GuardCloseReason)
}

/// Why a connection is closed without an answer.
package enum GuardCloseReason: Sendable, Equatable {
    /// Idle between requests past the timeout.
    case idle
    /// The client did not read its reply within the reply's allowance.
    case replyNotRead
    /// The shell cut it off: a write to the socket failed, or it makes room for another
    /// connection.
    case cutOff
}

extension GuardAction: Equatable where Denial: Equatable {}
