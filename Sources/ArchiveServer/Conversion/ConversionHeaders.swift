/// What the loop read from a conversion's request headers for the worker.
struct ConversionHeaders: Sendable {
    /// The request's Content-Type, read only to recognise a `CommonMistake` when it fails.
    var contentType: String?
    /// The body's coding (`Content-Encoding`).
    var bodyCoding: ContentCoding = .identity
    /// The coding the reply may be written in (`Accept-Encoding`).
    var replyCoding: ContentCoding = .identity
}
