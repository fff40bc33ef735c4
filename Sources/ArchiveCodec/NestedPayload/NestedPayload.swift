/// A data value whose bytes are themselves a document the codec reads: a keyed archive, a plain
/// property list (binary or XML) or a typedstream. Terminal themes hold NSColor archives in
/// `<data>`, iMessage edit histories hold typedstreams in a binary plist, a message's
/// typedstream holds a keyed archive in an NSData. On request (`nested`) the decoders write such
/// a value decoded, in place (docs/mapping.md, "Nested payloads"):
///
///     {"$data": {"$keyedArchive": …}}          a keyed archive (binary)
///     {"$data": {"$propertyList": …}}          a plain property list (binary)
///     {"$data": {"$typedstream": […]}}         a typedstream
///     … "$format": "xml"                        beside the first key, for an XML property list
///
/// and the encoders write the bytes of that document back in its place.
enum NestedPayload {
    /// Payloads inside payloads decode (and encode) this many levels down; deeper ones stay
    /// bytes. No Apple file nests more than three; the bound keeps the encoder, which encodes a
    /// payload from inside the one around it, within a few kilobytes of stack per level.
    static let maximumNesting = 16

    /// The wrapper key of a nested keyed archive: `{"$keyedArchive": <its readable JSON>}`.
    static let keyedArchiveKey: StaticString = "$keyedArchive"
    /// The key that marks a nested property list written as XML: `"$format": "xml"`.
    static let formatKey: StaticString = "$format"

    /// The document kinds a payload can be, with the byte form to write back.
    enum Kind: Equatable {
        case keyedArchive(PlistFormat)
        case propertyList(PlistFormat)
        case typedStream
    }

    /// Whether `prefix`, the first bytes of a value (at least 16 when the value has them), begins
    /// as a document the codec reads: `bplist00`, a typedstream's header, or XML that opens with
    /// `<?xml`, `<!DOCTYPE` or `<plist` (after a byte-order mark and whitespace). A cheap filter
    /// before parsing: the parse decides.
    static func mightBeDocument(_ prefix: some Collection<UInt8>) -> Bool {
        let bytes = Array(prefix)
        if bytes.starts(with: binaryMagic) || TypedStreamDocument.starts(bytes) { return true }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
        let rest = bytes[index...]
        return xmlStarts.contains { rest.starts(with: $0) }
    }

    /// `mightBeDocument` on the bytes that base64 text `text` begins with (decoding at most its
    /// first 64 characters).
    static func mightBeDocument(base64 text: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = text.count <= 64 ? text.count : 64
        guard length >= 12 else { return false }
        let (prefix, bad) = Base64.decode(UnsafeBufferPointer(rebasing: text[0..<length]))
        return bad == nil && mightBeDocument(prefix)
    }

    private static let binaryMagic = Array("bplist00".utf8)
    private static let xmlStarts = [Array("<?xml".utf8), Array("<!DOCTYPE".utf8), Array("<plist".utf8)]

    /// The document `bytes` hold, read in the readable view, and its kind; nil when they are not
    /// one (the value then stays bytes).
    static func document(_ bytes: [UInt8]) -> (archive: Archive, kind: Kind)? {
        guard mightBeDocument(bytes.prefix(64)), let archive = try? Archive(parsing: bytes) else { return nil }
        switch archive.content {
        case .keyedArchive(let keyed): return (archive, .keyedArchive(keyed.sourceFormat))
        case .propertyList(let list): return (archive, .propertyList(list.sourceFormat))
        case .typedStream: return (archive, .typedStream)
        }
    }
}
