/// A typedstream (NSArchiver's `streamtyped` format) as flat tables: what
/// `TypedStreamReader` reads and `TypedStreamWriter` writes back byte for byte, and what
/// `TypedStreamBuilder` makes by hand.
///
/// A stream is a sequence of top-level groups; a group is a type string and one value per type
/// in it; an object value that is new where it stands carries its class and its own groups, up
/// to an end-of-object mark. Everything lives in arrays of small records pointing at each other
/// by index, never in a tree of Swift values: a stream nested a million objects deep is read,
/// written and released without recursion.
///
/// Sharing. A stream keeps two tables that later bytes refer back into: shared strings (type
/// strings, class names, `%` and `:` values, a C string's text), and one table numbering
/// objects, classes and C strings together in the order they appear. The model keeps the
/// things, not the numbers: a value points at an object, class or C string by its index in
/// `objects`, `classes` or `cStrings`, and at a shared string by its index in `sharedStrings`.
/// Where a thing first occurs in stream order it is written in full (an object's class and
/// groups at that value); every later occurrence is a reference. The writer numbers the
/// tables as it goes, as Apple's writer did, so a model built by hand needs no numbers, and a
/// stream read has its own numbers back because its order is kept.
struct TypedStream: Sendable {
    var byteOrder: ByteOrder
    /// The header's system version (1000 from Mac OS X on; `TypedStreamHeader`).
    var systemVersion: Int64
    /// The bytes that every `Span` of the model points into. A stream read keeps its input
    /// here (its strings are not copied); a builder appends the bytes it is given and the
    /// spellings of its `q Q d +` values (`Value.word`), in `byteOrder`.
    var storage: [UInt8]
    /// The shared-string table, in the order its strings first occur. Two entries may hold
    /// equal bytes (a stream may define a string twice); a builder interns by content.
    var sharedStrings: [Span] = []
    /// The parsed type strings; every value's `type` is one of its nodes.
    var types = TypeTable()
    /// Every value of the stream. A group's values, and a struct's, array's or pointer's
    /// children, are contiguous runs, reserved in stream order as each group begins and each
    /// composite opens; so an object's groups, with everything reserved inside them, are one
    /// run from its `firstValue` to its `end`, the top-level groups are the whole table, and
    /// a group is named by its first value (`end(ofGroup:)` finds the next one). No table of
    /// groups is kept: groups are about a value each in most streams, and such a table was an
    /// eighth of a model.
    var values: [Value] = []
    var objects: [Object] = []
    var classes: [Class] = []
    /// Per C string (a `*` value's string; the stream's object table numbers them): the shared
    /// string holding its text.
    var cStrings: [UInt32] = []
    /// The most objects, groups and composites open at once, the stream itself counted (1
    /// for an empty stream), as the builder met them: the stream's nesting in its own order,
    /// which is the order its JSON is written in (`TypedStreamDocument.depthBound`).
    var deepestOpen = 1
    /// Where a salvaged read stopped (`Break`); nil for every stream read whole or built.
    var broken: Break?

    init(byteOrder: ByteOrder, systemVersion: Int64 = TypedStreamHeader.currentSystemVersion, storage: [UInt8] = []) {
        self.byteOrder = byteOrder
        self.systemVersion = systemVersion
        self.storage = storage
    }

    /// A run of `storage`. Offsets are 32-bit: a stream is at most 4 GiB (the reader refuses
    /// larger input; a builder refuses to grow past it).
    struct Span: Equatable, Sendable {
        var start: UInt32
        var count: UInt32

        var range: Range<Int> { Int(start)..<(Int(start) + Int(count)) }
    }

    /// An object: its class and its contents, the groups up to its end-of-object mark. The
    /// `@` value where it first occurs in stream order, which the stream spells in full (class
    /// and groups), is the one marked `Value.isFirstOccurrence`; every other value holding the
    /// object is a back-reference to it.
    struct Object: Equatable, Sendable {
        /// Its class, an index in `classes` (every object has one).
        var classIndex: UInt32
        /// The first value of its first group (its `end` when it has none).
        var firstValue: UInt32
        /// Where the values reserved inside it end: its groups' values, their composites'
        /// children and the groups of the objects first occurring in them are the run
        /// `firstValue..<end`.
        var end: UInt32
    }

    /// A class as the stream names it: the name (a shared string), the version it was written
    /// at, and its superclass, nil at a root class. Superclass links never form a cycle (the
    /// reader refuses a chain that refers back into itself; a builder links only to classes
    /// already defined).
    struct Class: Equatable, Sendable {
        var name: UInt32
        var version: Int64
        var superclass: UInt32?
    }

    // MARK: Walking

    /// The bytes of `span`.
    func bytes(_ span: Span) -> ArraySlice<UInt8> { storage[span.range] }

    /// Lends the bytes of `span` to `body` in place: no slice of `storage` is made (a slice
    /// retains and releases the stream's bytes, and the writer lends a string per value).
    @inline(__always)
    func withBytes<Result>(_ span: Span, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[span.range])) }
    }

    /// The bytes of shared string `index`.
    func sharedString(_ index: Int) -> ArraySlice<UInt8> { storage[sharedStrings[index].range] }

    // A group is named by its first value: a type string holds at least one type, so every
    // group has one. The type string's root is the node before that value's type (a root's
    // first child is the next node, `TypeTable`), so it is not stored either.

    /// The type string of the group whose first value is `first`.
    func encoding(ofGroup first: Int) -> ArraySlice<UInt8> { sharedString(Int(string(ofGroup: first))) }

    /// The parsed root of the type string of the group whose first value is `first`. Inlined,
    /// as the accessors below: a writer asks them of every group.
    @inline(__always)
    func type(ofGroup first: Int) -> UInt32 { values[first].type - 1 }

    /// The values of the group whose first value is `first`.
    @inline(__always)
    func values(ofGroup first: Int) -> Range<Int> { first..<(first + Int(types[type(ofGroup: first)].count)) }

    /// The shared string spelling the types of the group whose first value is `first`.
    @inline(__always)
    func string(ofGroup first: Int) -> UInt32 { types[type(ofGroup: first)].string }

    /// Where the values reserved inside the group whose first value is `first` end: the
    /// first value of the group after it in its object or in the stream (or the object's or
    /// stream's end).
    ///
    /// What was reserved last inside the group is inside its last value that holds a run of
    /// its own: a new object (whose `end` closes everything in it), or a composite, whose
    /// children are looked through the same way; a group holding neither ends with its
    /// values. So the groups of an object are found one after another without a table and
    /// without a stack, each value looked at once at most (the look goes backwards from a
    /// run's end, through the runs on that last path only).
    @inline(__always)
    func end(ofGroup first: Int) -> Int {
        var run = first..<(first + Int(types[type(ofGroup: first)].count))
        while let holder = lastHolder(in: run) {
            switch holder {
            case .object(let object):
                let end = Int(objects[object].end)
                assert(end >= run.upperBound, "an object's run comes after the run holding it")
                return end
            case .children(let children): run = children
            }
        }
        return run.upperBound
    }

    /// A value holding a run of its own (`lastHolder(in:)`).
    private enum Holder {
        /// A new object: its groups are reserved inside it, up to its `end`.
        case object(Int)
        /// A struct, array or pointer: its children.
        case children(Range<Int>)
    }

    /// The last value of `run` holding a run of its own; nil when none does (a nil value, a
    /// salvage's absent slot of any type, holds none).
    @inline(__always)
    private func lastHolder(in run: Range<Int>) -> Holder? {
        var index = run.upperBound
        while index > run.lowerBound {
            index -= 1
            let value = values[index]
            guard !value.isNil else { continue }
            let node = types[value.type]
            switch node.code {
            case TypeCode.object where value.isFirstOccurrence: return .object(value.index)
            case TypeCode.structOpen, TypeCode.pointer: return .children(value.index..<(value.index + Int(node.count)))
            case TypeCode.arrayOpen where !types.isByteArray(value.type): return .children(value.index..<(value.index + Int(node.count)))
            default: continue
            }
        }
        return nil
    }

    /// The groups of object `index` in order, each named by its first value.
    func groups(ofObject index: Int) -> Groups {
        Groups(stream: self, first: Int(objects[index].firstValue), end: Int(objects[index].end))
    }

    /// The top-level groups in order, each named by its first value.
    var topLevelGroups: Groups { Groups(stream: self, first: 0, end: values.count) }

    /// Groups one after another (`end(ofGroup:)`), each named by its first value.
    struct Groups: Sequence, IteratorProtocol {
        let stream: TypedStream
        /// The next group's first value.
        var upcoming: Int
        let end: Int

        init(stream: TypedStream, first: Int, end: Int) {
            self.stream = stream
            upcoming = first
            self.end = end
        }

        mutating func next() -> Int? {
            guard upcoming < end else { return nil }
            let first = upcoming
            upcoming = stream.end(ofGroup: first)
            return first
        }
    }

    /// Calls `body` with each group of object `index` in order, named by its first value: as
    /// `groups(ofObject:)` gives them, without a copy of the stream's tables to iterate with
    /// (a caller asking this of every object it meets).
    @inline(__always)
    func forEachGroup(ofObject index: Int, _ body: (Int) -> Void) {
        var next = Int(objects[index].firstValue)
        let end = Int(objects[index].end)
        while next < end {
            body(next)
            next = self.end(ofGroup: next)
        }
    }

    /// Calls `body` with every group of the stream, each named by its first value: the
    /// top-level ones, then each object's in the order of `objects` (every group once).
    func forEveryGroup(_ body: (Int) -> Void) {
        for group in topLevelGroups { body(group) }
        for object in objects.indices { forEachGroup(ofObject: object, body) }
    }

    /// The first group for which `test` holds, in the order of `forEveryGroup`.
    func firstGroup(where test: (Int) -> Bool) -> Int? {
        if let found = topLevelGroups.first(where: test) { return found }
        for object in objects.indices {
            if let found = groups(ofObject: object).first(where: test) { return found }
        }
        return nil
    }

    /// How many groups the stream holds: counted, a pass over them (no table of them is kept).
    func countGroups() -> Int {
        var count = 0
        forEveryGroup { _ in count += 1 }
        return count
    }

    /// The type node of value `index`.
    func type(of index: Int) -> TypeTable.Node { types[values[index].type] }

    /// The type code of value `index` (`TypeCode`).
    func code(of index: Int) -> UInt8 { types[values[index].type].code }

    /// The encoding of value `index` alone: `i`, `{CGSize=dd}`, `[40c]`.
    func encoding(of index: Int) -> ArraySlice<UInt8> {
        let node = types[values[index].type]
        let string = sharedStrings[Int(node.string)]
        return storage[(Int(string.start) + Int(node.start))..<(Int(string.start) + Int(node.end))]
    }

    /// The name of struct value `index` (`CGSize`), nil for an unnamed struct or another type.
    func structName(of index: Int) -> ArraySlice<UInt8>? {
        let node = values[index].type
        let string = sharedStrings[Int(types[node].string)]
        return storage.withUnsafeBufferPointer { buffer in
            types.structName(node, text: UnsafeBufferPointer(rebasing: buffer[string.range]))
        }.map { storage[(Int(string.start) + $0.lowerBound)..<(Int(string.start) + $0.upperBound)] }
    }

    /// Whether value `index` is an `@` value referring back to an object that occurred before
    /// it (or holds it: a cycle), rather than the object's first occurrence or nil.
    func isBackReference(_ index: Int) -> Bool { backReference(index) != nil }

    /// The object value `index` refers back to, when it is such a value (`isBackReference`).
    func backReference(_ index: Int) -> Int? {
        let value = values[index]
        guard !value.isNil, types[value.type].code == TypeCode.object else { return nil }
        return value.isFirstOccurrence ? nil : value.index
    }

    /// Per object, whether some value refers back to it (`backReference`): what gives an
    /// object its `$id`. One pass over the values, through their buffers (no bounds check or
    /// sharing check per value).
    func objectsReferredBack() -> [Bool] {
        var referred = [Bool](filledWith: false, count: objects.count)
        types.nodes.withUnsafeBufferPointer { nodes in
            values.withUnsafeBufferPointer { values in
                referred.withUnsafeMutableBufferPointer { referred in
                    for value in values {
                        guard nodes[Int(value.type)].code == TypeCode.object, !value.isNil, !value.isFirstOccurrence else { continue }
                        let object = value.index
                        guard object < referred.count else { continue }  // never, for a stream read or built
                        referred[object] = true
                    }
                }
            }
        }
        return referred
    }

    /// The name of class `index`.
    func name(ofClass index: Int) -> ArraySlice<UInt8> { sharedString(Int(classes[index].name)) }

    /// Class `index` and its superclasses, nearest first; at most `limit` of them.
    ///
    /// A chain is as long as a stream makes it (a class per link, a few bytes each), so a
    /// caller that asks per class, not per object written, passes the few links it looks at:
    /// walking whole chains per class is quadratic in a long one.
    func classLinks(_ index: Int, limit: Int = .max) -> ClassLinks { ClassLinks(classes: classes, link: index, left: limit) }

    /// Class `link` and its superclasses, nearest first, at most `left` of them.
    struct ClassLinks: Sequence, IteratorProtocol {
        let classes: [Class]
        var link: Int?
        var left: Int

        mutating func next() -> Int? {
            guard left > 0, let current = link else { return nil }
            left -= 1
            link = classes[current].superclass.map(Int.init)
            return current
        }
    }
}
