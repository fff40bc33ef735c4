/// The readable JSON of a document with its nested payloads (`NestedPayload`) written decoded
/// in place, recursively.
///
/// Planned whole before a byte is written: the outer document's JSON is rendered, its data
/// values found (`DataValueScan`), each payload read, planned under what is left of `maxDepth`
/// and rendered, and so on down; the depth and size of the whole document are then known, and
/// front ends check that depth as they check any plan's (`DecodePolicy`). Every part is
/// rendered on its own, from the bottom of the caller's stack: the recursion of a part's writer
/// is its own depth, never more than the whole document's. Payloads are worked through with a
/// list, not by recursion.
///
/// Memory: the parts' texts are held until written, about the size of the output once more.
public struct NestedExpansion: Sendable {
    /// One document's JSON, rendered as if it stood alone (indented from level 0), and the
    /// data values in it that payloads replace.
    struct Part: Sendable {
        var text: [UInt8]
        /// The level in the whole document of the part's level 0: each line of an indented
        /// part is indented by this much more.
        var base: Int
        /// How many payloads the part is nested in.
        var nesting: Int
        /// Whether the part's byte arrays have a fixed length (`DocumentFormat.fixesByteArrayLengths`).
        var fixesByteArrayLengths: Bool
        /// The data values that payloads replace, in text order, with the part of each.
        var payloads: [(found: DataValueScan.Found, part: Int)] = []
    }

    private(set) var parts: [Part] = []
    let pretty: Bool
    /// The JSON nesting of the whole document; when `isComplete` is false, the first depth
    /// found that `policy` refuses.
    public private(set) var depth: Int
    /// Whether every payload was read and rendered (false: one was refused by the policy, and
    /// the expansion must not be written).
    public private(set) var isComplete = false
    /// How many payloads were decoded.
    public var payloadCount: Int { max(parts.count - 1, 0) }

    /// Plans `archive`'s readable view with its payloads decoded. `inputSize`: the bytes it was
    /// read from, which set the output limit of the whole (`KeyedArchive.maximumOutputSize`).
    /// Stops, incomplete, at the first depth `policy` refuses; throws what a plan or render
    /// of any part throws (a nesting bound too small located in the whole document).
    ///
    /// `hold` is the caller's memory budget: asked with the bytes of text the parts hold, and
    /// with the bytes of a payload about to be read (whose working memory, for the moment it is
    /// read and written, the caller estimates as for any decode; nil when only the text grew).
    /// When it says no, planning stops with `limitExceeded`. No part is rendered past what is
    /// left of the output limit: at most that limit is ever held.
    ///
    /// `depthLimit`: the deepest nesting the caller lets through, when stricter than `policy`
    /// (a plain view planned compact and refused as indented): each part's depth may be a
    /// bound within what the limits leave it (`Archive.plan`), exact past it.
    init(
        archive: Archive, inputSize: Int, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, policy: DecodePolicy, parallelism: Parallelism,
        depthLimit: Int? = nil, hold: (_ text: Int, _ reading: [UInt8]?) -> Bool = { _, _ in true }
    ) throws(CodecError) {
        self.pretty = pretty
        let depthLimit = min(depthLimit ?? .max, policy.nestingLimit(pretty: pretty))
        let plan = try archive.plan(view: .readable, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: parallelism, depthLimit: depthLimit)
        depth = plan.depth
        guard policy.refusal(depth: depth, pretty: pretty) == nil else { return }
        let limit = KeyedArchive.maximumOutputSize(forInputSize: inputSize)
        let tooLarge = CodecError(
            .limitExceeded, "the JSON with its nested payloads decoded would be larger than \(limit) bytes for a \(inputSize)-byte input", limit: limit)
        let refused = CodecError(.limitExceeded, "the nested payloads' JSON would take more memory than is free to hold it")
        // The outer text is held as it grows, not once it is whole: a small document whose
        // references repeat a large value writes many times its size.
        let rendered = try Self.render(archive, plan: plan, pretty: pretty, parallelism: parallelism, limit: limit, wrapping: nil) { hold($0, nil) }
        guard let (outer, _) = rendered, hold(outer.capacity, nil) else { throw refused }
        parts = [Part(text: outer, base: 0, nesting: 0, fixesByteArrayLengths: type(of: archive.document).fixesByteArrayLengths)]
        var size = outer.count
        var held = outer.capacity
        var next = 0
        while next < parts.count {
            defer { next += 1 }
            guard parts[next].nesting < NestedPayload.maximumNesting else { continue }
            let found = parts[next].text.withUnsafeBufferPointer { DataValueScan.find(in: $0) }
            for value in found {
                guard let bytes = Self.payloadBytes(in: parts[next].text, at: value) else { continue }
                // The payload's working memory is held while it is read and written.
                guard hold(held, bytes) else { throw refused }
                defer { _ = hold(held, nil) }
                guard let (payload, kind) = NestedPayload.document(bytes, prefixChecked: true) else { continue }
                let base = parts[next].base + value.level
                let wrapper = kind.wrapperLevels
                let payloadPlan = try Self.plan(
                    payload, pretty: pretty, maxDepth: maxDepth, above: base + wrapper, numbers: numbers, depthLimit: depthLimit - base - wrapper)
                depth = max(depth, base + wrapper + payloadPlan.depth)
                guard policy.refusal(depth: depth, pretty: pretty) == nil else { return }
                // Rendered straight into its wrapper (`TextCollector.wrapping`): no second copy.
                let rendered = try Self.render(payload, plan: payloadPlan, pretty: pretty, parallelism: .serial, limit: limit - size, wrapping: kind) {
                    hold(held + $0, bytes)
                }
                guard let (text, renderedCount) = rendered else { throw refused }
                guard renderedCount <= limit - size else { throw tooLarge }
                // A typedstream's byte array has its length in its type (`[582c]`): a payload
                // there is decoded only when it writes back to as many bytes. (Where the type
                // is not known from the key, in an array, the same holds; a string's or an
                // NSData's length follows its bytes.)
                if parts[next].fixesByteArrayLengths, value.holder == UInt8(ascii: "[") || value.holder == 0,
                    (try? JSONDocument(parsing: text).payloadDocumentBytes().count) != payload.inputSize
                {
                    continue
                }
                size += text.count - (value.end - value.quote)
                if pretty { size += 2 * base * text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
                guard size <= limit else { throw tooLarge }
                held += text.capacity
                guard hold(held, nil) else { throw refused }
                parts[next].payloads.append((value, parts.count))
                parts.append(Part(text: text, base: base, nesting: parts[next].nesting + 1, fixesByteArrayLengths: kind.format.fixesByteArrayLengths))
            }
        }
        isComplete = true
    }

    /// The bytes of a data value whose base64 text begins as a document does
    /// (`NestedPayload.mightBeDocument(base64:)`, which their document need not ask again).
    private static func payloadBytes(in text: [UInt8], at value: DataValueScan.Found) -> [UInt8]? {
        text.withUnsafeBufferPointer { buffer -> [UInt8]? in
            let base64 = UnsafeBufferPointer(rebasing: buffer[(value.quote + 1)..<(value.end - 1)])
            guard NestedPayload.mightBeDocument(base64: base64) else { return nil }
            let (bytes, bad) = Base64.decode(base64)
            return bad == nil ? bytes : nil
        }
    }

    /// The plan of a payload whose JSON opens `above` levels down: under what is left of
    /// `maxDepth`, a refusal naming bounds of the whole document. Its depth may be a bound
    /// within `depthLimit` (what the policy leaves it), exact past it.
    private static func plan(_ payload: Archive, pretty: Bool, maxDepth: Int?, above: Int, numbers: NumberWrapping, depthLimit: Int) throws(CodecError) -> WritePlan {
        guard let maxDepth else { return try payload.plan(view: .readable, pretty: pretty, numbers: numbers, depthLimit: depthLimit) }
        let tooSmall = { (needed: Int) in
            CodecError(
                .depthBoundTooSmall, "a nesting bound of \(maxDepth) is too small for this document's nested payloads: one opens \(above) levels down and needs \(needed) more",
                found: above + needed, limit: maxDepth, remedy: .nestingBound(above + needed))
        }
        let plan: WritePlan
        do throws(CodecError) {
            plan = try payload.plan(view: .readable, pretty: pretty, maxDepth: max(maxDepth - above, 1), numbers: numbers, depthLimit: depthLimit)
        } catch {
            guard error.kind == .depthBoundTooSmall, let needed = error.found else { throw error }
            throw tooSmall(needed)
        }
        guard above + plan.depth <= maxDepth else { throw tooSmall(plan.depth) }
        return plan
    }

    /// `archive`'s JSON as `plan` says, wrapped as the value of a data member of a payload of
    /// kind `wrapping` (`TextCollector`; nil: as it is), and the bytes the writer wrote; past
    /// `limit` of those they are no longer kept (the count is then larger than `limit`, and
    /// refused by the caller), so a part never holds more. Its storage grows only as `grant`
    /// allows; nil: `grant` refused.
    private static func render(
        _ archive: Archive, plan: WritePlan, pretty: Bool, parallelism: Parallelism, limit: Int, wrapping kind: NestedPayload.Kind?, grant: (Int) -> Bool
    ) throws(CodecError) -> (text: [UInt8], rendered: Int)? {
        // The writer's sink escapes; the collector does not outlive this call.
        try withoutActuallyEscaping(grant) { (grant) throws(CodecError) -> (text: [UInt8], rendered: Int)? in
            let text = TextCollector(limit: limit, grant: grant, wrapping: kind, pretty: pretty)
            try archive.writeJSON(view: .readable, pretty: pretty, plan: plan, parallelism: parallelism) { text.append($0) }
            return text.finish()
        }
    }

    /// Writes the whole document into `sink` in pieces of about a megabyte.
    func write(to sink: (UnsafeBufferPointer<UInt8>) -> Void) {
        precondition(isComplete, "an expansion the policy refused is not written")
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        func flush(_ force: Bool) {
            guard force || out.count >= 1 << 20 else { return }
            out.withUnsafeBufferPointer { sink($0) }
            out.removeAll(keepingCapacity: true)
        }
        /// Copies `range` of part `index`, each new line indented by the part's base.
        func copy(_ index: Int, _ range: Range<Int>) {
            let part = parts[index]
            guard pretty, part.base > 0 else {
                out += part.text[range]
                return flush(false)
            }
            let indent = [UInt8](filledWith: 0x20, count: 2 * part.base)
            var start = range.lowerBound
            while let newline = part.text[start..<range.upperBound].firstIndex(of: 0x0A) {
                out += part.text[start...newline]
                out += indent
                start = newline + 1
                flush(false)
            }
            out += part.text[start..<range.upperBound]
            flush(false)
        }
        // Frames: a part, its next payload, and where its text goes on.
        var stack: [(part: Int, next: Int, position: Int)] = [(0, 0, 0)]
        while var frame = stack.popLast() {
            let part = parts[frame.part]
            guard frame.next < part.payloads.count else {
                copy(frame.part, frame.position..<part.text.count)
                continue
            }
            let payload = part.payloads[frame.next]
            copy(frame.part, frame.position..<payload.found.quote)
            frame.position = payload.found.end
            frame.next += 1
            stack.append(frame)
            stack.append((payload.part, 0, 0))
        }
        flush(true)
    }
}

/// Collects a writer's pieces (the sink may be called from the thread of a second writer).
/// Text a writer hands over in pieces, kept in storage that grows only as `grant` allows:
/// asked, before the storage moves, with the bytes the old and the new storage then hold at
/// once. Past `limit` bytes of the writer's text, or once `grant` has refused, nothing more is
/// kept.
///
/// With `wrapping`, a payload's kind, the text is kept as the value of its data member, as the
/// expansion writes it: a wrapped format's (a keyed archive's) in `{"$keyedArchive": …}` (its
/// lines indented two spaces more when `pretty`), `"$format": "xml"` for an XML property list
/// (beside the wrapper's key, or before the closing brace of the document's own wrapper,
/// `{"$propertyList": …}`, on its own line when indented), without the writer's final newline.
/// The opening is kept before the first piece and the rest added by `finish`, in place: the
/// text is never copied into a wrapped second copy.
private final class TextCollector: @unchecked Sendable {
    private var bytes: [UInt8] = []
    /// Bytes the writer handed over.
    private var received = 0
    private var refused = false
    private let limit: Int
    private let grant: (Int) -> Bool
    private let kind: NestedPayload.Kind?
    private let pretty: Bool
    /// Bytes of the wrapper's opening, before the writer's text.
    private var opening = 0

    init(limit: Int, grant: @escaping (Int) -> Bool, wrapping kind: NestedPayload.Kind?, pretty: Bool) {
        self.limit = limit
        self.grant = grant
        self.kind = kind
        self.pretty = pretty
        if let kind, kind.format.payloadIsWrapped { append(opening: kind.format.payloadKey) }
    }

    func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard !refused, received <= limit else { return }
        received += piece.count
        guard reserve(piece.count) else { return }
        bytes.append(contentsOf: piece)
    }

    /// The text, wrapped, and the bytes the writer wrote; nil when `grant` refused.
    func finish() -> (text: [UInt8], rendered: Int)? {
        guard !refused else { return nil }
        guard let kind, received <= limit else { return (bytes, received) }
        while bytes.last == 0x0A { bytes.removeLast() }
        let isXML = kind.format.isPropertyList && kind.byteForm == .xml
        let format: StaticString = pretty ? ",\n  \"$format\": \"xml\"" : ",\"$format\":\"xml\""
        if kind.format.payloadIsWrapped {
            if pretty, !indentLines() { return nil }
            let closing: StaticString = pretty ? "\n}" : "}"
            guard reserve((isXML ? format.utf8CodeUnitCount : 0) + closing.utf8CodeUnitCount) else { return nil }
            if isXML { format.withUTF8Buffer { bytes.append(contentsOf: $0) } }
            closing.withUTF8Buffer { bytes.append(contentsOf: $0) }
        } else if isXML {
            guard reserve(format.utf8CodeUnitCount) else { return nil }
            let at = pretty ? bytes.lastIndex(of: 0x0A) ?? bytes.count - 1 : bytes.count - 1
            format.withUTF8Buffer { bytes.insert(contentsOf: $0, at: at) }
        }
        return (bytes, received)
    }

    /// `{"<key>": ` (indented: on its own line), the opening of a wrapped payload's JSON.
    private func append(opening key: StaticString) {
        let open: StaticString = pretty ? "{\n  \"" : "{\""
        let colon: StaticString = pretty ? "\": " : "\":"
        bytes.reserveCapacity(open.utf8CodeUnitCount + key.utf8CodeUnitCount + colon.utf8CodeUnitCount + 64)
        open.withUTF8Buffer { bytes.append(contentsOf: $0) }
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        colon.withUTF8Buffer { bytes.append(contentsOf: $0) }
        opening = bytes.count
    }

    /// Two spaces after each newline of the text (after the opening, whose own line is
    /// indented already): the storage grows once by two bytes a line, and the text moves back
    /// from its end, in place.
    private func indentLines() -> Bool {
        var lines = 0
        for byte in bytes[opening...] where byte == 0x0A { lines += 1 }
        guard lines > 0 else { return true }
        guard reserve(2 * lines) else { return false }
        var from = bytes.count
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * lines))
        bytes.withUnsafeMutableBufferPointer { text in
            // Past the first newline (from the end) that moves, `to` meets `from`: the rest stays.
            var to = text.count
            while to > from {
                from -= 1
                if text[from] == 0x0A {
                    to -= 2
                    text[to] = 0x20
                    text[to + 1] = 0x20
                }
                to -= 1
                text[to] = text[from]
            }
        }
        return true
    }

    /// Room for `count` more bytes, as `grant` allows (false: refused, and nothing is kept).
    private func reserve(_ count: Int) -> Bool {
        let needed = bytes.count + count
        guard needed > bytes.capacity else { return true }
        let grown = max(needed, bytes.capacity * 2)
        guard grant(bytes.capacity + grown) else {
            refused = true
            bytes = []
            return false
        }
        bytes.reserveCapacity(grown)
        return true
    }
}
