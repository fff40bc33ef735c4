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
    /// children, are contiguous runs.
    var values: [Value] = []
    /// Every group: each object's groups are a contiguous run, and so are the top-level ones.
    var groups: [Group] = []
    /// The stream's top-level groups, a run of `groups`.
    var topLevelGroups: Range<Int> = 0..<0
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

    /// A type string and its values: 4 bytes, the first value's slot. The type string's root
    /// is the node before the first value's type (its first child; every type string holds at
    /// least one type, so every group has a first value), so it is not stored: groups are
    /// about a value each in most streams, and a second word per group was a sixth of a model.
    struct Group: Equatable, Sendable {
        var firstValue: UInt32
    }

    /// An object: its class and its contents, the groups up to its end-of-object mark. The
    /// `@` value where it first occurs in stream order, which the stream spells in full (class
    /// and groups), is the one marked `Value.isFirstOccurrence`; every other value holding the
    /// object is a back-reference to it.
    struct Object: Equatable, Sendable {
        /// Its class, an index in `classes` (every object has one).
        var classIndex: UInt32
        var firstGroup: UInt32
        var groupCount: UInt32

        var groups: Range<Int> { Int(firstGroup)..<(Int(firstGroup) + Int(groupCount)) }
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

    /// The type string of group `index`.
    func encoding(ofGroup index: Int) -> ArraySlice<UInt8> { sharedString(Int(string(ofGroup: index))) }

    /// The parsed root of group `index`'s type string (`Group`): the node before its first
    /// value's type, as a root's first child is the node after it (`TypeTable`). Inlined, as
    /// the accessors below: a writer asks them of every group.
    @inline(__always)
    func type(ofGroup index: Int) -> UInt32 { values[Int(groups[index].firstValue)].type - 1 }

    /// The values of group `index`.
    @inline(__always)
    func values(ofGroup index: Int) -> Range<Int> {
        let first = Int(groups[index].firstValue)
        return first..<(first + Int(types[type(ofGroup: index)].count))
    }

    /// The shared string spelling group `index`'s types.
    @inline(__always)
    func string(ofGroup index: Int) -> UInt32 { types[type(ofGroup: index)].string }

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
