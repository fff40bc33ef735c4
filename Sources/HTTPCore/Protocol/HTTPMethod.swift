package enum HTTPMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
    case head = "HEAD"
    case put = "PUT"
    case delete = "DELETE"
    case options = "OPTIONS"
    case trace = "TRACE"
    case connect = "CONNECT"
    case patch = "PATCH"
    case unknown = "UNKNOWN"
}

extension HTTPMethod {
    /// The method named by a request line (`.unknown` for any libevent 2.1 does not know).
    package init(text: String) {
        self = HTTPMethod(rawValue: text) ?? .unknown
    }

    /// Whether libevent 2.1 reads a body for this method (`evhttp_method_may_have_body`); the body
    /// of any other is left unread, where it would be taken for the next request.
    package var bodyIsReadByLibevent: Bool {
        switch self {
        case .post, .put, .patch, .get, .delete, .options, .connect: true
        case .head, .trace, .unknown: false
        }
    }
}
