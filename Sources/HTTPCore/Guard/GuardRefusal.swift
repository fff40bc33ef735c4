/// Why a connection guard refuses a request and closes the connection. The application words
/// each one (status, problem document); the guard only decides.
package enum GuardRefusal<Denial> {
    /// No end of the head within `limit` bytes (431).
    case headTooLarge(limit: Int)
    /// The head could not be accepted; `path` is its target's path when the request line has
    /// one, for the log.
    case badHead(RequestHead.Refusal, path: String)
    /// A body of `size` bytes, announced or counted from its chunks, is over `limit` (413).
    case bodyTooLarge(size: Int, limit: Int)
    /// A chunked body's framing is malformed (400).
    case badChunk(detail: String)
    /// The head did not arrive within `seconds` (408).
    case headerTimeout(seconds: Int)
    /// The body did not arrive within its allowance (408).
    case bodyTimeout
    /// The application's `BodyAdmission` did not admit the body.
    case denied(Denial)
}

extension GuardRefusal: Equatable where Denial: Equatable {}
