/// A header of a reply.
package struct HTTPHeader: Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete reply as the wire carries it, built anywhere (often on a worker) and sent on the
/// loop that owns its request (`EventLoop.send`), or written by a guard as a closing message.
package struct HTTPReply: Sendable {
    package var status: Int32
    package var contentType: String
    package var headers: [HTTPHeader]
    package var body: [UInt8]
    /// A large body built in a libevent buffer; used instead of `body` when set.
    package var buffered: EventBuffer?

    package init(status: Int32, contentType: String, headers: [HTTPHeader] = [], body: [UInt8], buffered: EventBuffer? = nil) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.buffered = buffered
    }

    /// Bytes in the body, wherever it is held.
    package var bodyCount: Int { buffered?.count ?? body.count }

    /// The whole HTTP/1.1 message, closing the connection (`ClosingMessage`): `common` first,
    /// then the reply's own headers. Only for a reply whose body is in `body`.
    package func closingMessage(common: [HTTPHeader]) -> [UInt8] {
        ClosingMessage.bytes(status: status, contentType: contentType, headers: (common + headers).map { ($0.name, $0.value) }, body: body)
    }
}
