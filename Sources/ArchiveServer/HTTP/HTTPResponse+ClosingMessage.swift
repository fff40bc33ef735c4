/// The wire form of the replies the connection guard writes itself, before evhttp has a
/// request to answer (evhttp serialises every other reply): the one place this service writes
/// an HTTP/1.1 status line and headers.
extension HTTPResponse {
    /// The whole HTTP/1.1 message, closing the connection.
    var closingMessage: [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        text += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        text += "\(Self.noSniff.name): \(Self.noSniff.value)\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// The reason phrase of the statuses the guard answers with.
    static func reasonPhrase(_ status: Int32) -> String {
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
