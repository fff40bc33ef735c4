/// Every failure the codec reports. Nothing else is ever thrown by `ArchiveCodec`.
///
/// A `CodecError` always says what is wrong (`message`) and, when it is known, where:
/// the byte offset in the input, the `$objects` index (UID) of the archive, or a JSON path
/// such as `$.players[3].name` in the request document. The message and the path quote at most
/// a few hundred bytes of the input (`TextExcerpt`).
public struct CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The bytes are not a readable property list (truncated, lying trailer or offsets,
        /// bad XML, invalid UTF-8, a container that contains itself, …).
        case malformedPlist
        /// The bytes are not a readable typedstream (NSArchiver's `streamtyped` format):
        /// truncated, an unknown tag or type code, a reference to nothing, a version Apple never
        /// wrote, …
        case malformedTypedStream
        /// A well-formed property list that is not an NSKeyedArchiver archive.
        case notKeyedArchive
        /// A keyed archive whose object graph is broken (UID out of range, `$class` that is not
        /// a class, mismatched `NS.keys`/`NS.objects`, …).
        case invalidArchive
        /// The request is not valid JSON.
        case malformedJSON
        /// Valid JSON that does not follow the archive mapping.
        case invalidDocument
        /// The input is nested deeper, or would expand larger, than the codec allows.
        case limitExceeded
        /// The nesting bound asked for (`maxDepth`) is below what the archive needs even with
        /// its deepest objects in the top-level table; `found` is a bound that fits.
        case depthBoundTooSmall
        /// The conversion ran past the deadline its caller set (`ConversionDeadline`) and was
        /// stopped.
        case timedOut
    }

    public let kind: Kind
    public let message: String
    public let byteOffset: Int?
    public let uid: Int?
    public let jsonPath: String?
    /// For `limitExceeded`: the depth or size found and the limit it broke.
    public let found: Int?
    public let limit: Int?
    /// What the caller can ask for instead, in the codec's terms; each front end words it in
    /// its own knobs (a query parameter, a command-line flag). nil: nothing to suggest.
    public let remedy: Remedy?

    /// A different request that succeeds where this one failed.
    public enum Remedy: Sendable, Equatable {
        /// The raw view (the property list as it is, UIDs marked) shows what the readable
        /// view cannot.
        case rawView
        /// A nesting bound this deep fits the archive (for `depthBoundTooSmall`).
        case nestingBound(Int)
        /// Asking to leave out what a salvaged decode marked `$broken`
        /// (`JSONDocument.droppingBroken`) encodes the rest.
        case dropBroken
    }

    public init(
        _ kind: Kind, _ message: String, byteOffset: Int? = nil, uid: Int? = nil,
        jsonPath: String? = nil, found: Int? = nil, limit: Int? = nil, remedy: Remedy? = nil
    ) {
        self.kind = kind
        // Messages and paths quote the input, which may be of any length.
        self.message = TextExcerpt.of(message)
        self.byteOffset = byteOffset
        self.uid = uid
        self.jsonPath = jsonPath.map(TextExcerpt.of)
        self.found = found
        self.limit = limit
        self.remedy = remedy
    }

    /// The same error without `byteOffset`, for offsets that do not point into the caller's input.
    func droppingByteOffset() -> CodecError {
        CodecError(kind, message, uid: uid, jsonPath: jsonPath, found: found, limit: limit, remedy: remedy)
    }

    /// The error in words for a person: what kind of failure, what is wrong, and where.
    public var description: String {
        var text = "\(kind.summary): \(message)"
        if let byteOffset { text += " (at byte \(byteOffset))" }
        if let uid { text += " (UID \(uid))" }
        if let jsonPath { text += " (at \(jsonPath))" }
        return text
    }
}

extension CodecError.Kind {
    /// The kind of failure in a few words, as a person reads it (the raw value is for code).
    public var summary: String {
        switch self {
        case .malformedPlist: "not a readable property list"
        case .malformedTypedStream: "not a readable typedstream"
        case .notKeyedArchive: "not a keyed archive"
        case .invalidArchive: "broken keyed archive"
        case .malformedJSON: "not valid JSON"
        case .invalidDocument: "JSON that does not follow the archive mapping"
        case .limitExceeded: "over a limit"
        case .depthBoundTooSmall: "nesting bound too small"
        case .timedOut: "stopped at its time limit"
        }
    }
}
