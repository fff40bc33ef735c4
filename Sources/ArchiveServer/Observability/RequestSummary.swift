import HTTPCore

/// What a request is, as its access line names it: known once its head is read, whether it is
/// answered by the handler or refused by the connection guard.
struct RequestSummary: Sendable {
    var method: HTTPMethod
    var path: String
    /// The query string as sent, when there is one.
    var query: String?
    var route: Route?
    /// The peer's address and port.
    var client: String
    /// Sent back in `X-Request-Id`.
    var requestID: String
}
