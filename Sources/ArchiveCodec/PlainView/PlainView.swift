/// The plain view (docs/mapping.md, "The plain view"): the JSON a person expects of a
/// document, one way. Collections are arrays and objects whatever their class, value objects
/// are their values, a document is its root value; only `$class` (for classes that are not
/// Foundation's values), `$id` and `$ref` remain. It is not read back as the document: `encode`
/// reads it as any hand-written JSON.
///
/// It is made from the lossless view, one mechanism for every format: the lossless text is
/// parsed (`JSONDocument`), its identities indexed (`PlainIdentities`), and the plain text
/// written from it (`PlainWriter`), each pass iterative and linear in the text's size.
public enum PlainView {
    /// Writes the plain view of `document`, a document of the lossless view, into `sink` in
    /// pieces. Throws `limitExceeded` when the text would pass `limit` bytes (what it repeats,
    /// value objects written at every reference, can make it larger than the lossless text),
    /// `invalidDocument` for a `$ref` that names no `$id` or a `$table` (the plain view takes the
    /// lossless view without a nesting bound).
    public static func write(
        _ document: JSONDocument, pretty: Bool, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(CodecError) {
        var output = try render(document, pretty: pretty, limit: limit, sink: sink)
        _ = output.finish()
    }

    /// The plain view of `document` as text (see `write`).
    public static func json(_ document: JSONDocument, pretty: Bool, limit: Int = .max) throws(CodecError) -> [UInt8] {
        var output = try render(document, pretty: pretty, limit: limit, sink: nil)
        return output.finish()
    }

    /// Writes the plain view of one value of `document` (a document of the lossless view)
    /// into `sink`, whole in itself: what the value refers to outside itself is written at its
    /// first reference there (`PlainWriter`), so every `$ref` names an `$id` of the text. Throws
    /// as `write` does.
    static func write(
        _ document: JSONDocument, value: JSONDocument.Value, pretty: Bool, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(CodecError) {
        var output = try render(document, from: value, pretty: pretty, limit: limit, sink: sink)
        _ = output.finish()
    }

    private static func render(
        _ document: JSONDocument, from value: JSONDocument.Value? = nil, pretty: Bool, limit: Int, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?
    ) throws(CodecError) -> JSONOutput {
        let identities = try PlainIdentities(document)
        // The plain text is about as large as the lossless text or smaller (wrappers go).
        let size = value.map { document.sourceRange(of: $0).count } ?? document.source.count
        var output = JSONOutput(pretty: pretty, reserve: min(size, limit), sink: sink)
        output.limit = limit
        var writer: PlainWriter
        if let value, value != document.root {
            writer = PlainWriter(
                document: document, identities: identities, output: output, within: document.sourceRange(of: value), scope: document.identityScope(of: value))
        } else {
            writer = PlainWriter(document: document, identities: identities, output: output)
        }
        try writer.write(from: value)
        output = writer.output
        try output.refuseIfUnfinished(
            CodecError(
                .limitExceeded,
                "the plain view would be larger than \(limit) bytes: it writes a shared string, data or date again at every reference",
                limit: limit))
        return output
    }

    /// Bytes the plain view of a lossless text holds besides the text (an upper bound): the
    /// parsed index (`JSONDocument`: 13 bytes per container, a bit per byte), the identities (an
    /// entry, its hash slot and the writer's state per `$id`) and the writer's stack (`depth`
    /// frames). Counted from the text's brackets and `$` signs, which bound its containers and
    /// identities, in one pass and without parsing.
    public static func workingBytes(losslessText text: UnsafeBufferPointer<UInt8>, depth: Int) -> Int {
        var brackets = 0
        var markers = 0
        var index = 0
        if let base = text.baseAddress {
            let raw = UnsafeRawPointer(base)
            // Eight bytes a step: the bytes equal to each character, counted at once.
            while index + 8 <= text.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                brackets &+= equalBytes(word, UInt8(ascii: "{")) &+ equalBytes(word, UInt8(ascii: "["))
                markers &+= equalBytes(word, MappingKeys.marker)
                index += 8
            }
        }
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { brackets &+= 1 }
            if byte == MappingKeys.marker { markers &+= 1 }
            index += 1
        }
        return brackets * perContainer + markers * perIdentity + text.count / 8 + 64 + (depth + 1) * perFrame
    }

    /// How many of `word`'s eight bytes equal `byte`: a byte of the exclusive or is zero exactly
    /// there, and `((x & low7) + low7 | x | low7)` has its high bit clear exactly at zero bytes
    /// (no carry crosses a byte).
    @inline(__always)
    static func equalBytes(_ word: UInt64, _ byte: UInt8) -> Int {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        let nonZero = ((x & low7) &+ low7) | x | low7
        return (~nonZero).nonzeroBitCount
    }

    static let perContainer = 13
    /// A noted `$id` member (16), an entry (16), a hash slot with its key (48), the writer's
    /// number and flags (6), rounded up.
    static let perIdentity = 96
    static let perFrame = 48
}

extension JSONDocument {
    /// Writes the plain view of the value at `path` of this lossless document (`value(at:)`:
    /// through the mapping's wrappers, `$ref`s followed), whole in itself (`PlainView.write(_:
    /// value:…)`), as JSON text ending with a newline, into `sink` in pieces. A path that leads
    /// nowhere throws its failure; a refusal of the plain view's (`limit`, the deadline) throws
    /// as the failure's `refusal`.
    public func writePlainValue(at path: ReadablePath, pretty: Bool, limit: Int, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(PathFailure) {
        var walk = PathWalk(document: self)
        var value = try value(at: path, walk: &walk)
        // A typedstream group (`{"@": value}`, taken from `$typedstream`'s groups) is its value
        // in the plain view.
        if value == walk.oneRoot, let groups = walk.groups, sourceRange(of: groups).contains(Int(value.offset)), let only = try wrapped(value, walk: &walk) {
            value = only
        }
        do throws(CodecError) {
            try PlainView.write(self, value: value, pretty: pretty, limit: limit, to: sink)
        } catch {
            throw PathFailure(refusal: error)
        }
        // Indented text ends with a newline already (`JSONOutput.finish`).
        if !pretty { [UInt8(ascii: "\n")].withUnsafeBufferPointer { sink($0) } }
    }
}

extension Archive {
    /// The plan of the lossless text the plain view is made from: the readable view, compact,
    /// without a nesting bound or number wrappers; with its payloads decoded in place under
    /// `policy` (`nested`). Its depth bounds the plain view's: the plain view only drops
    /// wrappers and never nests deeper. `depthLimit` as `plan` takes it: the limit the caller
    /// refuses the plain view's depth past.
    public func plainViewPlan(
        parallelism: Parallelism = .serial, nested policy: DecodePolicy? = nil, depthLimit: Int? = nil,
        hold: (_ text: Int, _ reading: [UInt8]?) -> Bool = { _, _ in true }
    ) throws(CodecError) -> WritePlan {
        try plan(view: .readable, pretty: false, parallelism: parallelism, nested: policy, depthLimit: depthLimit, hold: hold)
    }

    /// Writes the plain view into `sink`, following `plan` (`plainViewPlan`): the lossless text
    /// is held whole, then parsed and written plain (`decodedDocument`). `hold` is asked before
    /// that text grows (with its size in bytes) and before it is parsed (with the text and what
    /// the index and the walk hold: `PlainView.workingBytes`); when it refuses, this throws
    /// `limitExceeded`. Without `hold` nothing is asked (nor counted).
    /// The plain text is bounded as the lossless is (`KeyedArchive.maximumOutputSize`).
    public func writePlainJSON(
        pretty: Bool, plan: WritePlan, parallelism: Parallelism = .serial, hold: ((Int) -> Bool)? = nil,
        to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(CodecError) {
        let document = try decodedDocument(view: .readable, plan: plan, parallelism: parallelism, hold: hold) { text in
            PlainView.workingBytes(losslessText: text, depth: plan.depth)
        }
        try PlainView.write(document, pretty: pretty, limit: KeyedArchive.maximumOutputSize(forInputSize: inputSize), to: sink)
    }

    /// The plain view as text, with the default plan (no nested payloads).
    public func plainJSON(pretty: Bool) throws(CodecError) -> [UInt8] {
        let text = CollectedText()
        try writePlainJSON(pretty: pretty, plan: plainViewPlan()) { text.bytes.append(contentsOf: $0) }
        return text.bytes
    }
}

/// Text collected from a sink.
private final class CollectedText {
    var bytes: [UInt8] = []
}
