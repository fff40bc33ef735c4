extension JSONDocument {
    /// Builds the property list this document describes (the mapping in docs/mapping.md): a
    /// plain property list for `{"$propertyList": value}`, else a keyed archive; and writes it
    /// as a binary or XML property list. Never recurses on the document's nesting, so any
    /// depth the parser accepts encodes on any stack. Throws `limitExceeded` when the archive
    /// would pass `maximumArchiveSize`, or `limit` when that is lower (a caller with less
    /// memory to spare).
    public func archive(format: PlistFormat, limit: Int? = nil) throws(CodecError) -> [UInt8] {
        let limit = min(limit ?? maximumArchiveSize, maximumArchiveSize)
        if let stream = typedStreamRoot {
            let bytes = try TypedStreamJSONEncoder.encode(self, root: stream)
            guard bytes.count <= limit else { throw CodecError(.limitExceeded, "the typedstream would be larger than \(limit) bytes", limit: limit) }
            return bytes
        }
        switch format {
        case .binary:
            let (root, builder) = try build(into: BinaryPlistBuilder(limit: limit))
            return builder.finish(root: root)
        case .xml:
            if let value = plainPropertyList {
                var encoder = PlainPlistEncoder(document: self, tree: PlistTree())
                let root = try encoder.encode(value)
                return try XMLPlistWriter.write(encoder.tree, root: root, limit: limit)
            }
            var encoder = ArchiveEncoder(document: self, tree: PlistTree())
            let root = try encoder.encodeDocument()
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
        if typedStreamRoot != nil {
            let bytes = try archive(format: .binary)
            bytes.withUnsafeBufferPointer { sink($0) }
            return
        }
        let (root, builder) = try build(into: BinaryPlistBuilder(sink: sink, limit: maximumArchiveSize))
        _ = builder.finish(root: root)
    }

    /// Encodes into `builder` and hands it back with the root. The encoder's own tables
    /// (UIDs, shared entries, work lists) are gone when this returns, before the caller
    /// finishes the file; the builder is moved out, so finishing in place copies nothing.
    private func build(into builder: BinaryPlistBuilder) throws(CodecError) -> (root: UInt32, builder: BinaryPlistBuilder) {
        if let value = plainPropertyList {
            var encoder = PlainPlistEncoder(document: self, tree: builder)
            let root = try encoder.encode(value)
            var built = BinaryPlistBuilder()
            swap(&built, &encoder.tree)
            return (root, built)
        }
        var encoder = ArchiveEncoder(document: self, tree: builder)
        let root = try encoder.encodeDocument()
        var built = BinaryPlistBuilder()
        swap(&built, &encoder.tree)
        return (root, built)
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
