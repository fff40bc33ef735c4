/// A complete reply, built anywhere (often on a worker) and sent on the event loop that owns the request.
struct HTTPResponse: Sendable {
    struct Header: Sendable {
        var name: String
        var value: String
    }

    var status: Int32
    var contentType: String
    var headers: [Header] = []
    var body: [UInt8]
    /// A large conversion's reply, written straight into a libevent buffer; used instead of
    /// `body` when set.
    var buffered: ReplyBuffer? = nil
    /// Set when the request was refused (not converted), for the rejection metrics.
    var rejection: RejectionReason? = nil
    /// The problem document's slug, for the access line.
    var problem: String? = nil

    init(status: Int32, contentType: String, headers: [Header] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    init(status: Int32, contentType: String, buffered: ReplyBuffer) {
        self.init(status: status, contentType: contentType, body: [])
        self.buffered = buffered
    }

    /// Bytes in the body, wherever it is held.
    var bodyCount: Int { buffered?.count ?? body.count }

    /// Marks the body as written in `coding` (`Content-Encoding`, unless identity), and as one
    /// whose coding follows the request's `Accept-Encoding` (`Vary`, so caches keep the codings
    /// apart).
    mutating func setCoding(_ coding: ContentCoding) {
        headers.append(Header(name: "Vary", value: "Accept-Encoding"))
        if coding != .identity { headers.append(Header(name: "Content-Encoding", value: coding.rawValue)) }
    }

    static func json(_ status: Int32, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(text.utf8))
    }
}

/// Minimal JSON text output for the documents the server writes itself (problems, probes).
enum JSONText {
    /// `value` as a JSON string literal, quotes included.
    static func quoted(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }
}
