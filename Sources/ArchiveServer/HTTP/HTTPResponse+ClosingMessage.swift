import HTTPCore

/// A reply the connection guard writes itself (`ClosingMessage`), with the headers every reply
/// of the service carries.
extension HTTPResponse {
    /// The whole HTTP/1.1 message, closing the connection: `X-Content-Type-Options` first, then
    /// the reply's own headers.
    var closingMessage: [UInt8] {
        ClosingMessage.bytes(
            status: status, contentType: contentType,
            headers: [(Self.noSniff.name, Self.noSniff.value)] + headers.map { ($0.name, $0.value) }, body: body)
    }
}
