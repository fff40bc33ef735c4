/// Following a `ReadablePath` through a document's readable JSON.
///
/// At each step a `{"$ref": n}` is followed to the object that carries `"$id": n`, and a
/// wrapper the step does not name is gone through: a collection's `$array`, `$set` or
/// `$orderedSet`, a `$dict`'s members or pairs (a key step finds the pair whose key is that string), an
/// envelope's `$top` (and, when it holds one root, that root), a nested payload's `$data`, `$keyedArchive` or `$propertyList`, bytes read
/// as numbers (`$bytes` holding `$components`, `$ranges`, …), a typedstream's `$typedstream`. A key that begins with `$` is looked for as
/// a data key first (written `$$…`), then as the mapping's own key. So `.teams[1].name` reads a
/// save whether `teams` is an NSArray or an NSMutableArray and whether the team is written
/// there or referred to.
///
/// Linear: each step looks through one container; the `$id` index is made once, on the first
/// `$ref` met, by one pass over the document's containers.
extension JSONDocument {
    /// Why a path leads nowhere, naming the deepest place it reached; or, with `refusal` set,
    /// why the walk was stopped before it got anywhere (a bound of `PathWalk`'s, the thread's
    /// `ConversionDeadline`): an answer for the caller's limits, not for the path.
    public struct PathFailure: Error, Sendable, CustomStringConvertible {
        public let description: String
        public let refusal: CodecError?

        init(description: String) {
            self.description = description
            refusal = nil
        }

        init(refusal: CodecError) {
            description = refusal.description
            self.refusal = refusal
        }
    }

    /// What one walk along a path has spent. Each look into a container spends the children it
    /// may step over, and the walk is refused once it has spent `stepsPerValue` times the
    /// document's values: a path reaches a container again only through `$ref`s, and one that
    /// goes round a cycle of them through a large array (`.a[99999].back[99999].back…`) would
    /// otherwise cost its length times the array's size — quadratic in a request. A path that
    /// looks into each container once spends at most the document's values (twice over for a
    /// key step: its own look and the look for a wrapper), and the `$id` index at most once more.
    /// The thread's `ConversionDeadline` is read every `ConversionDeadline.pollInterval` steps.
    struct PathWalk {
        /// The objects that carry `$id`, by the document they are in and their number: made on
        /// the first `$ref` met.
        var identities: [Identity: Value]?
        /// The document the walk is in, whose `$id`s a `$ref` names (docs/mapping.md, "Nested
        /// payloads": a payload's identities are its own): 0 for the outermost, the offset of the
        /// object that holds a nested document (`$keyedArchive`, `$propertyList`,
        /// `$typedstream`) plus one once the walk has stepped into it.
        var scope: UInt32 = 0
        /// A container the walk went into that is gone through to its one value as a wrapper
        /// is, so that the plain view's paths (where a document is its root value and a
        /// typedstream group its value) work here too: a `$top` of one root (under a key that
        /// is not `root`), a typedstream's groups when they are one group, a group taken from
        /// them (`{"@": value}`).
        var oneRoot: Value?
        /// The last typedstream's groups (`$typedstream`'s array) the walk went into.
        var groups: Value?
        private(set) var spent = 0
        let budget: Int

        static let stepsPerValue = 8

        struct Identity: Hashable {
            var scope: UInt32
            var number: Int64
        }

        init(document: JSONDocument) {
            budget = Self.stepsPerValue * (document.valueCount + 1)
        }

        /// `element`, taken from `container`, is gone through as `oneRoot` when it is a group.
        mutating func took(_ element: Value, from container: Value, in document: JSONDocument) {
            if container == groups, document.kind(element) == .object, document.count(element) == 1 { oneRoot = element }
        }

        /// The walk stepped from `object` into its member `value` under mapping key `key`, named
        /// by the path (`.$keyedArchive`, `.$typedstream`): its document, and its groups (a
        /// group taken from them is gone through; the groups themselves are indexed as they
        /// stand, as `compare` names them: `.$typedstream[0].@`).
        mutating func entered(_ key: [UInt8], value: Value, from object: Value, in document: JSONDocument) {
            key.withUnsafeBufferPointer { text in
                if JSONDocument.documentKeys.contains(where: { JSONText.text(text, equals: $0) }) { scope = object.offset &+ 1 }
                if JSONText.text(text, equals: MappingKeys.typedStream) { groups = value }
            }
        }

        mutating func step(over children: Int) throws(PathFailure) {
            let before = spent
            spent += children + 1
            guard spent <= budget else {
                throw PathFailure(
                    refusal: CodecError(
                        .limitExceeded,
                        "the path looks through more values than \(Self.stepsPerValue) times the document's \(budget / Self.stepsPerValue - 1): it goes round $refs through large containers; name the value by a path that does not",
                        found: spent, limit: budget))
            }
            if before / ConversionDeadline.pollInterval != spent / ConversionDeadline.pollInterval {
                do throws(CodecError) {
                    try ConversionDeadline.check()
                } catch {
                    throw PathFailure(refusal: error)
                }
            }
        }
    }

    /// The JSON text of the value at `path` (a `$ref` at its end followed).
    public func valueText(at path: ReadablePath) throws(PathFailure) -> [UInt8] {
        let value = try value(at: path)
        return Array(source[sourceRange(of: value)])
    }

    /// The text of the string at `path`, unescaped, or nil when the value there is not a
    /// string (an NSString's `{"$string": …}` form counts as its string).
    public func stringText(at path: ReadablePath) throws(PathFailure) -> [UInt8]? {
        var value = try value(at: path)
        if kind(value) == .object, let content = member(of: value, MappingKeys.string), count(value) <= 3, kind(content) == .string {
            value = content
        }
        return kind(value) == .string ? withString(value) { Array($0) } : nil
    }

    /// The bytes of the data value at `path` (`{"$data": …}`, `{"$bytes": …}` in any of their
    /// forms, `{"$text": …}`, a bookmark's or alias record's bytes beside their account), or nil
    /// when the value there is not data. A nested payload's bytes are its document encoded
    /// again, as encode writes them.
    public func dataBytes(at path: ReadablePath) throws(PathFailure) -> [UInt8]? {
        let value = try value(at: path)
        guard kind(value) == .object else { return nil }
        do {
            for key in [MappingKeys.data, MappingKeys.bytes] {
                if let content = member(of: value, key) { return try dataBytes(content) }
            }
            if let text = member(of: value, MappingKeys.text) { return try textBytes(text) }
        } catch {
            throw PathFailure(description: "the data at \(path) cannot be read: \(error)")
        }
        return nil
    }

    func value(at path: ReadablePath) throws(PathFailure) -> Value {
        var walk = PathWalk(document: self)
        return try value(at: path, walk: &walk)
    }

    /// `value(at:)`, spending from `walk` (which a caller that goes on from the value passes on).
    func value(at path: ReadablePath, walk: inout PathWalk) throws(PathFailure) -> Value {
        var current = root
        for (position, step) in path.steps.enumerated() {
            var through = 0
            while true {
                current = try followingReference(current, walk: &walk, path: path.prefix(position))
                if let next = try take(step, from: current, walk: &walk) {
                    current = next
                    break
                }
                // Not here: through the wrapper, if the value is one, and again; at the last
                // wrapper, a member by the name the plain view gives it.
                guard let inner = try wrapped(current, walk: &walk, for: step), through < 64 else {
                    if let renamed = renamedStep(step), let found = try take(renamed, from: current, walk: &walk) {
                        current = found
                        break
                    }
                    throw PathFailure(description: "no value at \(path.prefix(position + 1)): \(path.prefix(position)) \(describe(current, for: step))")
                }
                through += 1
                current = inner
            }
        }
        return try followingReference(current, walk: &walk, path: path)
    }

    /// The key step `step` names as the plain view renames it (`.hex` for `$hex`,
    /// `PlainShape.renamedKeys`), tried where no data key and no wrapper has the name.
    func renamedStep(_ step: ReadablePath.Step) -> ReadablePath.Step? {
        guard case .key(let key) = step, let renamed = Self.renamedMember(Array(key.utf8)) else { return nil }
        return .key(String(decoding: renamed, as: UTF8.self))
    }

    /// `value`, or the object its `$ref` names.
    func followingReference(_ value: Value, walk: inout PathWalk, path: ReadablePath) throws(PathFailure) -> Value {
        guard kind(value) == .object, let reference = singleMember(value, named: MappingKeys.reference) else { return value }
        guard kind(reference.value) == .number, case .signed(let id) = number(reference.value) else { return value }
        if walk.identities == nil { walk.identities = try identityIndex(walk: &walk) }
        guard let target = walk.identities?[PathWalk.Identity(scope: walk.scope, number: id)] else { throw PathFailure(description: "\(path) is {\"$ref\": \(id)}, and no object has \"$id\": \(id)") }
        return target
    }

    /// Every object that carries `$id`, by the document it is in (`PathWalk.scope`: a member
    /// under a nested document's key is in that document) and its number.
    private func identityIndex(walk: inout PathWalk) throws(PathFailure) -> [PathWalk.Identity: Value] {
        var index: [PathWalk.Identity: Value] = [:]
        try forEachContainer(under: root, scope: 0) { (container, scope) throws(PathFailure) in
            try walk.step(over: count(container))
            guard kind(container) == .object, let id = integerMember(of: container, MappingKeys.identity) else { return }
            index[PathWalk.Identity(scope: scope, number: id)] = container
        }
        return index
    }

    /// Calls `body` with every container in `value` (itself included) and the document it is
    /// in (`value` in `scope`; a member under a nested document's key in that document,
    /// `PathWalk.scope`), with a heap stack: any nesting is safe.
    func forEachContainer<E: Error>(under value: Value, scope: UInt32, _ body: (Value, UInt32) throws(E) -> Void) throws(E) {
        var pending: [(Value, UInt32)] = isContainer(value) ? [(value, scope)] : []
        while let (container, scope) = pending.popLast() {
            try body(container, scope)
            var cursor = children(of: container)
            if kind(container) == .object {
                while let (key, member) = nextMember(&cursor) {
                    if isContainer(member) { pending.append((member, Self.holdsDocument(key, in: self) ? container.offset &+ 1 : scope)) }
                }
            } else {
                while let element = nextElement(&cursor) {
                    if isContainer(element) { pending.append((element, scope)) }
                }
            }
        }
    }

    /// The number of object `object`'s member `key` when it is a whole number that fits 64
    /// bits signed (an `$id`'s, a `$ref`'s).
    func integerMember(of object: Value, _ key: StaticString) -> Int64? {
        var cursor = children(of: object)
        while let (name, value) = nextMember(&cursor) {
            if stringEquals(name, key), kind(value) == .number, case .signed(let id) = number(value) { return id }
        }
        return nil
    }

    /// Whether member key `key` holds a nested document (`$keyedArchive`, `$propertyList`,
    /// `$typedstream`): the member is in a document of its own.
    static func holdsDocument(_ key: Value, in document: JSONDocument) -> Bool {
        guard let rank = wrapperRank(of: key, in: document) else { return false }
        return documentRanks.contains(rank)
    }

    /// The document `value` is in (`PathWalk.scope`): one descent from the root through the
    /// containers whose text holds it, entering a nested document under its key.
    func identityScope(of value: Value) -> UInt32 {
        var scope: UInt32 = 0
        var current = root
        let target = Int(value.offset)
        while current != value, isContainer(current) {
            var next: Value?
            var cursor = children(of: current)
            if kind(current) == .object {
                while next == nil, let (key, member) = nextMember(&cursor) {
                    guard sourceRange(of: member).contains(target) else { continue }
                    if Self.holdsDocument(key, in: self) { scope = current.offset &+ 1 }
                    next = member
                }
            } else {
                while next == nil, let element = nextElement(&cursor) {
                    if sourceRange(of: element).contains(target) { next = element }
                }
            }
            guard let next else { break }
            current = next
        }
        return scope
    }

    /// `step` taken from `value` itself, or nil when `value` has no such member or element.
    func take(_ step: ReadablePath.Step, from value: Value, walk: inout PathWalk) throws(PathFailure) -> Value? {
        switch step {
        case .index(let index):
            guard kind(value) == .array else { return nil }
            let count = count(value)
            let position = index < 0 ? count + index : index
            guard (0..<count).contains(position) else { return nil }
            try walk.step(over: position + 1)
            var cursor = children(of: value)
            for _ in 0..<position { _ = nextElement(&cursor) }
            guard let element = nextElement(&cursor) else { return nil }
            walk.took(element, from: value, in: self)
            return element
        case .key(let key):
            guard kind(value) == .object else { return nil }
            // One look through the members notes each spelling the key may have: a data key
            // starting with `$` is written `$$…` and wins over the mapping's own key of that
            // name; either wins over a `$dict` pair.
            try walk.step(over: count(value))
            let bytes = Array(key.utf8)
            let isMapping = bytes.first == MappingKeys.marker
            var (escaped, plain, dictionary): (Value?, Value?, Value?) = (nil, nil, nil)
            var members = children(of: value)
            while let (name, member) = nextMember(&members) {
                withString(name) { text in
                    if isMapping, escaped == nil, text.count == bytes.count + 1, text.first == MappingKeys.marker, text.dropFirst().elementsEqual(bytes) {
                        escaped = member
                    } else {
                        if plain == nil, text.elementsEqual(bytes) { plain = member }
                        if dictionary == nil, JSONText.text(text, equals: MappingKeys.dict) { dictionary = member }
                    }
                }
            }
            if let found = escaped { return found }
            // A data key beginning with `$` of a mutable dictionary whose keys stand in a `$dict`
            // object is there as `$$…`, and wins over the object's own mapping key.
            if isMapping, let members = dictionary, kind(members) == .object {
                try walk.step(over: count(members))
                if let found = member(of: members, [MappingKeys.marker] + bytes) { return found }
            }
            if let found = plain {
                if isMapping { walk.entered(bytes, value: found, from: value, in: self) }
                return found
            }
            if let pairs = dictionary, kind(pairs) == .array {
                try walk.step(over: count(pairs))
                var cursor = children(of: pairs)
                while let pair = nextElement(&cursor) {
                    guard kind(pair) == .array, count(pair) == 2 else { continue }
                    var parts = children(of: pair)
                    let pairKey = try followingReference(nextElement(&parts)!, walk: &walk, path: ReadablePath(steps: []))
                    let string = kind(pairKey) == .object ? member(of: pairKey, MappingKeys.string) ?? pairKey : pairKey
                    if kind(string) == .string, withString(string, { $0.elementsEqual(bytes) }) { return nextElement(&parts) }
                }
            }
            return nil
        }
    }

    /// The mapping key the plain view writes as `key` (`PlainShape.renamedKeys`: `$hex` for
    /// `hex`), if it renames one so.
    static func renamedMember(_ key: [UInt8]) -> [UInt8]? {
        guard key.first != MappingKeys.marker else { return nil }
        let spelled = [MappingKeys.marker] + key
        let known = spelled.withUnsafeBufferPointer { text in PlainShape.renamedKeys.contains { JSONText.text(text, equals: $0) } }
        return known ? spelled : nil
    }

    /// What `value` wraps, when it is one of the mapping's wrappers.
    /// `step`: the step about to be taken inside, when known: a typedstream's groups are
    /// indexed as they stand (`.[0]` is the first group, as before), only a key step goes
    /// through a single group to its value.
    func wrapped(_ value: Value, walk: inout PathWalk, for step: ReadablePath.Step? = nil) throws(PathFailure) -> Value? {
        if value == walk.oneRoot, let only = onlyValue(of: value) {
            if case .index = step, kind(value) == .array { return nil }
            try walk.step(over: 1)
            return only
        }
        guard kind(value) == .object else { return nil }
        try walk.step(over: count(value))
        guard let (rank, member) = wrappedMember(value) else { return nil }
        if Self.documentRanks.contains(rank) { walk.scope = value.offset &+ 1 }
        if rank == Self.topRank || rank == Self.typedStreamRank { walk.oneRoot = member }
        if rank == Self.typedStreamRank { walk.groups = member }
        return member
    }

    /// The one value of a `PathWalk.oneRoot`: an object's one member, or an array's one
    /// element's when that is an object of one member (a typedstream's one group); nil for
    /// anything else.
    func onlyValue(of container: Value) -> Value? {
        guard count(container) == 1 else { return nil }
        var cursor = children(of: container)
        if kind(container) == .object { return nextMember(&cursor)?.value }
        guard kind(container) == .array, let group = nextElement(&cursor), kind(group) == .object, count(group) == 1 else { return nil }
        var members = children(of: group)
        return nextMember(&members)?.value
    }

    /// What `value` wraps, when it is one of the mapping's wrappers: a collection's or an
    /// envelope's content, or a nested payload's readable content (`{"$data": {…}}`, bytes read
    /// as numbers `{"$bytes": {…}}`; not base64 text). One look through the members: the first
    /// of the wrapper keys, in the order below, that the object has.
    func wrapped(_ value: Value) -> Value? {
        wrappedMember(value)?.value
    }

    /// `wrapped(_:)` with the rank of the wrapper key it went through (`wrapperKeys`).
    private func wrappedMember(_ value: Value) -> (rank: Int, value: Value)? {
        guard kind(value) == .object else { return nil }
        var found: (rank: Int, value: Value)?
        var cursor = children(of: value)
        while let (key, member) = nextMember(&cursor) {
            guard let rank = Self.wrapperRank(of: key, in: self), rank < (found?.rank ?? .max) else { continue }
            if rank >= Self.wrapperKeys.count - 2, !isContainer(member) { continue }
            // `$dict` pairs are looked through by the key step itself (`take`).
            if rank == Self.dictionaryRank, kind(member) != .object { continue }
            found = (rank, member)
        }
        return found
    }

    /// The wrapper keys, first found first; the last two wrap only a container, `$dict` only
    /// its object form (a mutable dictionary's string keys: `{"$class": …, "$dict": {…}}`).
    private static let wrapperKeys: [StaticString] = [
        MappingKeys.array, MappingKeys.set, MappingKeys.orderedSet, MappingKeys.dict, MappingKeys.top, MappingKeys.keyedArchive,
        MappingKeys.propertyList, MappingKeys.typedStream, MappingKeys.data, MappingKeys.bytes
    ]
    private static let dictionaryRank = 3
    private static let topRank = 4
    private static let typedStreamRank = 7
    /// The ranks of the keys that hold a nested document, and those keys.
    private static let documentRanks = 5...7
    static let documentKeys = Array(wrapperKeys[documentRanks])

    private static func wrapperRank(of key: Value, in document: JSONDocument) -> Int? {
        // Every wrapper key begins with the mapping's marker (which an escaped key may spell
        // as an escape).
        guard key.payload & Value.escapedBit != 0 || document.source[Int(key.offset) + 1] == MappingKeys.marker else { return nil }
        return wrapperKeys.firstIndex { document.stringEquals(key, $0) }
    }

    /// The member of object `value` whose key is `key` (compared in place, no bytes made).
    func member(of value: Value, _ key: StaticString) -> Value? {
        var cursor = children(of: value)
        while let (name, member) = nextMember(&cursor) {
            if stringEquals(name, key) { return member }
        }
        return nil
    }

    func member(of value: Value, _ key: [UInt8]) -> Value? {
        var cursor = children(of: value)
        while let (name, member) = nextMember(&cursor) {
            if withString(name, { $0.elementsEqual(key) }) { return member }
        }
        return nil
    }

    /// Why `step` is not in `value`, in words.
    func describe(_ value: Value, for step: ReadablePath.Step) -> String {
        switch (kind(value), step) {
        case (.array, .index): return "holds \(count(value)) elements"
        case (.object, .key(let key)): return "has no key \(key.debugDescription)"
        case (.array, .key): return "is an array: index it with [n]"
        case (.object, .index): return "is an object: name a key"
        case (let other, _): return "is \(other == .string ? "a string" : other == .number ? "a number" : other == .bool ? "true or false" : "null")"
        }
    }
}
