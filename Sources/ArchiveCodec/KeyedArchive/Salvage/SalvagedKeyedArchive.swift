/// A keyed archive read for salvage (`KeyedArchiveSalvage`): the repaired archive, whose
/// readable view is written with each placeholder replaced by its `$broken` mark
/// (`BrokenTokenFilter`). Only the readable view is salvaged: every other step is the repaired
/// archive's (salvage takes no summary, nested payloads or comparison: the callers refuse
/// them first).
///
/// The plan's depth is the repaired archive's plus three (a mark nests three levels where its
/// placeholder string nested none): a bound, at most three levels more than the document's
/// nesting. The plan never cuts the view between two writers: the filter takes the text in
/// order.
struct SalvagedKeyedArchive: DocumentFormat {
    let archive: KeyedArchive
    /// Every mark (each marked entry or reference once).
    let marks: [BinaryPlistSalvage.Mark]
    /// Per placeholder (the index its text names), its mark's index in `marks`.
    let placeholderMarks: [Int32]
    let token: BrokenToken
    /// How many marks the readable view holds (each shared one once).
    let breaks: Int

    static var kindName: String { KeyedArchive.kindName }
    static var summaryFormat: ArchiveSummary.Format { KeyedArchive.summaryFormat }
    static var payloadKey: StaticString { KeyedArchive.payloadKey }
    static var payloadIsWrapped: Bool { KeyedArchive.payloadIsWrapped }
    static var isPropertyList: Bool { KeyedArchive.isPropertyList }
    static var fixesByteArrayLengths: Bool { KeyedArchive.fixesByteArrayLengths }
    static var encodingBytesPerValue: Int { KeyedArchive.encodingBytesPerValue }

    var sourceFormat: PlistFormat { archive.sourceFormat }

    func depth(of view: ArchiveView) -> Int { archive.depth(of: view) + (view == .readable ? 3 : 0) }

    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism) throws(CodecError) -> WritePlan {
        let plan = try archive.plan(view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: .serial)
        var bounded = WritePlan(depth: plan.depth + (view == .readable ? 3 : 0), placement: plan.placement, cut: nil, numbers: plan.numbers)
        bounded.accounts = plan.accounts
        return bounded
    }

    func write(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        guard view == .readable else { return try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: .serial, to: sink) }
        let filter = BrokenTokenFilter(
            token: token, marks: marks, placeholderMarks: placeholderMarks, pretty: pretty, limit: KeyedArchive.maximumOutputSize(forInputSize: archive.plist.bytes.count), sink: sink)
        try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: .serial) { filter.feed($0) }
        try filter.finish()
    }

    func json(view: ArchiveView, pretty: Bool) throws(CodecError) -> [UInt8] {
        let plan = try plan(view: view, pretty: pretty, maxDepth: nil, numbers: .nonFinite, parallelism: .serial)
        var text: [UInt8] = []
        try write(view: view, pretty: pretty, plan: plan, parallelism: .serial) { text.append(contentsOf: $0) }
        return text
    }

    func summary(payloads: inout PayloadScan, parallelism: Parallelism, nesting: Int) -> ArchiveSummary {
        archive.summary(payloads: &payloads, parallelism: parallelism, nesting: nesting)
    }

    func difference(from other: SalvagedKeyedArchive, plistDatesToWholeSeconds: Bool, payloadNesting: Int) -> DocumentDifference? {
        archive.difference(from: other.archive, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: payloadNesting)
    }

    static func root(in document: JSONDocument) -> JSONDocument.Value? { KeyedArchive.root(in: document) }

    static func payloadRoot(wrapper: JSONDocument.Value, member: JSONDocument.Value) -> JSONDocument.Value {
        KeyedArchive.payloadRoot(wrapper: wrapper, member: member)
    }

    static func encode(_ document: JSONDocument, root: JSONDocument.Value, format: PlistFormat, limit: Int) throws(CodecError) -> [UInt8] {
        try KeyedArchive.encode(document, root: root, format: format, limit: limit)
    }

    static func stream(_ document: consuming JSONDocument, root: JSONDocument.Value, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        try KeyedArchive.stream(document, root: root, limit: limit, to: sink)
    }
}
