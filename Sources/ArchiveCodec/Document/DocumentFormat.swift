/// One kind of document the codec converts — a keyed archive (`KeyedArchive`), a plain property
/// list (`PlainPropertyList`), a typedstream (`TypedStreamDocument`) — as the rest of the codec
/// sees it: every step of a conversion, one verb each, in one conformance per format.
/// `Archive` (any document read from bytes) and `JSONDocument` (any document's JSON) dispatch to
/// it once per step, so that adding a format is one conformance and one entry in
/// `DocumentFormats.all`.
///
/// The steps, from bytes: recognise (`Archive.init(parsing:)` asks `DocumentFormats`), `depth`,
/// `plan`, `write` (and `json`, the whole text with the default options), `summary`,
/// `difference`; and back from JSON: `root(in:)`, `encode`, `stream`.
///
/// Every conformance keeps the codec's contracts: nothing the input declares sizes memory or a
/// loop before it is checked against what the input can hold; no step recurses on the input's
/// nesting but the writers, which recurse at most `plan`'s `depth` levels (the callers check it
/// against their stack first); every pass polls `ConversionDeadline` (an expired deadline ends
/// the pass early and the step throws `timedOut`, or, where a step cannot throw, its caller
/// checks the deadline after it).
protocol DocumentFormat: Sendable {
    /// What the document is, in words: "a keyed archive".
    static var kindName: String { get }
    /// The format a summary of the document names (`ArchiveSummary.format`).
    static var summaryFormat: ArchiveSummary.Format { get }

    /// The key that marks a nested payload of this format in the readable JSON
    /// (docs/mapping.md, "Nested payloads"): `$keyedArchive`, `$propertyList`, `$typedstream`.
    static var payloadKey: StaticString { get }
    /// Whether `decode --nested` writes this format's JSON as the value of `payloadKey` (a
    /// keyed archive, whose own JSON has no mark), rather than as it is (the other formats'
    /// JSON begins with `payloadKey` already).
    static var payloadIsWrapped: Bool { get }
    /// Whether the document is a property list, written as binary or XML (`$format`); a
    /// typedstream has one byte form.
    static var isPropertyList: Bool { get }

    /// Whether the format's JSON holds byte arrays whose length is part of their type (a
    /// typedstream's `[582c]`): a nested payload in one is decoded only when it writes back to
    /// as many bytes.
    static var fixesByteArrayLengths: Bool { get }

    /// The property list format the document was read from (`.binary` for a typedstream).
    var sourceFormat: PlistFormat { get }

    /// Depth of `view`'s JSON with the default options; linear, never recursive.
    func depth(of view: ArchiveView) -> Int

    /// What writing `view` takes, found before any writing (`WritePlan`): its depth, and for a
    /// keyed archive where each object stands. `maxDepth` bounds the nesting: what cannot
    /// fit is refused with `depthBoundTooSmall` and the bound it needs.
    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism) throws(CodecError) -> WritePlan

    /// `plan` for a caller that refuses any nesting past `depthLimit`: the plan's depth may
    /// then be a bound found without a walk of the document — at least its nesting, at most
    /// `depthLimit` — and is exact wherever it passes `depthLimit`, so that the caller's
    /// refusal reads the same either way. (A format without such a bound plans as `plan`.)
    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism, depthLimit: Int) throws(CodecError) -> WritePlan

    /// Writes `view` following `plan` into `sink`, in pieces of about a megabyte; refuses
    /// (`limitExceeded`) past `KeyedArchive.maximumOutputSize(forInputSize:)`, after part of
    /// the text may have gone to `sink`.
    func write(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError)

    /// `view` as JSON text with the default options, whole.
    func json(view: ArchiveView, pretty: Bool) throws(CodecError) -> [UInt8]

    /// What the document holds (`ArchiveSummary`), its payloads handed to `payloads`;
    /// `nesting`: how many payloads the document is nested in.
    func summary(payloads: inout PayloadScan, parallelism: Parallelism, nesting: Int) -> ArchiveSummary

    /// Where this document and `other` first differ (nil: equivalent), named in this one's
    /// readable JSON.
    func difference(from other: Self, plistDatesToWholeSeconds: Bool, payloadNesting: Int) -> DocumentDifference?

    /// The value of `document` that describes a document of this format, when its root says it
    /// is one (`DocumentFormats.all` asks in order; the last format takes any document).
    static func root(in document: JSONDocument) -> JSONDocument.Value?

    /// The value a nested payload's wrapper object `wrapper` describes, `member` being the
    /// value of its `payloadKey`.
    static func payloadRoot(wrapper: JSONDocument.Value, member: JSONDocument.Value) -> JSONDocument.Value

    /// The bytes of the document `root` describes, as `format` (ignored where `isPropertyList`
    /// is false); refused past `limit` bytes.
    static func encode(_ document: JSONDocument, root: JSONDocument.Value, format: PlistFormat, limit: Int) throws(CodecError) -> [UInt8]

    /// The bytes `encode` makes as binary, handed to `sink` in pieces of about a megabyte where
    /// the format can be written so (an error can then come after pieces went out). The
    /// document is the format's to let go once it needs it no more; so the format, not the
    /// caller, makes an `.invalidDocument` refusal the document's `$broken` mark's
    /// (`JSONDocument.brokenMarkRefusal`), as `JSONDocument.encode` does for `encode`.
    static func stream(_ document: consuming JSONDocument, root: JSONDocument.Value, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError)

    /// Bytes an encode holds per value of its JSON document while it builds the document's
    /// bytes: what a server reserves for an encode beside the body (docs/benchmarks.md,
    /// "Memory of the service").
    static var encodingBytesPerValue: Int { get }
}

/// The formats the codec converts, in the order `JSONDocument` asks them whether a document's
/// JSON is theirs (`DocumentFormat.root(in:)`): the formats whose JSON is marked first, the keyed
/// archive, whose JSON is any other document, last.
enum DocumentFormats {
    static let all: [any DocumentFormat.Type] = [TypedStreamDocument.self, PlainPropertyList.self, KeyedArchive.self]

    /// The format whose `payloadKey` is `key`.
    static func marked(by key: (StaticString) -> Bool) -> (any DocumentFormat.Type)? {
        all.first { key($0.payloadKey) }
    }
}

extension DocumentFormat {
    /// A format whose depth is found only by a walk plans exactly whatever the limit.
    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism, depthLimit: Int) throws(CodecError) -> WritePlan {
        try plan(view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: parallelism)
    }

    /// `difference(from:…)` for a document of any format: two of different formats differ at
    /// their root.
    func difference(fromAny other: any DocumentFormat, plistDatesToWholeSeconds: Bool, payloadNesting: Int) -> DocumentDifference? {
        guard let other = other as? Self else {
            return DocumentDifference(path: .root, detail: "\(Self.kindName) ≠ \(type(of: other).kindName)")
        }
        return difference(from: other, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: payloadNesting)
    }
}
