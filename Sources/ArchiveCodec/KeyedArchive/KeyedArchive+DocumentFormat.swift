/// A keyed archive as one of the codec's formats: `depth(of:)`, `plan` and `json` are its own
/// (KeyedArchive.swift, WritePlan.swift), the rest says which of its passes each step is.
extension KeyedArchive: PropertyListDocumentFormat {
    static var kindName: String { "a keyed archive" }
    static var summaryFormat: ArchiveSummary.Format { .keyedArchive }
    static var payloadKey: StaticString { MappingKeys.keyedArchive }
    static var payloadIsWrapped: Bool { true }

    func write(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        try writeJSON(view: view, pretty: pretty, plan: plan, parallelism: parallelism, to: sink)
    }

    func summary(payloads: inout PayloadScan, parallelism: Parallelism, nesting: Int) -> ArchiveSummary {
        summary(payloads: &payloads, parallelism: parallelism)
    }

    func difference(from other: KeyedArchive, plistDatesToWholeSeconds: Bool, payloadNesting: Int) -> DocumentDifference? {
        documentDifference(from: other, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: payloadNesting)
    }

    /// Any document not marked as another format's is an archive's JSON.
    static func root(in document: JSONDocument) -> JSONDocument.Value? { document.root }

    static func payloadRoot(wrapper: JSONDocument.Value, member: JSONDocument.Value) -> JSONDocument.Value { member }

    static func build<Tree: PlistBuilding>(_ document: JSONDocument, root: JSONDocument.Value, into tree: Tree) throws(CodecError) -> (root: UInt32, tree: Tree) {
        var encoder = ArchiveEncoder(document: document, tree: tree)
        let top = try encoder.encodeDocument(root: root)
        return (top, encoder.tree)
    }
}
