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

    /// The key that marks a nested property list written as XML: `"$format": "xml"`.
    static let formatKey: StaticString = MappingKeys.format

    /// The document a payload is: its format, with the byte form to write back (`.binary` for
    /// a format that is no property list).
    struct Kind: Equatable {
        let format: any DocumentFormat.Type
        let byteForm: PlistFormat

        /// Levels the payload's own JSON opens below the data value's: one for a format whose
        /// JSON is wrapped (`{"$keyedArchive": …}`); the other formats' documents are their
        /// own wrappers.
        var wrapperLevels: Int { format.payloadIsWrapped ? 1 : 0 }

        static func == (left: Kind, right: Kind) -> Bool {
            ObjectIdentifier(left.format) == ObjectIdentifier(right.format) && left.byteForm == right.byteForm
        }
    }

    /// Whether `prefix`, the first bytes of a value (at least 16 when the value has them), begins
    /// as a document the codec reads (`InputKind`: a binary or XML property list, a
    /// typedstream). A cheap filter before parsing: the parse decides.
    static func mightBeDocument(_ prefix: some Collection<UInt8>) -> Bool {
        switch InputKind(of: prefix) {
        case .binaryPropertyList, .xmlPropertyList, .typedStream: true
        case .json, .jsonWithByteOrderMark, .gzip, .zlib, .unknown: false
        }
    }

    /// `mightBeDocument` on the bytes that base64 text `text` begins with (decoding at most its
    /// first 64 characters).
    static func mightBeDocument(base64 text: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = text.count <= 64 ? text.count : 64
        guard length >= 12 else { return false }
        // Decoded on the stack: asked of every data value of a document.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            let (count, bad) = Base64.decode(UnsafeBufferPointer(rebasing: text[0..<length]), to: buffer.baseAddress)
            return bad == nil && mightBeDocument(UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The document `bytes` hold, read in the readable view, and its kind; nil when they are not
    /// one (the value then stays bytes). `prefixChecked`: `mightBeDocument` said yes to a prefix
    /// of `bytes` already, so it is not asked again (a longer prefix turns none of its yeses
    /// into a no: each is decided by bytes the shorter one holds).
    static func document(_ bytes: [UInt8], prefixChecked: Bool = false) -> (archive: Archive, kind: Kind)? {
        guard prefixChecked || mightBeDocument(bytes.prefix(64)), let archive = try? Archive(parsing: bytes) else { return nil }
        // The kind first: a tuple that read the archive after taking it would take a copy.
        let kind = Kind(format: type(of: archive.document), byteForm: archive.sourceFormat)
        return (archive, kind)
    }
}
