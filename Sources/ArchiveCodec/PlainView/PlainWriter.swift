/// Writes the plain view of a lossless document (docs/mapping.md, "The plain view") through a
/// `JSONOutput`.
///
/// Invariants:
/// - **Iterative.** Containers are walked with an explicit stack of `Frame`s, one per open
///   container or pending step: as deep as the document nests (at most
///   `JSONDocument.maximumNesting`), whatever the thread's stack.
/// - **Linear.** Each value of the document is visited once where it is written, an object's
///   `$` keys are read once to classify it (twice for a `$dict` key), an identity is found with
///   one hash lookup (`PlainIdentities`), and the per-identity state is flat arrays. What is
///   written more than once is what the plain view repeats: a value object (a string, data, a
///   date …) referred to from several places is written at each, as the lossless view writes a
///   shared string; the output limit bounds that.
/// - **One body per identity.** An object that keeps its identity (a collection or an object of
///   a class) is written once with `$id`; any other place it stands is `{"$ref": n}`. Numbers
///   are given in the order the plain view reaches them (a body or a reference), 1, 2, 3 …
///   across the whole output, nested payloads included, so a payload's identities never
///   collide with the document's.
/// - **A value alone is whole.** Written from one value of the document (`within`), a
///   reference to a body outside that value places the body at the first such reference
///   (with its `$id`, as a dropped body is placed), so that every `$ref` of the text names an
///   `$id` the text holds; the value itself, reached again from such a body, is a reference.
struct PlainWriter {
    private let document: JSONDocument
    private let identities: PlainIdentities
    var output: JSONOutput

    /// Per identity entry: its number in the output (0: none yet), whether its body is written,
    /// whether a reference to it is being written out as its value (a value object that holds a
    /// reference to itself is written `null` there, not without end).
    private var numbers: [Int32]
    private var written: [Bool]
    private var expanding: [Bool]
    private var lastNumber: Int32 = 0
    /// The document whose identities `$id` and `$ref` name (`PlainIdentities.Key.scope`).
    private var scope: UInt32 = 0
    private var stack: [Frame] = []
    /// The source bytes of the value the writer was started at, when not the whole document.
    private let within: Range<Int>?

    private enum Frame {
        /// An array's elements; then `]`.
        case elements(JSONDocument.Cursor)
        /// An object's data members (and renamed readable members); then `}`. `mappingKeys`:
        /// how many of the members left may hold a `$` key (`JSONDocument.mappingKeySpans`);
        /// every member after them is a data key.
        case members(JSONDocument.Cursor, mappingKeys: Int)
        /// Groups (one-member objects `{"type": value}`), each written as its value; then `]`.
        case groupValues(JSONDocument.Cursor)
        /// `[key, value]` pairs whose keys are distinct strings, as members; then `}`.
        case pairMembers(JSONDocument.Cursor)
        /// `[key, value]` pairs as `{"key": …, "value": …}` objects; then `]`.
        case pairObjects(JSONDocument.Cursor)
        /// The value of a `{"key": …, "value": …}` object whose key is written; then `}`.
        case pairValue(JSONDocument.Value)
        /// A URL's relative text after its base; then `}`.
        case urlRelative(JSONDocument.Value)
        /// Closes an object opened around a container (`{"$id": n, "$array": […]}`).
        case closeObject
        /// A reference written out as its value is done.
        case endExpansion(Int)
        /// A nested document is done: back to the enclosing one's identities.
        case endScope(UInt32)
    }

    /// `within`: the source range of the value `write(from:)` starts at, when it is not the
    /// document's root; `scope`: the document that value is in (`JSONDocument.identityScope`).
    init(document: JSONDocument, identities: PlainIdentities, output: JSONOutput, within: Range<Int>? = nil, scope: UInt32 = 0) {
        self.document = document
        self.identities = identities
        self.output = output
        self.within = within
        self.scope = scope
        let count = identities.entries.count
        numbers = Array(filledWith: 0, count: count)
        written = Array(filledWith: false, count: count)
        expanding = Array(filledWith: false, count: count)
    }

    /// Writes the whole document; stops early (leaving the text unfinished) when the output
    /// passes its limit or the deadline passes (`JSONOutput.reachedLimit`).
    mutating func write(from value: JSONDocument.Value? = nil) throws(CodecError) {
        try begin(value ?? document.root)
        while !stack.isEmpty {
            if output.reachedLimit() { return }
            try step()
        }
    }

    // MARK: Frames

    private mutating func step() throws(CodecError) {
        let last = stack.count - 1
        switch stack[last] {
        case .elements(var cursor):
            guard let element = document.nextElement(&cursor) else {
                stack.removeLast()
                output.closeArray()
                return
            }
            stack[last] = .elements(cursor)
            try begin(element)
        case .members(var cursor, var mappingKeys):
            while let (key, value) = document.nextMember(&cursor) {
                if mappingKeys == 0 || document.isDataKey(key) {
                    // A data key is written as the lossless view spells it (`$$` kept).
                    document.source.withUnsafeBufferPointer { source in
                        output.key(json: UnsafeBufferPointer(rebasing: source[document.sourceRange(of: key)]))
                    }
                } else if let renamed = document.renamedKeyIndex(key) {
                    writeRenamedKey(renamed)
                } else {
                    mappingKeys -= 1
                    continue
                }
                if mappingKeys > 0 { mappingKeys -= 1 }
                stack[last] = .members(cursor, mappingKeys: mappingKeys)
                try begin(value)
                return
            }
            stack.removeLast()
            output.closeObject()
        case .groupValues(var cursor):
            guard let group = document.nextElement(&cursor) else {
                stack.removeLast()
                output.closeArray()
                return
            }
            stack[last] = .groupValues(cursor)
            try begin(groupValue(group))
        case .pairMembers(var cursor):
            guard let pair = document.nextElement(&cursor) else {
                stack.removeLast()
                output.closeObject()
                return
            }
            stack[last] = .pairMembers(cursor)
            var parts = document.children(of: pair)
            let key = document.nextElement(&parts)!
            let value = document.nextElement(&parts)!
            // Checked when the pairs were chosen to be members (`stringKeys`).
            let text = try keyText(key)!
            document.withString(text) { text in
                output.key(utf8: text, prefix: text.first == MappingKeys.marker ? MappingKeys.marker : nil)
            }
            try begin(value)
        case .pairObjects(var cursor):
            guard let pair = document.nextElement(&cursor) else {
                stack.removeLast()
                output.closeArray()
                return
            }
            stack[last] = .pairObjects(cursor)
            var parts = document.children(of: pair)
            let key = document.nextElement(&parts)
            let value = document.nextElement(&parts)
            guard document.kind(pair) == .array, let key, let value else {
                throw CodecError(.invalidDocument, "a $dict pair is an array of a key and a value", jsonPath: document.path(to: pair))
            }
            output.openObject()
            output.key("key")
            stack.append(.pairValue(value))
            try begin(key)
        case .pairValue(let value):
            stack[last] = .closeObject
            output.key("value")
            try begin(value)
        case .urlRelative(let relative):
            stack[last] = .closeObject
            output.key("relative")
            try begin(relative)
        case .closeObject:
            stack.removeLast()
            output.closeObject()
        case .endExpansion(let entry):
            stack.removeLast()
            expanding[entry] = false
        case .endScope(let outer):
            stack.removeLast()
            scope = outer
        }
    }

    // MARK: Values

    /// Writes `value`'s plain view: a scalar at once, a container opened with its frame pushed.
    /// Forms that stand for another value (a value object's content, a document's root, a
    /// reference written as its value) are followed in this loop, not by recursion.
    private mutating func begin(_ start: JSONDocument.Value) throws(CodecError) {
        var value = start
        while true {
            switch document.kind(value) {
            case .array:
                output.openArray()
                stack.append(.elements(document.children(of: value)))
                return
            case .object:
                guard let next = try object(value) else { return }
                value = next
            default:
                document.source.withUnsafeBufferPointer { source in
                    output.scalar(json: UnsafeBufferPointer(rebasing: source[document.sourceRange(of: value)]))
                }
                return
            }
        }
    }

    /// Writes object `object`'s plain view, or returns the value to write in its place.
    private mutating func object(_ object: JSONDocument.Value) throws(CodecError) -> JSONDocument.Value? {
        let shape = try document.plainShape(of: object)
        switch shape.form {
        case .reference(let identity):
            return try reference(identity, at: object)
        case .content(let content):
            if shape.opensDocument { enterDocument(object) }
            return content
        case .typedStream(let groups):
            enterDocument(object)
            guard document.kind(groups) == .array else { return groups }
            if document.count(groups) == 1 {
                var cursor = document.children(of: groups)
                return groupValue(document.nextElement(&cursor)!)
            }
            output.openArray()
            stack.append(.groupValues(document.children(of: groups)))
        case .exactNumber(let text):
            writeExactNumber(text)
        case .date(let date):
            writeDate(date)
        case .null:
            output.null()
        case .url(let base, let relative):
            guard let base, document.kind(base) != .null else { return relative }
            output.openObject()
            output.key("base")
            stack.append(.urlRelative(relative))
            return base
        case .sequence(let elements):
            guard let number = claimBody(shape) else { return nil }
            if number == 0 { return elements }
            openObject(shape, number: number)
            output.key(MappingKeys.array)
            stack.append(.closeObject)
            return elements
        case .pairs(let pairs):
            guard document.isContainer(pairs) else { return pairs }
            guard let number = claimBody(shape) else { return nil }
            if document.kind(pairs) == .object {
                // A mutable dictionary's string keys in a `$dict` object: its members, every key
                // a data key as the lossless view spells it.
                openObject(shape, number: number)
                stack.append(.members(document.children(of: pairs), mappingKeys: 0))
            } else if try stringKeys(pairs) {
                openObject(shape, number: number)
                stack.append(.pairMembers(document.children(of: pairs)))
            } else {
                if number != 0 {
                    openObject(shape, number: number)
                    output.key(MappingKeys.array)
                    stack.append(.closeObject)
                }
                output.openArray()
                stack.append(.pairObjects(document.children(of: pairs)))
            }
        case .groups(let groups):
            guard let number = claimBody(shape) else { return nil }
            openObject(shape, number: number)
            output.key("groups")
            stack.append(.closeObject)
            guard document.kind(groups) == .array else { return groups }
            output.openArray()
            stack.append(.groupValues(document.children(of: groups)))
        case .members:
            guard let number = claimBody(shape) else { return nil }
            openObject(shape, number: number)
            stack.append(.members(document.children(of: object), mappingKeys: document.mappingKeySpan(of: object)))
        }
        return nil
    }

    /// The body of an object that keeps its identity, about to be written: its identity's
    /// number (0: it has none), or nil when that body is written already, and a reference to it
    /// was written in its place.
    private mutating func claimBody(_ shape: PlainShape) -> Int32? {
        guard let identity = shape.identity, let entry = identities.entry(identity, scope: scope, in: document) else { return 0 }
        let number = self.number(entry)
        guard !written[entry] else {
            output.singleMemberObject(MappingKeys.reference, UInt64(number))
            return nil
        }
        written[entry] = true
        return number
    }

    /// `{` with the body's `$class` (when the plain view writes it) and `$id` (when `number` is
    /// not 0).
    private mutating func openObject(_ shape: PlainShape, number: Int32) {
        output.openObject()
        if let className = shape.className {
            output.key(MappingKeys.className)
            document.withString(className) { output.string(utf8: $0) }
        }
        if number != 0 {
            output.key(MappingKeys.identity)
            output.uint(UInt64(number))
        }
    }

    /// A `$ref`: the value it names written again (a value object), the body it names when that
    /// stands where nothing is written (or outside the value written alone) and is not written
    /// yet, or `{"$ref": n}`.
    private mutating func reference(_ identity: JSONDocument.Value, at object: JSONDocument.Value) throws(CodecError) -> JSONDocument.Value? {
        guard let entry = identities.entry(identity, scope: scope, in: document) else {
            throw CodecError(.invalidDocument, "$ref names no $id of its document", jsonPath: document.path(to: object))
        }
        let target = identities.entries[entry]
        if target.isValue {
            guard !expanding[entry] else {
                output.null()
                return nil
            }
            expanding[entry] = true
            stack.append(.endExpansion(entry))
            return target.body
        }
        if !written[entry], target.dropped || within.map({ !$0.contains(Int(target.body.offset)) }) == true { return target.body }
        output.singleMemberObject(MappingKeys.reference, UInt64(number(entry)))
        return nil
    }

    private mutating func number(_ entry: Int) -> Int32 {
        if numbers[entry] == 0 {
            lastNumber += 1
            numbers[entry] = lastNumber
        }
        return numbers[entry]
    }

    private mutating func enterDocument(_ wrapper: JSONDocument.Value) {
        stack.append(.endScope(scope))
        scope = wrapper.offset &+ 1
    }

    /// A group's value: the one member of `{"type": value}` (anything else as it is).
    private func groupValue(_ group: JSONDocument.Value) -> JSONDocument.Value {
        guard document.kind(group) == .object, document.count(group) == 1 else { return group }
        var cursor = document.children(of: group)
        return document.nextMember(&cursor)!.value
    }

    private mutating func writeRenamedKey(_ index: Int) {
        let key = PlainShape.renamedKeys[index]
        key.withUTF8Buffer { text in output.key(utf8: UnsafeBufferPointer(rebasing: text.dropFirst())) }
    }

    /// `$integer`, `$real`: the text as a JSON number when it is one (it then reads as the exact
    /// value), else as a string (`"NaN"`, `"Infinity"`, `"-Infinity"`, `"NaN:…"`).
    private mutating func writeExactNumber(_ value: JSONDocument.Value) {
        guard document.kind(value) == .string else {
            writeScalarOrNull(value)
            return
        }
        document.withString(value) { text in
            let isNumber = !text.isEmpty && (try? JSONNumber.read(text, at: 0).end) == text.count
            if isNumber { output.scalar(json: text) } else { output.string(utf8: text) }
        }
    }

    /// `$date`: its ISO 8601 text; a date written as seconds since 2001 (its text would not
    /// read back exactly) as ISO text to the nanosecond, or as the seconds when its year is
    /// outside 1 … 9999.
    private mutating func writeDate(_ value: JSONDocument.Value) {
        guard document.kind(value) == .number else {
            writeScalarOrNull(value)
            return
        }
        let seconds: Double
        switch document.number(value) {
        case .signed(let integer): seconds = Double(integer)
        case .unsigned(let integer): seconds = Double(integer)
        case .real(let real): seconds = real
        }
        if let text = DateText.readable(seconds) ?? DateText.format(seconds, fractionDigits: 9) {
            text.withUnsafeBufferPointer { output.rawString($0) }
        } else {
            writeScalarOrNull(value)
        }
    }

    /// A scalar as it is; a container (not in a well-formed document at these places) as null.
    private mutating func writeScalarOrNull(_ value: JSONDocument.Value) {
        guard !document.isContainer(value) else {
            output.null()
            return
        }
        document.source.withUnsafeBufferPointer { source in
            output.scalar(json: UnsafeBufferPointer(rebasing: source[document.sourceRange(of: value)]))
        }
    }

    // MARK: Dictionary keys

    /// Whether every pair of `pairs` is `[key, value]` with a key whose plain view is a string
    /// (`keyText`), no two the same: the pairs are then an object's members.
    private func stringKeys(_ pairs: JSONDocument.Value) throws(CodecError) -> Bool {
        var seen = Set<String>()
        var cursor = document.children(of: pairs)
        while let pair = document.nextElement(&cursor) {
            guard document.kind(pair) == .array, document.count(pair) == 2 else { return false }
            var parts = document.children(of: pair)
            guard let text = try keyText(document.nextElement(&parts)!) else { return false }
            guard seen.insert(document.stringValue(text)).inserted else { return false }
        }
        return true
    }

    /// The string a `$dict` key's plain view is: a string, text (`$string`), or a reference to
    /// a value object that is text; nil for any other key. Follows at most a few steps (a
    /// reference to a mutable string, whose `$string` is a reference to a shared string).
    private func keyText(_ key: JSONDocument.Value) throws(CodecError) -> JSONDocument.Value? {
        var value = key
        for _ in 0..<8 {
            switch document.kind(value) {
            case .string:
                return value
            case .object:
                let shape = try document.plainShape(of: value)
                if case .reference(let identity) = shape.form, let entry = identities.entry(identity, scope: scope, in: document),
                    identities.entries[entry].isValue
                {
                    value = identities.entries[entry].body
                } else if shape.isText, case .content(let text) = shape.form {
                    value = text
                } else {
                    return nil
                }
            default:
                return nil
            }
        }
        return nil
    }
}
