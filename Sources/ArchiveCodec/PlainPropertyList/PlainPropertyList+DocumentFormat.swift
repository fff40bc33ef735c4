/// A plain property list as one of the codec's formats: nothing moves when its nesting is
/// bounded, so its plan is its depth (with its data values' accounts left out first when they
/// alone pass the bound).
extension PlainPropertyList: PropertyListDocumentFormat {
    static var kindName: String { "a plain property list" }
    static var summaryFormat: ArchiveSummary.Format { .propertyList }
    static var payloadKey: StaticString { MappingKeys.propertyList }
    static var payloadIsWrapped: Bool { false }

    func depth(of view: ArchiveView) -> Int {
        view == .raw ? rawDepth : readableDepth(numbers: .nonFinite)
    }

    /// The raw view's depth; with marks, a bound: a mark nests deeper than any leaf.
    private var rawDepth: Int { marks == nil ? plist.rawDepth : plist.rawDepth + Self.markHeight }

    /// A `maxDepth` below its nesting is refused with the bound it needs.
    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism) throws(CodecError) -> WritePlan {
        var depth = view == .raw ? rawDepth : readableDepth(numbers: numbers)
        var accounts = true
        if view == .readable, let maxDepth, depth > maxDepth {
            // Too deep: the data values' accounts left out (bytes alone) first.
            depth = readableDepth(numbers: numbers, accounts: false)
            accounts = false
        }
        if view == .readable, let maxDepth, depth > maxDepth {
            throw CodecError(
                .depthBoundTooSmall, "a nesting bound of \(maxDepth) is too small for this property list: it nests \(depth) levels, and only an archive's objects can move to a $table",
                found: depth, limit: maxDepth, remedy: .nestingBound(depth))
        }
        var plan = WritePlan(depth: depth, placement: nil, cut: nil, numbers: numbers)
        plan.accounts = accounts
        return plan
    }

    func write(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        _ = try render(view: view, pretty: pretty, numbers: plan.numbers, accounts: plan.accounts, sink: sink)
    }

    func json(view: ArchiveView, pretty: Bool) throws(CodecError) -> [UInt8] {
        try render(view: view, pretty: pretty, numbers: .nonFinite, sink: nil)
    }

    func summary(payloads: inout PayloadScan, parallelism: Parallelism, nesting: Int) -> ArchiveSummary {
        summary(payloads: &payloads)
    }

    /// Value for value, dictionaries as sets of keys (`PlainPlistEquivalence`).
    func difference(from other: PlainPropertyList, plistDatesToWholeSeconds: Bool, payloadNesting: Int) -> DocumentDifference? {
        PlainPlistEquivalence.difference(plist, other.plist, wholeSecondDates: plistDatesToWholeSeconds, payloadNesting: payloadNesting)
    }

    /// `{"$propertyList": value}`: the value.
    static func root(in document: JSONDocument) -> JSONDocument.Value? { document.plainPropertyList }

    static func payloadRoot(wrapper: JSONDocument.Value, member: JSONDocument.Value) -> JSONDocument.Value { member }

    static func build<Tree: PlistBuilding>(_ document: JSONDocument, root: JSONDocument.Value, into tree: Tree) throws(CodecError) -> (root: UInt32, tree: Tree) {
        var encoder = PlainPlistEncoder(document: document, tree: tree)
        // A plist value per JSON value, and a string per key: room for them at once (a
        // nested payload's tree grew from empty, reallocated on the way).
        encoder.tree.reserve(values: 2 * document.valueCount, bytes: document.source.count)
        let top = try encoder.encode(root)
        return (top, encoder.tree)
    }
}
