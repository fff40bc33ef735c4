import HTTPCore

/// A reply as the service makes it: the wire form the HTTP core sends (`HTTPReply`) and what the
/// service records of it (why it was refused, its problem's slug). Built anywhere (often on a
/// worker) and sent on the event loop that owns the request (`ArchiveApplication.send`).
struct HTTPResponse: Sendable {
    typealias Header = HTTPHeader

    /// What goes on the wire.
    var reply: HTTPReply
    /// Set when the request was refused (not converted), for the rejection metrics.
    var rejection: RejectionReason? = nil
    /// The problem document's slug, for the access line.
    var problem: String? = nil
    /// A salvaged decode's count of `$broken` marks (its `Archive-Salvaged` header), for the
    /// metrics; 0 for every other reply.
    var salvagedBreaks = 0

    init(status: Int32, contentType: String, headers: [Header] = [], body: [UInt8]) {
        reply = HTTPReply(status: status, contentType: contentType, headers: headers, body: body)
    }

    /// A reply whose body is `buffered`'s.
    init(status: Int32, contentType: String, buffered: ReplyBuffer) {
        reply = HTTPReply(status: status, contentType: contentType, body: [], buffered: buffered.events)
    }

    var status: Int32 { reply.status }
    var contentType: String { reply.contentType }
    var headers: [Header] {
        get { reply.headers }
        set { reply.headers = newValue }
    }
    var body: [UInt8] { reply.body }

    /// Bytes in the body, wherever it is held.
    var bodyCount: Int { reply.bodyCount }

    /// Marks the body as written in `coding` (`Content-Encoding`, unless identity), and as one
    /// whose coding follows the request's `Accept-Encoding` (`Vary`, so caches keep the codings
    /// apart).
    mutating func setCoding(_ coding: ContentCoding) {
        headers.append(Header(name: "Vary", value: "Accept-Encoding"))
        if coding != .identity { headers.append(Header(name: "Content-Encoding", value: coding.rawValue)) }
    }

    /// Sent with every reply, whoever writes it (`LoopSettings.commonHeaders`): no reply of this
    /// service is to be read as anything but its `Content-Type` (a problem document quoting
    /// input is not HTML).
    static let noSniff = Header(name: "X-Content-Type-Options", value: "nosniff")

    /// A small JSON reply made on the loop; like every JSON body the service sends, it ends
    /// with a newline.
    static func json(_ status: Int32, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array((text + "\n").utf8))
    }
}
