extension JSONDocument {
    /// Builds the property list this document describes (the mapping in docs/mapping.md): a
    /// plain property list for `{"$propertyList": value}`, else a keyed archive; and writes it
    /// as a binary or XML property list. Never recurses on the document's nesting, so any
    /// depth the parser accepts encodes on any stack. Throws `limitExceeded` when the archive
    /// would pass `maximumArchiveSize`, or `limit` when that is lower (a caller with less
    /// memory to spare).
    public func archive(format: PlistFormat, limit: Int? = nil) throws(CodecError) -> [UInt8] {
        try encode(body, format: format, limit: min(limit ?? maximumArchiveSize, maximumArchiveSize))
    }

    /// What a document (or a nested payload's, `NestedPayload`) describes: the value of a plain
    /// property list, the root of a keyed archive's JSON, or a typedstream's root object.
    enum Body {
        case propertyList(Value)
        case keyedArchive(Value)
        case typedStream(Value)
    }

    /// The body of this document, told by its root.
    var body: Body {
        if let stream = typedStreamRoot { return .typedStream(stream) }
        if let value = plainPropertyList { return .propertyList(value) }
        return .keyedArchive(root)
    }

    /// The bytes of `body`: a typedstream as its own bytes, the others as a `format` property
    /// list; refused past `limit` bytes.
    func encode(_ body: Body, format: PlistFormat, limit: Int) throws(CodecError) -> [UInt8] {
        switch (body, format) {
        case (.typedStream(let stream), _):
            let bytes = try TypedStreamJSONEncoder.encode(self, root: stream)
            guard bytes.count <= limit else { throw CodecError(.limitExceeded, "the typedstream would be larger than \(limit) bytes", limit: limit) }
            return bytes
        case (_, .binary):
            let (root, builder) = try build(body, into: BinaryPlistBuilder(limit: limit))
            return builder.finish(root: root)
        case (.propertyList(let value), .xml):
            var encoder = PlainPlistEncoder(document: self, tree: PlistTree())
            let root = try encoder.encode(value)
            return try XMLPlistWriter.write(encoder.tree, root: root, limit: limit)
        case (.keyedArchive(let value), .xml):
            var encoder = ArchiveEncoder(document: self, tree: PlistTree())
            let root = try encoder.encodeDocument(root: value)
            return try XMLPlistWriter.write(encoder.tree, root: root, limit: limit)
        }
    }

    /// The largest archive this document may encode to (`KeyedArchive.maximumOutputSize`):
    /// a few bytes of JSON per object can ask for a hundred bytes of XML each.
    public var maximumArchiveSize: Int { KeyedArchive.maximumOutputSize(forInputSize: source.count) }

    /// Builds the binary archive as `archive(format: .binary)` does, but hands it to `sink`
    /// in pieces of about a megabyte while it is built, so that it never sits in memory
    /// whole. References are then 4 bytes wide whatever the object count (the in-memory
    /// form narrows them). An error can come after pieces went out: what `sink` received
    /// is then incomplete.
    public func writeArchive(to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        let body = body
        if case .typedStream = body {
            let bytes = try archive(format: .binary)
            bytes.withUnsafeBufferPointer { sink($0) }
            return
        }
        let (root, builder) = try build(body, into: BinaryPlistBuilder(sink: sink, limit: maximumArchiveSize))
        _ = builder.finish(root: root)
    }

    /// Encodes the property list of `body` into `builder` and hands it back with the root. The
    /// encoder's own tables (UIDs, shared entries, work lists) are gone when this returns,
    /// before the caller finishes the file; the builder is moved out, so finishing in place
    /// copies nothing.
    private func build(_ body: Body, into builder: BinaryPlistBuilder) throws(CodecError) -> (root: UInt32, builder: BinaryPlistBuilder) {
        var built = BinaryPlistBuilder()
        switch body {
        case .propertyList(let value):
            var encoder = PlainPlistEncoder(document: self, tree: builder)
            let root = try encoder.encode(value)
            swap(&built, &encoder.tree)
            return (root, built)
        case .keyedArchive(let value):
            var encoder = ArchiveEncoder(document: self, tree: builder)
            let root = try encoder.encodeDocument(root: value)
            swap(&built, &encoder.tree)
            return (root, built)
        case .typedStream:
            preconditionFailure("a typedstream is not a property list")
        }
    }

    /// The value of a plain property list's document, `{"$propertyList": value}`; nil for an
    /// archive's.
    var plainPropertyList: Value? { singleMember(root, named: MappingKeys.propertyList)?.value }

    /// The document's root when it is a typedstream's, `{"$typedstream": […], …}`; nil otherwise.
    var typedStreamRoot: Value? {
        guard kind(root) == .object else { return nil }
        var cursor = children(of: root)
        while let member = nextMember(&cursor) {
            if stringEquals(member.key, "$typedstream") { return root }
        }
        return nil
    }

    /// Whether the document describes a typedstream (written as its own bytes, whatever the
    /// property list format asked for).
    public var isTypedStream: Bool { typedStreamRoot != nil }
}
