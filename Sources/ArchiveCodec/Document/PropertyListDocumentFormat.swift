/// The formats that are property lists — a keyed archive and a plain property list — encoded
/// the same way: the format builds the property list its JSON describes into a tree, which is
/// written as a binary property list (streamed as it is built, or whole) or as XML.
protocol PropertyListDocumentFormat: DocumentFormat {
    /// Encodes the property list `root` describes into `tree` and hands the tree back with the
    /// property list's root. The encoder's own tables (UIDs, shared entries, work lists) are
    /// gone when this returns, so the caller holds the only reference to the tree and
    /// finishing it in place copies nothing. Never recurses on the document's nesting.
    static func build<Tree: PlistBuilding>(_ document: JSONDocument, root: JSONDocument.Value, into tree: Tree) throws(CodecError) -> (root: UInt32, tree: Tree)
}

extension PropertyListDocumentFormat {
    static var isPropertyList: Bool { true }
    static var fixesByteArrayLengths: Bool { false }

    static func encode(_ document: JSONDocument, root: JSONDocument.Value, format: PlistFormat, limit: Int) throws(CodecError) -> [UInt8] {
        switch format {
        case .binary:
            let (top, builder) = try build(document, root: root, into: BinaryPlistBuilder(limit: limit))
            return builder.finish(root: top)
        case .xml:
            let (top, tree) = try build(document, root: root, into: PlistTree())
            return try XMLPlistWriter.write(tree, root: top, limit: limit)
        }
    }

    static func stream(_ document: consuming JSONDocument, root: JSONDocument.Value, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        // Written as it is built: the document is needed to the end.
        let built: (root: UInt32, tree: BinaryPlistBuilder)
        do {
            built = try build(document, root: root, into: BinaryPlistBuilder(sink: sink, limit: limit))
        } catch let error where error.kind == .invalidDocument {
            throw document.brokenMarkRefusal() ?? error
        }
        _ = built.tree.finish(root: built.root)
    }

    /// An encode holds about this much per JSON value: the document's index, the object table
    /// and the property list tree; fitted to a document of empty arrays encoded to XML, where
    /// the text's size says nothing of it (docs/benchmarks.md, "Memory of the service").
    static var encodingBytesPerValue: Int { 200 }
}
