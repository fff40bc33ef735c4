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
/// **Before the placement** (`Mode.unplaced`, `Mode.partlyPlaced`) the walk runs without
/// the whole document's placement, which a large archive spends most of a decode's time on
/// before writing. A body's text does not depend on where it stands; only where a body with
/// `$id` stands and its number do.
/// - *Unplaced* (`Placement.unplaced`): every body with `$id` is written on its own, every
///   reference to one is a `{"$ref": n}` naming its entry. An answer without `$id` and `$ref`
///   is the whole document's; one with either, or a path that names `$id` or `$ref` (whose
///   number it would answer), wants a placement (`wantsPlacement`).
/// - *Partly placed* (`GrowingPlacement`): what the placement says of the entries it reached
///   is final, and an entry it did not reach is written with the number 0. A walk that wrote
///   no 0 (in a part, or among the bodies the answer writes in full, measured before they are
///   written) wrote what the whole placement writes; one that met a 0 wants more placement.
/// Before the placement nothing has measured the document's nesting for the writer's stack:
/// each part, and the answer with every body it writes in full, is measured first
/// (`BodyScanner`) against the mode's limit, and the walk gives up past it.
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

    /// How the bodies are placed, and for a walk before the placement the deepest JSON the
    /// writer may write (a part, the answer).
    enum Mode {
        /// The whole document's placement, its nesting checked by the caller.
        case placed
        /// `Placement.unplaced`.
        case unplaced(depthLimit: Int)
        /// A `GrowingPlacement`'s.
        case partlyPlaced(depthLimit: Int)

        /// Before the placement, the deepest JSON the writer may write; nil when placed.
        var depthLimit: Int? {
            switch self {
            case .placed: nil
            case .unplaced(let limit), .partlyPlaced(let limit): limit
            }
        }

        var isUnplaced: Bool {
            if case .unplaced = self { return true }
            return false
        }
    }

    private var depthLimit: Int? { mode.depthLimit }
    private var isUnplaced: Bool { mode.isUnplaced }

    private let mode: Mode
    private var writer: ReadableWriter
    /// Before the placement: the scanner that measures what is written first, and each part's
    /// nesting.
    private var scanner: BodyScanner?
    private var partHeights: [Int: Int] = [:]
    /// Whether the walk stopped where a placement (more of one) would let it go on: an answer
    /// with identity unplaced, an entry the partial placement has not reached.
    private(set) var wantsPlacement = false
    /// The references measured so far (every part before it is written, the answer's bodies),
    /// in this walk and the ones `regrow` took it on to, against `referenceBudget`: past it the
    /// walk gives up and is `exhausted`, and its caller grows no more. A part or answer larger
    /// than the budget is so never written before the placement, and a large one met again at
    /// every step is not measured at every step past the budget.
    private(set) var measuredReferences = 0
    private let referenceBudget: Int
    private(set) var exhausted = false
    /// Whether the part being measured refers to an entry the partial placement has not reached.
    private var meetsUnreached = false
    private var bodyHolder: [UInt32]
    private var carriesID: [Bool]
    private let forms: [ObjectForm]
    private let objectCount: Int
    private let envelope: Bool
    /// The largest JSON the archive's view may be (`KeyedArchive.maximumOutputSize`).
    private let limit: Int
    private let tooMuch: CodecError
    /// Per `$id` number, the entry that carries it: made on the first body written, unless
    /// the placement kept them (`Placement.entriesByID`, at number − 1).
    private var entryOfID: [Int32] = []
    private var entriesByID: [Int32]?
    private var parts: [Int: Part] = [:]
    /// The bytes of the bodies' texts so far, held to `limit` in all.
    private var written = 0
    /// Asked before the bodies and the answer grow, with all they then hold; a refusal
    /// throws `Archive.notHeld`.
    private let hold: ((Int) -> Bool)?
    private var held = 0
    /// What stopped writing a body on the way (memory, the deadline, the output's size).
    private var failure: CodecError?

    /// `mode` says what `placement` is.
    init(archive: KeyedArchive, view: BinaryPlistView, placement: Placement, mode: Mode = .placed, referenceBudget: Int = .max, hold: ((Int) -> Bool)?) {
        self.referenceBudget = referenceBudget
        writer = ReadableWriter(archive: archive, view: view, placement: placement, out: JSONOutput(pretty: false))
        self.mode = mode
        if mode.depthLimit != nil { scanner = BodyScanner(archive: archive, view: view, numbers: placement.numbers, accounts: placement.accounts) }
        bodyHolder = placement.bodyHolder
        entriesByID = placement.entriesByID
        carriesID = placement.carriesID
        forms = archive.forms
        objectCount = archive.objectCount
        envelope = placement.envelope
        limit = KeyedArchive.maximumOutputSize(forInputSize: archive.plist.bytes.count)
        tooMuch = archive.tooMuchJSON(limit: limit)
        self.hold = hold
    }

    /// Lets go of the placement's tables, so that `GrowingPlacement` grows them in place
    /// rather than copying them; `regrow` before the next walk.
    mutating func releasePlacement() {
        writer.place(by: .none)
        bodyHolder = []
        carriesID = []
        entriesByID = nil
    }

    /// Takes a grown partial placement (`GrowingPlacement`) for the next walk, keeping the
    /// parts written: a part is kept only when it wrote no 0, so every entry it wrote was
    /// placed already, finally, and it reads the same under the grown placement. Each part's
    /// walk starts afresh, as the next walk takes the path from the start.
    mutating func regrow(_ placement: Placement) {
        writer.place(by: placement)
        bodyHolder = placement.bodyHolder
        carriesID = placement.carriesID
        entriesByID = placement.entriesByID
        wantsPlacement = false
        for key in parts.keys { parts[key]!.walk = JSONDocument.PathWalk(document: parts[key]!.document) }
    }

    /// The compact JSON text of the value at `path` (a `$ref` at its end followed), or nil
    /// when this way gives up (above).
    mutating func valueText(at path: ReadablePath) throws(CodecError) -> [UInt8]? {
        if isUnplaced, path.steps.contains(where: Self.namesIdentity) {
            wantsPlacement = true
            return nil
        }
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
        if depthLimit != nil, try !answerFits(place.value, in: place.part) { return nil }
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
            guard let named = self.entry(ofID: number) else { return nil }
            entry = named
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
        if let depthLimit {
            meetsUnreached = false
            let height = measuredHeight(of: part)
            if exhausted { return false }
            if meetsUnreached {
                wantsPlacement = true
                return false
            }
            guard height <= depthLimit else { return false }
            partHeights[part] = height
        }
        if !isUnplaced, entriesByID == nil, entryOfID.isEmpty {
            let writtenIDs = writer.writtenIDs
            entryOfID = Array(filledWith: 0, count: (writtenIDs.max().map(Int.init) ?? 0) + 1)
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
        if case .partlyPlaced = mode, Self.holdsUnnumbered(text.bytes) {
            wantsPlacement = true
            return false
        }
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
                        } else if document.stringEquals(key, MappingKeys.identity), let entry = entry(ofID: number) {
                            writer.forgetWritten(entry)
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

    /// The entry whose body carries `"$id": number` (placed: the whole document's numbers;
    /// unplaced: the entry's UID + 1, `Placement.unplaced`), or nil.
    private func entry(ofID number: Int64) -> Int? {
        guard !isUnplaced else { return number > 1 && number <= objectCount ? Int(number - 1) : nil }
        if let entriesByID { return number > 0 && number <= entriesByID.count ? Int(entriesByID[Int(number - 1)]) : nil }
        guard number > 0, number < entryOfID.count, entryOfID[Int(number)] > 0 else { return nil }
        return Int(entryOfID[Int(number)])
    }

    /// Whether `step` names `$id` or `$ref`, whose values an unplaced walk does not know.
    private static func namesIdentity(_ step: ReadablePath.Step) -> Bool {
        guard case .key(let key) = step else { return false }
        return key == "$id" || key == "$ref"
    }

    // MARK: Unplaced

    /// Whether `text` writes an entry the partial placement has not reached: `{"$ref":0}`, or
    /// `"$id":0` (as a key, after `{` or `,`: a string's text holds neither before a quote).
    private static func holdsUnnumbered(_ text: [UInt8]) -> Bool {
        let reference = Array("{\"\(MappingKeys.reference)\":0}".utf8)
        let identity = Array("\"\(MappingKeys.identity)\":0".utf8)
        return text.withUnsafeBufferPointer { text in
            var index = 0
            while index + identity.count < text.count {
                defer { index += 1 }
                guard text[index] == UInt8(ascii: "{") || text[index] == UInt8(ascii: ",") else { continue }
                let rest = UnsafeBufferPointer(rebasing: text[(index + 1)...])
                if rest.starts(with: identity), rest.count > identity.count, rest[identity.count] == UInt8(ascii: ",") || rest[identity.count] == UInt8(ascii: "}") {
                    return true
                }
                if text[index] == UInt8(ascii: "{"), UnsafeBufferPointer(rebasing: text[index...]).starts(with: reference) { return true }
            }
            return false
        }
    }

    /// The nesting of `part`'s text as `write` writes it (the bodies it holds as stubs or
    /// references, a scalar with `$id` perhaps in full), measured without writing (`BodyScanner`).
    private mutating func measuredHeight(of part: Int) -> Int {
        guard part == Self.documentPart else { return bodyHeight(part) }
        scanner!.slots.removeAll(keepingCapacity: true)
        var height = scanner!.scanTop(envelope: envelope)
        let slots = scanner!.slots
        guard spend(slots.count + 1) else { return height }
        for slot in slots {
            let uid = Int(slot.uid)
            // Without the envelope the root's body is the part (`stubDepth` 1).
            if !envelope, !forms[uid].isScalar {
                height = max(height, bodyHeight(uid))
            } else {
                height = max(height, slotHeight(slot))
            }
        }
        return height
    }

    /// The nesting of entry `uid` written where its body stands, the bodies it holds as stubs
    /// or references.
    private mutating func bodyHeight(_ uid: Int) -> Int {
        let form = forms[uid]
        if form.isScalar { return scanner!.scalarLeafHeight(uid, form: form, carriesID: carriesID[uid], keyContext: false) }
        scanner!.slots.removeAll(keepingCapacity: true)
        var height = scanner!.scan(uid, carriesID: carriesID[uid])
        let slots = scanner!.slots
        guard spend(slots.count + 1) else { return height }
        for slot in slots { height = max(height, slotHeight(slot)) }
        return height
    }

    /// Counts `references` measured against `referenceBudget`; false past it (`exhausted`).
    private mutating func spend(_ references: Int) -> Bool {
        measuredReferences += references
        guard measuredReferences <= referenceBudget else {
            exhausted = true
            return false
        }
        return true
    }

    /// The most a reference of a part reaches: a stub or `{"$ref": n}` (one bracket), or a
    /// scalar's text, with `$id` or bare, at most as deep as with `$id`.
    private mutating func slotHeight(_ slot: BodyScanner.Slot) -> Int {
        let uid = Int(slot.uid)
        let form = forms[uid]
        // Written `{"$ref":0}` (or with `"$id":0`) by a partial placement that has not reached it.
        if case .partlyPlaced = mode, carriesID[uid], bodyHolder[uid] == Placement.unplaced { meetsUnreached = true }
        guard form.isScalar else { return Int(slot.level) + 1 }
        return Int(slot.level) + scanner!.scalarLeafHeight(uid, form: form, carriesID: true, keyContext: slot.keyContext)
    }

    /// Whether the value found in `part` is the whole document's answer before the placement
    /// and fits the limit, measured before it is written in full: unplaced, its text holds no
    /// `$id` and no `$ref`; the bodies its stubs stand for are measured (`subtreeHeight`).
    /// A compact text writes a key right after `{` or `,`, neither of which a string's text
    /// holds before a quote (a quote inside a string is escaped), so `{"$id":`, `,"$id":`
    /// and `{"$ref":` are keys.
    private mutating func answerFits(_ value: JSONDocument.Value, in part: Int) throws(CodecError) -> Bool {
        let document = parts[part]!.document
        let range = document.sourceRange(of: value)
        let identity = Array("\"\(MappingKeys.identity)\":".utf8)
        let reference = Array("{\"\(MappingKeys.reference)\":".utf8)
        let isUnplaced = isUnplaced
        var stubs: [Int] = []
        let holdsIdentity = document.source.withUnsafeBufferPointer { source -> Bool in
            var index = range.lowerBound
            while index < range.upperBound {
                defer { index += 1 }
                guard source[index] == UInt8(ascii: "{") || source[index] == UInt8(ascii: ",") else { continue }
                let rest = UnsafeBufferPointer(rebasing: source[index..<range.upperBound])
                if isUnplaced, rest.dropFirst().starts(with: identity) || rest.starts(with: reference) { return true }
                if let (entry, _) = Self.stub(in: rest) { stubs.append(entry) }
            }
            return false
        }
        if holdsIdentity {
            wantsPlacement = true
            return false
        }
        let base = partHeights[part] ?? 0
        for entry in stubs {
            guard let height = try subtreeHeight(entry) else { return false }
            if base + height > depthLimit! { return false }
        }
        return true
    }

    /// The nesting of entry `uid`'s body written in full (in a stub's place), or nil where the
    /// walk cannot tell it: a reference to an entry with `$id` unplaced, or to one the partial
    /// placement has not reached (then `wantsPlacement`), or more bodies than the archive has.
    /// A body with `$id` is written in full at the first reference from the body that holds
    /// it (`Placement.bodyHolder`), each other reference is `{"$ref": n}`. Iterative: a heap
    /// stack of bodies with their levels.
    private mutating func subtreeHeight(_ uid: Int) throws(CodecError) -> Int? {
        guard uid > 0, uid < objectCount, !forms[uid].isScalar else { return nil }
        var pending: [(uid: Int32, level: Int)] = [(Int32(truncatingIfNeeded: uid), 0)]
        var whole = Set<Int32>()
        var height = 0
        var visited = 0
        while let (body, level) = pending.popLast() {
            visited += 1
            guard visited <= objectCount else { return nil }
            if ConversionDeadline.shouldStop(visited) { throw ConversionDeadline.passed }
            scanner!.slots.removeAll(keepingCapacity: true)
            height = max(height, level + scanner!.scan(Int(body), carriesID: carriesID[Int(body)]))
            let slots = scanner!.slots
            guard spend(slots.count + 1) else { return nil }
            for slot in slots {
                let child = Int(slot.uid)
                let form = forms[child]
                let at = level + Int(slot.level)
                guard carriesID[child] else {
                    // A tied scalar the placement wrote bare, or a body referenced once.
                    if form.isScalar {
                        height = max(height, at + scanner!.scalarLeafHeight(child, form: form, carriesID: false, keyContext: slot.keyContext))
                    } else {
                        pending.append((slot.uid, at))
                    }
                    continue
                }
                guard bodyHolder[child] != Placement.unplaced else {
                    wantsPlacement = true
                    return nil
                }
                guard bodyHolder[child] == UInt32(truncatingIfNeeded: Int(body)), whole.insert(slot.uid).inserted else {
                    height = max(height, at + 1)
                    continue
                }
                if form.isScalar {
                    height = max(height, at + scanner!.scalarLeafHeight(child, form: form, carriesID: true, keyContext: slot.keyContext))
                } else {
                    pending.append((slot.uid, at))
                }
            }
        }
        return height
    }

    /// The opening of a stub's text, `{"$stub":`.
    private static let stubOpening = Array("{\"\(ReadableWriter.stubKey)\":".utf8)

    /// The entry of the stub `text` begins with, and the stub's length (its closing brace
    /// included), or nil when it begins with none.
    private static func stub(in text: UnsafeBufferPointer<UInt8>) -> (entry: Int, length: Int)? {
        guard text.starts(with: stubOpening) else { return nil }
        var end = stubOpening.count
        var entry = 0
        while end < text.count, let digit = text[end].asciiDigitValue {
            entry = entry * 10 + digit
            end += 1
        }
        return (entry, end + 1)
    }

    /// `value`'s text with each stub replaced by its body written in full. A stub's text is
    /// found as `{"$stub":`, which no string's text holds (a quote inside a string is escaped).
    /// The text is held as it grows (`HeldText`).
    private mutating func wholeText(of value: JSONDocument.Value, in document: JSONDocument) throws(CodecError) -> [UInt8] {
        let range = document.sourceRange(of: value)
        let result = HeldText(hold: hold, held: held)
        var start = range.lowerBound
        var index = range.lowerBound
        let source = document.source
        while index < range.upperBound {
            let found = source[index] != Self.stubOpening[0] ? nil : source.withUnsafeBufferPointer { Self.stub(in: UnsafeBufferPointer(rebasing: $0[index..<range.upperBound])) }
            guard let (entry, length) = found else {
                index += 1
                continue
            }
            let end = index + length
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
        return try valueDocument(at: path, of: archive, placement: placement, hold: hold)
    }

    /// `readableValueDocument(at:plan:hold:)` before any plan: the value at `path` of the
    /// readable view (nested payloads not decoded, no nesting bound), found without placing
    /// the whole document where it can be (`KeyedValueAtPath`, "Before the placement"):
    /// first unplaced; then, while the walk wants more, with the placement grown to twice as
    /// many bodies each time (`GrowingPlacement`, from 1,024), up to a quarter of the
    /// archive's entries: at most that share of a whole placement's scanning is spent before
    /// the caller's, with a walk per step (each as long as the path and its answer; the
    /// references measured in all the walks, every part before it is written and the answer's
    /// bodies, held to the same share, at least 65,536: a part or answer larger than that is
    /// left to the placed walk, which writes it once). Nothing written nests deeper than
    /// `depthLimit`. Nil where it gives up: the caller plans, checks the depth and asks
    /// `readableValueDocument`. So a value that fits is answered from an archive whose whole
    /// view would be refused as too deep. `parallelism`: how the placement's scans may be
    /// split.
    public func valueDocumentBeforePlacement(
        at path: ReadablePath, numbers: NumberWrapping, depthLimit: Int, parallelism: Parallelism = .serial, hold: ((Int) -> Bool)?
    ) throws(CodecError) -> JSONDocument? {
        guard !path.steps.isEmpty, let archive = keyedArchive else { return nil }
        let text = try archive.plist.withView { (view) throws(CodecError) -> [UInt8]? in
            // The references measured in all the walks (every part before it is written, the
            // answers' bodies) are held to the same share as the placement's.
            let budget = max(archive.objectCount / 4, 65_536)
            var wantsPlacement: Bool
            var measured: Int
            do {
                let unplaced = Placement.unplaced(archive: archive, numbers: numbers)
                var walk = KeyedValueAtPath(
                    archive: archive, view: view, placement: unplaced, mode: .unplaced(depthLimit: depthLimit), referenceBudget: budget, hold: hold)
                if let text = try walk.valueText(at: path) { return text }
                guard !walk.exhausted else { return nil }
                wantsPlacement = walk.wantsPlacement
                measured = walk.measuredReferences
            }
            let growing = GrowingPlacement(archive: archive, view: view, numbers: numbers)
            var bodies = 1_024
            var grown: KeyedValueAtPath?
            while wantsPlacement, !growing.complete {
                // The walk lets go of its placement before the pass goes on, which then writes
                // its tables in place rather than copying them.
                grown?.releasePlacement()
                let placement = try growing.placement(scanning: bodies, parallelism: parallelism)
                if grown == nil {
                    grown = KeyedValueAtPath(
                        archive: archive, view: view, placement: placement, mode: .partlyPlaced(depthLimit: depthLimit), referenceBudget: budget - measured,
                        hold: hold)
                } else {
                    grown!.regrow(placement)
                }
                if let text = try grown!.valueText(at: path) { return text }
                wantsPlacement = grown!.wantsPlacement
                guard bodies < archive.objectCount / 4, !grown!.exhausted else { break }
                bodies *= 2
            }
            return nil
        }
        return try text.map { (text) throws(CodecError) in try JSONDocument(parsing: text) }
    }

    private func valueDocument(at path: ReadablePath, of archive: KeyedArchive, placement: Placement, hold: ((Int) -> Bool)?) throws(CodecError) -> JSONDocument? {
        let text = try archive.plist.withView { (view) throws(CodecError) -> [UInt8]? in
            var walk = KeyedValueAtPath(archive: archive, view: view, placement: placement, hold: hold)
            return try walk.valueText(at: path)
        }
        return try text.map { (text) throws(CodecError) in try JSONDocument(parsing: text) }
    }
}
