/// A typedstream as one of the codec's formats: one view (its readable JSON is also its raw
/// one), one byte form, nothing moved by a nesting bound.
extension TypedStreamDocument: DocumentFormat {
    static var kindName: String { "a typedstream" }
    static var summaryFormat: ArchiveSummary.Format { .typedStream }
    static var payloadKey: StaticString { MappingKeys.typedStream }
    static var payloadIsWrapped: Bool { false }
    static var isPropertyList: Bool { false }
    static var fixesByteArrayLengths: Bool { true }

    /// A typedstream is no property list; its bytes are its own, `.binary` stands for them.
    var sourceFormat: PlistFormat { .binary }

    func depth(of view: ArchiveView) -> Int { depth(numbers: .nonFinite) }

    /// When the stream's `depthBound` is within `depthLimit` (and `maxDepth`), that bound:
    /// the walk that measures the exact nesting (a fifth of a decode) is left out. Past it,
    /// the exact plan.
    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism, depthLimit: Int) throws(CodecError) -> WritePlan {
        if depthBound <= min(depthLimit, maxDepth ?? .max) { return WritePlan(depth: depthBound, placement: nil, cut: nil, numbers: numbers) }
        return try plan(view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: parallelism)
    }

    /// A `maxDepth` below its nesting is refused with the bound it needs.
    func plan(view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism) throws(CodecError) -> WritePlan {
        let depth = depth(numbers: numbers)
        if let maxDepth, depth > maxDepth {
            throw CodecError(
                .depthBoundTooSmall, "a nesting bound of \(maxDepth) is too small for this typedstream: it nests \(depth) levels",
                found: depth, limit: maxDepth, remedy: .nestingBound(depth))
        }
        return WritePlan(depth: depth, placement: nil, cut: nil, numbers: numbers)
    }

    func write(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        _ = try render(pretty: pretty, numbers: plan.numbers, sink: sink)
    }

    func json(view: ArchiveView, pretty: Bool) throws(CodecError) -> [UInt8] {
        try render(pretty: pretty, numbers: .nonFinite, sink: nil)
    }

    /// The stream's counts; a document that is no payload also gets its nesting (a payload's is
    /// not measured: the summary's nesting is the outer document's).
    func summary(payloads: inout PayloadScan, parallelism: Parallelism, nesting: Int) -> ArchiveSummary {
        var summary = stream.summary(payloads: &payloads)
        if nesting == 0 {
            summary.readableNesting = depth(numbers: .nonFinite)
            summary.rawNesting = summary.readableNesting
        }
        return summary
    }

    /// As `TypedStreamEquivalence` says.
    func difference(from other: TypedStreamDocument, plistDatesToWholeSeconds: Bool, payloadNesting: Int) -> DocumentDifference? {
        TypedStreamEquivalence.difference(stream, other.stream, payloadNesting: payloadNesting)
    }

    /// `{"$typedstream": […], …}`: the whole object (its other members are the stream's header).
    static func root(in document: JSONDocument) -> JSONDocument.Value? { document.typedStreamRoot }

    static func payloadRoot(wrapper: JSONDocument.Value, member: JSONDocument.Value) -> JSONDocument.Value { wrapper }

    /// The stream's bytes, whatever `format` asks (a typedstream has one byte form).
    static func encode(_ document: JSONDocument, root: JSONDocument.Value, format: PlistFormat, limit: Int) throws(CodecError) -> [UInt8] {
        let bytes = try TypedStreamJSONEncoder.encode(document, root: root)
        guard bytes.count <= limit else { throw tooLarge(limit) }
        return bytes
    }

    private static func tooLarge(_ limit: Int) -> CodecError {
        CodecError(.limitExceeded, "the typedstream would be larger than \(limit) bytes", limit: limit)
    }

    /// Built whole, then handed to `sink` in pieces of `JSONOutput.drainSize` from the
    /// writer's own buffer: a sink that copies what it is given (into a pipe to a file) holds
    /// a piece or a few at a time, not a second copy of the stream. The document goes before
    /// the stream is written (`TypedStreamJSONEncoder.encode(releasing:root:lending:)`).
    static func stream(_ document: consuming JSONDocument, root: JSONDocument.Value, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        try TypedStreamJSONEncoder.encode(releasing: document, root: root) { (bytes) throws(CodecError) in
            guard bytes.count <= limit else { throw Self.tooLarge(limit) }
            bytes.forEachPiece(of: JSONOutput.drainSize, sink)
        }
    }

    /// The builder's values and objects as their arrays grow, and the stream it writes. The
    /// densest shape is a readable
    /// NSDictionary, five stream values per JSON value: measured at about 250 bytes a value on
    /// one of a million and of two million keys (docs/benchmarks.md, "Memory of the service").
    static var encodingBytesPerValue: Int { 300 }
}
