extension JSONDocument {
    /// Builds the document this JSON describes (the mapping in docs/mapping.md): a typedstream
    /// for `{"$typedstream": …}`, a plain property list for `{"$propertyList": value}`, else a
    /// keyed archive; and writes it, a property list as binary or XML as `format` says, a
    /// typedstream as its one byte form. Never recurses on the document's nesting, so any
    /// depth the parser accepts encodes on any stack. Throws `limitExceeded` when the archive
    /// would pass `maximumArchiveSize`, or `limit` when that is lower (a caller with less
    /// memory to spare).
    public func archive(format: PlistFormat, limit: Int? = nil) throws(CodecError) -> [UInt8] {
        try encode(body, format: format, limit: min(limit ?? maximumArchiveSize, maximumArchiveSize))
    }

    /// What a document (or a nested payload's, `NestedPayload`) describes: a document of
    /// `format`, whose JSON is `root` — the value of a plain property list, the root of a keyed
    /// archive's JSON, or a typedstream's root object (`DocumentFormat.root(in:)`).
    struct Body {
        let format: any DocumentFormat.Type
        let root: Value
    }

    /// The body of this document, told by its root: the first format of `DocumentFormats.all`
    /// that finds its JSON there (a keyed archive's, the last, takes any document).
    var body: Body {
        for format in DocumentFormats.all {
            if let root = format.root(in: self) { return Body(format: format, root: root) }
        }
        preconditionFailure("the last of DocumentFormats.all takes any document")
    }

    /// The bytes of `body` as a `format` property list (a typedstream as its own bytes);
    /// refused past `limit` bytes.
    /// A document holding a salvaged decode's `$broken` mark is refused as such
    /// (`brokenMarkRefusal`).
    func encode(_ body: Body, format: PlistFormat, limit: Int) throws(CodecError) -> [UInt8] {
        do {
            return try body.format.encode(self, root: body.root, format: format, limit: limit)
        } catch let error where error.kind == .invalidDocument {
            throw brokenMarkRefusal() ?? error
        }
    }

    /// The largest archive this document may encode to (`KeyedArchive.maximumOutputSize`):
    /// a few bytes of JSON per object can ask for a hundred bytes of XML each.
    public var maximumArchiveSize: Int { KeyedArchive.maximumOutputSize(forInputSize: source.count) }

    /// Builds the binary archive as `archive(format: .binary)` does, but hands it to `sink`
    /// in pieces of about a megabyte while it is built, so that it never sits in memory
    /// whole (a typedstream is built whole, then handed over). References are then 4 bytes
    /// wide whatever the object count (the in-memory form narrows them). An error can come
    /// after pieces went out: what `sink` received is then incomplete.
    ///
    /// Consuming: the format may let the document go once it has built what it writes (a
    /// typedstream's model), so a caller that holds no other copy holds its index no longer
    /// while the bytes are written.
    public consuming func writeArchive(to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        let body = body
        let limit = maximumArchiveSize
        try body.format.stream(self, root: body.root, limit: limit, to: sink)
    }

    /// Bytes an encode of this document holds while it builds the bytes, beside the document
    /// itself: its format's `encodingBytesPerValue` for each of its values.
    public var encodingWorkingBytes: Int { valueCount * body.format.encodingBytesPerValue }

    /// The value of a plain property list's document, `{"$propertyList": value}`; nil for an
    /// archive's.
    var plainPropertyList: Value? { singleMember(root, named: MappingKeys.propertyList)?.value }

    /// The document's root when it is a typedstream's, `{"$typedstream": […], …}`; nil otherwise.
    var typedStreamRoot: Value? {
        guard kind(root) == .object else { return nil }
        var cursor = children(of: root)
        while let member = nextMember(&cursor) {
            if stringEquals(member.key, MappingKeys.typedStream) { return root }
        }
        return nil
    }

    /// Whether the document describes a typedstream (written as its own bytes, whatever the
    /// property list format asked for).
    public var isTypedStream: Bool { typedStreamRoot != nil }
}
