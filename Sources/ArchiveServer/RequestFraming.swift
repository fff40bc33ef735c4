import CLibevent

/// Whether the connection can carry another request after this one (RFC 9112 §6), decided from
/// the request's headers before it is routed.
///
/// libevent 2.1 reads a body by `Content-Length`, or as chunks when `Transfer-Encoding` is exactly
/// `chunked`, and only for methods it expects a body with: it leaves the body of a HEAD, TRACE
/// or unknown-method request in the input, where it would be parsed as the next request (request
/// smuggling), and it frames a body by the first of several `Content-Length`s. (Any other
/// `Transfer-Encoding` it refuses itself, with its own 400.) Every reply follows the rule
/// here, so no byte of one request is ever read as another.
enum RequestFraming: Equatable {
    /// Bytes after this request are the next request.
    case delimited
    /// Answer, then close: the request's body may still be in the input, or its framing was
    /// ambiguous (`Transfer-Encoding: chunked` beside `Content-Length`).
    case closeAfterReply
    /// Answer 400 and close: where the body ends is not certain.
    case invalid(String)

    /// Methods whose body libevent reads (`evhttp_method_may_have_body` in libevent 2.1.12).
    static func bodyIsRead(by method: HTTPMethod) -> Bool {
        switch method {
        case .post, .put, .patch, .get, .delete, .options, .connect: true
        case .head, .trace, .unknown: false
        }
    }

    static func check(method: HTTPMethod, headers: UnsafeMutablePointer<evkeyvalq>?) -> RequestFraming {
        var lengths: [String] = []
        var encodings: [String] = []
        var entry = headers?.pointee.tqh_first
        while let header = entry {
            if let key = header.pointee.key, let value = header.pointee.value {
                let name = String(cString: key)
                if name.lowercased() == "content-length" {
                    lengths.append(String(cString: value).trimmingWhitespace())
                } else if name.lowercased() == "transfer-encoding" {
                    encodings.append(String(cString: value).trimmingWhitespace())
                }
            }
            entry = header.pointee.next.tqe_next
        }
        if lengths.count > 1, Set(lengths).count > 1 {
            return .invalid("The request has \(lengths.count) Content-Length headers with different values (\(lengths.joined(separator: ", "))); send one.")
        }
        let hasBody = !encodings.isEmpty || lengths.contains { $0 != "0" }
        if hasBody, !bodyIsRead(by: method) || !lengths.isEmpty && !encodings.isEmpty {
            return .closeAfterReply
        }
        return .delimited
    }
}
