/// What a connection's bodies are admitted against besides the body size limit (the
/// application's memory budget, say), asked by `GuardMachine` at three moments: when a head
/// announces a body, as its bytes arrive, and when a chunk is announced. Each answer is nil to
/// admit or a `Denial`, which the machine turns into a refusal (`GuardRefusal.denied`).
///
/// Called on the loop thread only, and never for a body the guard drops (one libevent leaves
/// unread: HEAD, TRACE, unknown methods).
package protocol BodyAdmission<Denial> {
    /// Why a body was refused, in the application's words.
    associatedtype Denial

    /// A head whose body libevent reads has passed the size limit; `announced` is its
    /// `Content-Length`, 0 for a chunked body. Nil admits it before a byte of the body is read;
    /// what it needs is held only as its bytes arrive (`received`).
    mutating func begin(_ head: RequestHead, announced: Int) -> Denial?

    /// `received` bytes of the body of `head` have arrived, of a body that will have `total` at
    /// most (its length, or the chunk sizes announced so far). Nil when what they need is held.
    mutating func received(_ received: Int, upTo total: Int, of head: RequestHead?) -> Denial?

    /// The chunks of the body of `head` announced so far total `announced` bytes, within the
    /// size limit. Nil admits the last one.
    mutating func chunksAnnounced(_ announced: Int, of head: RequestHead) -> Denial?

    /// The connection was refused or cut off: what the body held is let go.
    mutating func release()

    /// The request has reached the handler: what its body holds, which the request holds from
    /// now on (until its reply is written); nil when nothing is held.
    mutating func takeOver() -> (any HeldResources)?
}

/// What a request holds of the application's (its share of a memory budget, say) from the
/// moment it reaches the handler until its reply is written or dropped; the core only keeps it
/// alive that long, and lets it go then.
package protocol HeldResources: AnyObject, Sendable {}
