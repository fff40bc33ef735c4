/// An RFC 9457 problem document, as JSON text: what the service sends with every 4xx and 5xx
/// reply and what `archive-tool decode --ndjson` writes for a file it cannot convert, so that
/// both word a failure alike. `type` is `urn:archive-service:problem:<slug>`; the slugs are
/// listed in docs/service.md and are stable, so clients can switch on them.
package struct ProblemDocument: Sendable {
    package static let typePrefix = "urn:archive-service:problem:"

    package var slug: String
    package var title: String
    /// The HTTP status the service answers it with; nil where there is no reply (a file the
    /// tool could not read).
    package var status: Int32?
    package var detail: String
    package var instance: String?
    package var offset: Int?
    package var uid: Int?
    package var jsonPath: String?
    package var depth: Int?
    package var found: Int?
    package var limit: Int?

    package init(
        slug: String, title: String, status: Int32?, detail: String, instance: String? = nil, offset: Int? = nil, uid: Int? = nil, jsonPath: String? = nil,
        depth: Int? = nil, found: Int? = nil, limit: Int? = nil
    ) {
        (self.slug, self.title, self.status, self.detail, self.instance) = (slug, title, status, detail, instance)
        (self.offset, self.uid, self.jsonPath, self.depth, self.found, self.limit) = (offset, uid, jsonPath, depth, found, limit)
    }

    /// The problem a codec error is answered with; `remedy` is the error's remedy in the front
    /// end's own knobs (a query parameter, a flag), appended to the message.
    package init(_ error: CodecError, remedy: String, instance: String?) {
        let (slug, title, status) = Self.type(of: error.kind)
        self.init(
            slug: slug, title: title, status: status, detail: error.message + remedy, instance: instance, offset: error.byteOffset, uid: error.uid,
            jsonPath: error.jsonPath, found: error.found, limit: error.limit)
    }

    /// Unreadable input is 400; input that parses but is not a valid archive or archive
    /// document is 422; input beyond one of the codec's own size or nesting limits is 413.
    package static func type(of kind: CodecError.Kind) -> (slug: String, title: String, status: Int32) {
        switch kind {
        case .malformedPlist: ("malformed-plist", "Malformed property list", 400)
        case .malformedTypedStream: ("malformed-typedstream", "Malformed typedstream", 400)
        case .malformedJSON: ("malformed-json", "Malformed JSON", 400)
        case .notKeyedArchive: ("not-keyed-archive", "Not a keyed archive", 422)
        case .invalidArchive: ("invalid-archive", "Invalid keyed archive", 422)
        case .invalidDocument: ("invalid-document", "Invalid archive document", 422)
        case .limitExceeded: ("limit-exceeded", "Input exceeds a codec limit", 413)
        case .depthBoundTooSmall: ("max-depth-too-small", "maxDepth too small for this archive", 422)
        case .timedOut: ("conversion-timeout", "Conversion timed out", 503)
        }
    }

    /// The document on one line, without a newline. The detail and the instance quote what a
    /// client sent (a path, a key, a header): at most a few hundred bytes of it.
    package var json: String {
        var text = "{\"type\":\(JSONString.quoted(Self.typePrefix + slug)),\"title\":\(JSONString.quoted(title))"
        if let status { text += ",\"status\":\(status)" }
        text += ",\"detail\":\(JSONString.quoted(TextExcerpt.of(detail)))"
        if let instance { text += ",\"instance\":\(JSONString.quoted(TextExcerpt.of(instance)))" }
        if let offset { text += ",\"offset\":\(offset)" }
        if let uid { text += ",\"uid\":\(uid)" }
        if let jsonPath { text += ",\"jsonPath\":\(JSONString.quoted(TextExcerpt.of(jsonPath)))" }
        if let depth { text += ",\"depth\":\(depth)" }
        if let found { text += ",\"found\":\(found)" }
        if let limit { text += ",\"limit\":\(limit)" }
        return text + "}"
    }
}
