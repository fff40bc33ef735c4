/// The value at a `ReadablePath` of a keyed archive's readable view, found by writing only the
/// bodies the path goes through: what `JSONDocument.value(at:)` finds in the whole document,
/// without writing and indexing the whole document first.
///
/// Each body is written on its own (`ReadableWriter.writeAtBodyPlace`), the bodies it holds
/// written as stubs (`{"$stub": uid}`, `ReadableWriter.stubDepth`), and indexed as a small
/// document; the path's steps are taken in it as in the whole document (`JSONDocument.take`,
/// `wrapped`), and a step that meets a stub or a `{"$ref": n}` goes on in the body it stands
/// for, written then. The value found is written out whole: its text with each stub replaced
/// by the body written in full. A body's text does not depend on where it is written
/// (`Placement` decides each reference from the body that holds it), so the text is the whole
/// document's, byte for byte; after each body the bodies it wrote are forgotten
/// (`ReadableWriter.forgetWritten`), so that the body holding them writes them again.
///
/// Gives up (nil), and the caller follows the path in the whole document, where this way would
/// not see what the whole document shows: a key step into a `$dict` one of whose keys is a
/// stub (its text is in another body) or a `$ref` (its `$id` is elsewhere), a path that leads
/// nowhere (the whole document says how far it got, in its words), or a body looked into more
/// than `JSONDocument.PathWalk` lets a walk look into the whole document (a path that goes
/// round `$ref`s through large bodies, `.a[9].back[9].back…`, writes each body once, as they
/// are kept, but looks into them again; the whole document then answers, under its own bound).
/// Each body is written once, so the bodies' text together is at most the whole document's:
/// it is held to the document's output limit, and past it the walk gives up too.
///
/// Every byte is asked of `hold` as it is written (`HeldText`), and the thread's deadline is
/// polled at each hand-over of the writer's text and before each body.
struct KeyedValueAtPath {
    /// A body written on its own, indexed, with what the path has spent looking into it.
    private struct Part {
        let document: JSONDocument
        var walk: JSONDocument.PathWalk
    }

    /// The part that is the document's own text (its root object's body, or the `$top`
    /// envelope with its values as stubs).
    private static let documentPart = -1

    private var writer: ReadableWriter
    private let objectCount: Int
    private let writtenIDs: [UInt32]
    private let envelope: Bool
    /// The largest JSON the archive's view may be (`KeyedArchive.maximumOutputSize`).
    private let limit: Int
    private let tooMuch: CodecError
    /// Per `$id` number, the entry that carries it: made on the first body written.
    private var entryOfID: [Int32] = []
    private var parts: [Int: Part] = [:]
    /// The bytes of the bodies' texts so far, held to `limit` in all.
    private var written = 0
    /// Asked before the bodies and the answer grow, with all they then hold; a refusal
    /// throws `Archive.notHeld`.
    private let hold: ((Int) -> Bool)?
    private var held = 0
    /// What stopped writing a body on the way (memory, the deadline, the output's size).
    private var failure: CodecError?

    init(archive: KeyedArchive, view: BinaryPlistView, placement: Placement, hold: ((Int) -> Bool)?) {
        writer = ReadableWriter(archive: archive, view: view, placement: placement, out: JSONOutput(pretty: false))
        objectCount = archive.objectCount
        writtenIDs = placement.writtenIDs
        envelope = placement.envelope
        limit = KeyedArchive.maximumOutputSize(forInputSize: archive.plist.bytes.count)
        tooMuch = archive.tooMuchJSON(limit: limit)
        self.hold = hold
    }

    /// The compact JSON text of the value at `path` (a `$ref` at its end followed), or nil
    /// when this way gives up (above).
    mutating func valueText(at path: ReadablePath) throws(CodecError) -> [UInt8]? {
        guard try write(Self.documentPart) else { return nil }
        var place = (part: Self.documentPart, value: parts[Self.documentPart]!.document.root)
        do throws(JSONDocument.PathFailure) {
            for step in path.steps {
                var through = 0
                while true {
                    guard let followed = try following(place) else { return nil }
                    place = followed
                    let document = parts[place.part]!.document
                    // A `$dict` key written as a stub is a body of its own: the part cannot
                    // compare it with the step's key.
                    if case .key = step, Self.hasStubKey(place.value, in: document) { return nil }
                    if let next = try document.take(step, from: place.value, walk: &parts[place.part]!.walk) {
                        place.value = next
                        break
                    }
                    guard through < 64, let inner = try document.wrapped(place.value, walk: &parts[place.part]!.walk, for: step) else { return nil }
                    through += 1
                    place.value = inner
                }
            }
            guard let followed = try following(place) else { return nil }
            place = followed
        } catch {
            // A `$dict` key's `$ref` this part does not hold, or a part looked into more than
            // its own walk allows (the whole document's allows more): the whole document
            // answers. Any other refusal (the deadline, memory) stands.
            if let failure { throw failure }
            if let refusal = error.refusal, refusal.kind != .limitExceeded { throw refusal }
            return nil
        }
        let text = try wholeText(of: place.value, in: parts[place.part]!.document)
        try grow(by: text.withUnsafeBufferPointer { PlainView.workingBytes(losslessText: $0, depth: 4) })
        return text
    }

    /// Whether `value` is an object whose `$dict` pairs hold a key written as a stub.
    private static func hasStubKey(_ value: JSONDocument.Value, in document: JSONDocument) -> Bool {
        guard document.kind(value) == .object, let pairs = document.member(of: value, MappingKeys.dict), document.kind(pairs) == .array else { return false }
        var cursor = document.children(of: pairs)
        while let pair = document.nextElement(&cursor) {
            guard document.kind(pair) == .array else { continue }
            var parts = document.children(of: pair)
            if let key = document.nextElement(&parts), document.singleMember(key, named: ReadableWriter.stubKey) != nil { return true }
        }
        return false
    }

    /// `place`, or the body its value stands for when that is a stub or a `{"$ref": n}`
    /// (written on first need); nil when a stub or reference names no entry.
    private mutating func following(_ place: (part: Int, value: JSONDocument.Value)) throws(JSONDocument.PathFailure) -> (part: Int, value: JSONDocument.Value)? {
        let document = parts[place.part]!.document
        guard let (key, member) = document.onlyMember(place.value), document.kind(member) == .number, case .signed(let number) = document.number(member) else {
            return place
        }
        let entry: Int
        if document.stringEquals(key, ReadableWriter.stubKey) {
            entry = Int(number)
        } else if document.stringEquals(key, MappingKeys.reference) {
            guard number > 0, number < entryOfID.count, entryOfID[Int(number)] > 0 else { return nil }
            entry = Int(entryOfID[Int(number)])
        } else {
            return place
        }
        guard entry > 0, entry < objectCount else { return nil }
        do throws(CodecError) {
            guard try write(entry) else { return nil }
        } catch {
            failure = error
            throw JSONDocument.PathFailure(refusal: error)
        }
        return (entry, parts[entry]!.document.root)
    }

    /// Writes and indexes `part`'s body, its bodies as stubs, unless written already; false
    /// past the budget.
    private mutating func write(_ part: Int) throws(CodecError) -> Bool {
        guard parts[part] == nil else { return true }
        try ConversionDeadline.check()
        if entryOfID.isEmpty {
            entryOfID = Array(repeating: 0, count: (writtenIDs.max().map(Int.init) ?? 0) + 1)
            for (entry, id) in writtenIDs.enumerated() where id > 0 && Int(id) < entryOfID.count { entryOfID[Int(id)] = Int32(entry) }
        }
        // Past what the whole document may be the walk gives up: the output stops there.
        let cap = limit - written
        let text = HeldText(hold: hold, held: held)
        let envelope = envelope
        let done = try write(into: text, cap: cap) { writer in
            if part == Self.documentPart {
                writer.stubDepth = envelope ? 0 : 1
                writer.writeDocument()
            } else {
                writer.stubDepth = 1
                writer.writeAtBodyPlace(part)
            }
        }
        guard done else { return false }
        written += text.bytes.count
        held += text.bytes.capacity
        let working = text.bytes.withUnsafeBufferPointer { PlainView.workingBytes(losslessText: $0, depth: 4) }
        try grow(by: working)
        let document = try JSONDocument(parsing: text.take())
        if part != Self.documentPart { writer.forgetWritten(part) }
        forgetBodies(in: document)
        parts[part] = Part(document: document, walk: JSONDocument.PathWalk(document: document))
        return true
    }

    /// Forgets the bodies a part's text holds: its stubs and the scalars written with `$id`.
    private mutating func forgetBodies(in document: JSONDocument) {
        var pending = document.isContainer(document.root) ? [document.root] : []
        while let container = pending.popLast() {
            var cursor = document.children(of: container)
            if document.kind(container) == .object {
                while let (key, value) = document.nextMember(&cursor) {
                    if document.isContainer(value) {
                        pending.append(value)
                    } else if document.kind(value) == .number, case .signed(let number) = document.number(value) {
                        if document.stringEquals(key, ReadableWriter.stubKey), number > 0, number < objectCount {
                            writer.forgetWritten(Int(number))
                        } else if document.stringEquals(key, MappingKeys.identity), number > 0, number < entryOfID.count {
                            writer.forgetWritten(Int(entryOfID[Int(number)]))
                        }
                    }
                }
            } else {
                while let element = document.nextElement(&cursor) {
                    if document.isContainer(element) { pending.append(element) }
                }
            }
        }
    }

    /// `value`'s text with each stub replaced by its body written in full. A stub's text is
    /// found as `{"$stub":`, which no string's text holds (a quote inside a string is escaped).
    /// The text is held as it grows (`HeldText`).
    private mutating func wholeText(of value: JSONDocument.Value, in document: JSONDocument) throws(CodecError) -> [UInt8] {
        let stub = Array("{\"\(ReadableWriter.stubKey)\":".utf8)
        let range = document.sourceRange(of: value)
        let result = HeldText(hold: hold, held: held)
        var start = range.lowerBound
        var index = range.lowerBound
        let source = document.source
        while index + stub.count <= range.upperBound {
            guard source[index] == stub[0], source[index..<(index + stub.count)].elementsEqual(stub) else {
                index += 1
                continue
            }
            var end = index + stub.count
            var entry = 0
            while end < range.upperBound, let digit = source[end].asciiDigitValue {
                entry = entry * 10 + digit
                end += 1
            }
            // The stub's closing brace.
            end += 1
            source[start..<index].withUnsafeBufferPointer { result.append($0) }
            _ = try write(into: result, cap: limit - result.bytes.count, isWhole: true) { writer in
                writer.stubDepth = Int.max
                writer.writeAtBodyPlace(entry)
            }
            start = end
            index = end
        }
        source[start..<range.upperBound].withUnsafeBufferPointer { result.append($0) }
        if result.refused { throw Archive.notHeld }
        held += result.bytes.capacity
        return result.take()
    }

    /// Runs `body` with the writer's output handed to `text` in pieces (which asks `hold` as it
    /// grows, and the thread's deadline is polled at each hand-over), stopping past `cap`
    /// bytes. False when it stopped there for a part (the walk gives up); throws when the
    /// answer's text (`isWhole`) passes it, at the deadline, or when `hold` refused.
    private mutating func write(into text: HeldText, cap: Int, isWhole: Bool = false, _ body: (inout ReadableWriter) -> Void) throws(CodecError) -> Bool {
        try ConversionDeadline.check()
        writer.out = JSONOutput(pretty: false, reserve: 4_096) { text.append($0) }
        writer.out.limit = cap
        body(&writer)
        if writer.out.timedOut { throw ConversionDeadline.passed }
        if writer.out.isOverLimit {
            guard isWhole else { return false }
            throw tooMuch
        }
        writer.out.finish { _ in }
        if text.refused { throw Archive.notHeld }
        return true
    }

    private mutating func grow(by bytes: Int) throws(CodecError) {
        held += bytes
        if let hold, !hold(held) { throw Archive.notHeld }
    }
}

extension UInt8 {
    /// The value of an ASCII decimal digit, or nil.
    fileprivate var asciiDigitValue: Int? { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") ? Int(self - UInt8(ascii: "0")) : nil }
}

extension Archive {
    /// The value at `path` of the readable view planned by `plan`, as a document of its own
    /// (its root the value, a `$ref` at the path's end followed), written without the rest of
    /// the view where the format allows (a keyed archive without nested payloads or a `$table`:
    /// `KeyedValueAtPath`). Nil for the empty path, for other documents, or when that way gives
    /// up: then the whole view is written (`decodedDocument`) and the path followed there.
    /// `hold` is asked as the bodies written on the way and the answer grow, with all they
    /// then hold, and with the answer's index before it is made; a refusal throws `notHeld`.
    public func readableValueDocument(at path: ReadablePath, plan: WritePlan, hold: ((Int) -> Bool)?) throws(CodecError) -> JSONDocument? {
        guard !path.steps.isEmpty, plan.nested == nil, let placement = plan.placement, placement.table.isEmpty, let archive = keyedArchive else { return nil }
        let text = try archive.plist.withView { (view) throws(CodecError) -> [UInt8]? in
            var walk = KeyedValueAtPath(archive: archive, view: view, placement: placement, hold: hold)
            return try walk.valueText(at: path)
        }
        return try text.map { (text) throws(CodecError) in try JSONDocument(parsing: text) }
    }
}
