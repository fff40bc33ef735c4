/// The wire form of the replies a connection guard writes itself, before evhttp has a request to
/// answer (evhttp serialises every other reply): the one place the service writes an HTTP/1.1
/// status line and headers. The message closes the connection (`Connection: close`) and states
/// its length.
package enum ClosingMessage {
    /// The whole HTTP/1.1 message: the status line, `Content-Type`, `Content-Length`,
    /// `Connection: close`, then `headers` in order, then `body`.
    package static func bytes(
        status: Int32, contentType: String, headers: [(name: String, value: String)], body: [UInt8]
    ) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        text += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// The reason phrase of the statuses a guard answers with.
    package static func reasonPhrase(_ status: Int32) -> String {
        switch status {
        case 400: "Bad Request"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 417: "Expectation Failed"
        case 431: "Request Header Fields Too Large"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }
}
