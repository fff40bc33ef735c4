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

    /// Sent with every reply, whoever writes it: no reply of this service is to be read as
    /// anything but its `Content-Type` (a problem document quoting input is not HTML).
    static let noSniff = Header(name: "X-Content-Type-Options", value: "nosniff")

    /// A small JSON reply made on the loop; like every JSON body the service sends, it ends
    /// with a newline.
    static func json(_ status: Int32, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array((text + "\n").utf8))
    }
}
