/// Builds a `TypedStream` in stream order: the one way a model is made, by
/// `TypedStreamReader` from bytes and by callers (tests, the JSON encoder) by hand.
///
/// The builder keeps what is open (the stream, objects, groups, composites) on a stack of its
/// own, and knows from the open group's type string which type the next value has: a value of
/// another type, a group left short, an object ended inside a group, are refused
/// (`.invalidDocument`) where they happen. So every model it finishes is one the writer can
/// write and the reader reads back the same:
/// - every value has the type its place asks for, and every group and composite is full;
/// - a value refers only to objects, classes and C strings already made, so in stream order
///   each object is made (`beginObject`) where it first occurs; classes are defined before use
///   and link only to classes defined before them, so no superclass chain is a cycle.
///
/// Runs are reserved when they open: a group's values when the group begins, a struct's fields
/// when the struct begins, so each run is contiguous though it holds composites of its own,
/// and an object's groups, with everything reserved inside them, are the run from where it
/// begins to where it ends (`TypedStream.Object`).
struct TypedStreamBuilder {
    /// The model so far. While building, its `values` may end in slots not yet reserved
    /// (`reservedValues`) and its `storage` in bytes not yet written (`storageCount`);
    /// `finish` drops them.
    private(set) var stream: TypedStream
    /// The innermost open thing, held apart from `outer` so that placing a value, which
    /// touches only it, costs no array access (a bounds check, and a uniqueness check on every
    /// write).
    private var top = Frame(kind: .stream)
    /// What is open around `top`, outermost first: the first `outerCount` entries, pushed when
    /// something opens inside and read back when that closes. Entries past those are left for
    /// reuse, so that closing writes nothing to the array.
    ///
    /// The stream's or object's frame is pushed when it opens, and stays the last entry while
    /// its groups are read: a group, the most frequent thing to open and close, is opened
    /// without a push (what is around it is there already) and closed by reading that entry
    /// back. So while a stream or object is innermost its frame is both `top` and the last entry.
    private var outer: [Frame] = [Frame(kind: .stream)]
    private var outerCount = 1
    /// The storage's bytes written so far: `stream.storage` holds them and bytes not yet
    /// written past them while building (`writeStorage`; a spelling's store may leave a few
    /// there, which nothing reads); `finish` drops the bytes past them. A reader's builder
    /// starts with its input's count.
    private var storageCount = 0
    /// The slots reserved so far. While building, `stream.values` holds them and up to
    /// `valuesAhead` more, appended in one step ahead of need, so that a run is reserved without
    /// a write per slot; `finish` drops the slots past the reserved ones.
    private var reservedValues = 0
    private static let valuesAhead = 128
    /// The most frames open at once so far (`TypedStream.deepestOpen`).
    private var deepestOpen = 1
    /// Shared strings by content, for `intern` (a reader defines each string as the stream
    /// does and never looks here): a table of indices into `stream.sharedStrings`, whose
    /// bytes are the storage's, so that a million distinct strings cost no heap array each.
    private var interned = ByteStringTable()
    /// `interned`'s answers for short strings (type strings, short C strings), which a
    /// document interns again and again: found without hashing or probing. A cache answers
    /// only what `intern` kept for that very text, so a hit answers as the table would. Its
    /// slots are made at the `internsBeforeCache`th intern: a small stream (a nested payload,
    /// a reader's, which never interns) does not pay for clearing them.
    private var recentlyInterned = ShortStringCache()
    private var interns = 0
    private static let internsBeforeCache = 64
    /// The most values the model may hold: a reader's bound by its input's size, an
    /// encoder's by its document's (`TypedStreamJSONEncoder.valueLimit(for:)`), and never
    /// more than 32-bit indices reach (`maximumValues`).
    private let valueLimit: Int

    /// Values are indexed in 32 bits, as a stream of at most 4 GiB needs.
    static let maximumValues = Int(UInt32.max)

    /// One open thing: 16 bytes, so that pushing and taking one back is two words each (a
    /// stream's or object's fields share the words a group's or composite's use).
    struct Frame {
        enum Kind: UInt8 {
            /// The stream itself (always at the bottom): takes groups.
            case stream
            /// An object: takes groups until `endObject`.
            case object
            /// A group: takes its values.
            case group
            /// A struct, array or pointer: takes its children.
            case composite
        }
        var kind: Kind
        /// An array: every slot takes the same (element) type.
        var repeats = false
        /// Group or composite: the next value's slot and the end of its run.
        var next: UInt32 = 0
        var end: UInt32 = 0
        /// Group or composite: the type node of the next value.
        var type: UInt32 = 0

        /// An object's frame (the stream's is `Frame(kind: .stream)`).
        init(object: UInt32) {
            self.init(kind: .object, end: object)
        }

        init(kind: Kind, next: UInt32 = 0, end: UInt32 = 0, type: UInt32 = 0, repeats: Bool = false) {
            self.kind = kind
            self.repeats = repeats
            self.next = next
            self.end = end
            self.type = type
        }

        /// Object: which.
        var object: UInt32 { end }
    }

    /// A builder for a stream of `byteOrder`, by hand, holding at most `valueLimit` values.
    init(byteOrder: TypedStream.ByteOrder, systemVersion: Int64 = TypedStreamHeader.currentSystemVersion, valueLimit: Int = maximumValues) {
        stream = TypedStream(byteOrder: byteOrder, systemVersion: systemVersion)
        self.valueLimit = min(valueLimit, Self.maximumValues)
    }

    /// A builder by hand with room reserved for about `values` values and `storageBytes` bytes
    /// of strings, so that its largest tables do not grow by copying: a
    /// table that doubles holds its old and its new copy at once, and the values of a large
    /// document grew to 1.5 times their size at the copy (as with the reader's reservation, the
    /// pages are virtual until used). Past the reservation the tables grow as usual.
    init(byteOrder: TypedStream.ByteOrder, systemVersion: Int64, valueLimit: Int, reserving values: Int, storageBytes: Int) {
        self.init(byteOrder: byteOrder, systemVersion: systemVersion, valueLimit: valueLimit)
        stream.values.reserveCapacity(min(values, self.valueLimit))
        stream.storage.reserveCapacity(storageBytes)
        reserveSmallTables(Swift.min(values, SmallDocument.things))
    }

    /// A builder over `storage` (a reader's input, which its spans point into), holding at
    /// most `valueLimit` values.
    ///
    /// Room is reserved for a value per four bytes, about what streams of numbers and small
    /// objects hold, so the largest tables do not grow by copying: the pages
    /// are virtual until used, and a stream of long strings leaves most of them untouched.
    init(byteOrder: TypedStream.ByteOrder, systemVersion: Int64, storage: [UInt8], valueLimit: Int) {
        stream = TypedStream(byteOrder: byteOrder, systemVersion: systemVersion, storage: storage)
        storageCount = storage.count
        self.valueLimit = min(valueLimit, Self.maximumValues)
        stream.values.reserveCapacity(storage.count / 4)
        reserveSmallTables(Swift.min(storage.count / 4, SmallDocument.things))
    }

    /// The smaller tables every stream fills, `count` entries each (`SmallDocument`).
    private mutating func reserveSmallTables(_ count: Int) {
        // What is open around the innermost thing: an object opens two frames here.
        outer.reserveCapacity(SmallDocument.nesting)
        stream.objects.reserveCapacity(count)
        stream.classes.reserveCapacity(count)
        stream.sharedStrings.reserveCapacity(count)
        stream.types.reserveCapacity(nodes: count)
    }

    // MARK: The primitives a reader drives

    // These are inlined: called out of line from a mutating context, each copied the
    // whole builder to call on.

    /// The innermost open thing.
    var innermost: Frame.Kind {
        @inline(__always) get { top.kind }
    }

    /// The type node of the next value, nil if no value goes here (no group or composite is
    /// innermost, or it is full).
    var expectedType: UInt32? {
        @inline(__always) get {
            top.kind.rawValue >= Frame.Kind.group.rawValue && top.next < top.end ? top.type : nil
        }
    }

    /// The type code of the next slot, nil where no value goes: what a refusal names.
    var expectedCode: UInt8? {
        @inline(__always) get { expectedType.map { stream.types[$0].code } }
    }

    /// How many values the innermost group or composite still takes (0 when neither is innermost).
    var slotsLeft: Int {
        @inline(__always) get {
            top.kind.rawValue >= Frame.Kind.group.rawValue ? Int(top.end - top.next) : 0
        }
    }

    /// Stores `value` in the next slot, whose type the caller read from `expectedType`.
    @inline(__always)
    mutating func place(_ value: TypedStream.Value) {
        stream.values[Int(top.next)] = value
        top.next += 1
        if !top.repeats { top.type = stream.types.next(after: top.type) }
    }

    /// Appends a new shared string holding `span` of the storage (as a stream defines one,
    /// even if an equal string came before).
    mutating func appendSharedString(_ span: TypedStream.Span) -> UInt32 {
        stream.sharedStrings.append(span)
        return UInt32(stream.sharedStrings.count - 1)
    }

    /// Appends a class record; `superclass` may be set later (`setSuperclass`).
    mutating func appendClass(name: UInt32, version: Int64) -> UInt32 {
        stream.classes.append(TypedStream.Class(name: name, version: version, superclass: nil))
        return UInt32(stream.classes.count - 1)
    }

    mutating func setSuperclass(of index: UInt32, to superclass: UInt32?) {
        stream.classes[Int(index)].superclass = superclass
    }

    /// Appends a C string holding shared string `string`.
    mutating func appendCString(_ string: UInt32) -> UInt32 {
        stream.cStrings.append(string)
        return UInt32(stream.cStrings.count - 1)
    }

    /// Begins a group of type string `string` (a shared string), in the stream or the
    /// innermost object. `offset` is where a reader found the type string, for its errors;
    /// `bytesLeft` is what is left of a reader's input: a group whose values need more is
    /// refused before anything is reserved for it. Inlined, as a reader begins a group per
    /// value or two; what it refuses is made out of line.
    @inline(__always)
    mutating func beginGroup(string: UInt32, at offset: Int? = nil, bytesLeft: Int = .max) throws(CodecError) {
        guard top.kind == .stream || top.kind == .object else { throw Self.misplaced("a group", offset: offset, innermost: innermost, expected: expectedCode) }
        // A type string parsed before (nearly every group's) is found without a call.
        let type: UInt32
        if let known = stream.types.root(ofString: string) { type = known } else { type = try parsedType(string, at: offset) }
        let node = stream.types[type]
        guard Int(node.minimumBytes) <= bytesLeft else { throw Self.tooFewBytes("a group", needing: node.minimumBytes, left: bytesLeft, offset: offset) }
        let count = node.count
        let first = try reserve(count, at: offset)
        top = Frame(kind: .group, next: first, end: first + count, type: TypeTable.firstChild(of: type))
        noteDepth(outerCount + 1)
    }

    /// Closes the innermost group or composite when it is full, and says whether it did (a
    /// reader closes each right after its last value rather than on a pass of its own; a
    /// group or composite that is not full, or an object, stays open).
    @inline(__always)
    mutating func closeIfFull() -> Bool {
        guard top.kind.rawValue >= Frame.Kind.group.rawValue, top.next == top.end else { return false }
        closeTop()
        return true
    }

    /// Places the struct, array (of other than bytes) or pointer the next slot expects and
    /// opens it for its children. `bytesLeft` is what is left of a reader's input: children
    /// that need more are refused before anything is reserved for them.
    mutating func openComposite(at offset: Int? = nil, bytesLeft: Int = .max) throws(CodecError) {
        guard let type = expectedType else { throw Self.misplaced("a value", offset: offset, innermost: innermost, expected: expectedCode) }
        let node = stream.types[type]
        guard Int(node.minimumBytes) <= bytesLeft else { throw Self.tooFewBytes("a struct, array or pointer", needing: node.minimumBytes, left: bytesLeft, offset: offset) }
        let first = try reserve(node.count, at: offset)
        place(TypedStream.Value(type: type, word: UInt32(first)))
        push(top)
        top = Frame(kind: .composite, next: first, end: first + node.count, type: TypeTable.firstChild(of: type), repeats: node.code == TypeCode.arrayOpen)
        noteDepth(outerCount + 1)
    }

    /// Closes the innermost group or composite, which must be full.
    mutating func close(at offset: Int? = nil) throws(CodecError) {
        guard top.kind == .group || top.kind == .composite else { throw Self.misplaced("the end of a group", offset: offset, innermost: innermost, expected: expectedCode) }
        guard top.next == top.end else {
            throw CodecError(.invalidDocument, "a group or composite closed with \(top.end - top.next) of its values missing", byteOffset: offset)
        }
        closeTop()
    }

    /// Places a new object of class `classIndex` at the next slot (an `@` slot) and opens it
    /// for its groups.
    mutating func beginObject(classIndex: UInt32 = 0, at offset: Int? = nil) throws(CodecError) -> UInt32 {
        guard let type = expectedType, stream.types[type].code == TypeCode.object else { throw Self.misplaced("an object", offset: offset, innermost: innermost, expected: expectedCode) }
        let index = UInt32(stream.objects.count)
        stream.objects.append(TypedStream.Object(classIndex: classIndex, firstValue: UInt32(reservedValues), end: 0))
        place(TypedStream.Value(type: type, firstOccurrenceOf: index))
        push(top)
        top = Frame(object: index)
        push(top)
        noteDepth(outerCount)
        return index
    }

    /// Ends the innermost object: what was reserved since it began is its run.
    mutating func endObject(at offset: Int? = nil) throws(CodecError) {
        guard top.kind == .object else { throw Self.misplaced("the end of an object", offset: offset, innermost: innermost, expected: expectedCode) }
        stream.objects[Int(top.object)].end = UInt32(reservedValues)
        leaveObject()
    }

    /// The model, when nothing but the stream is open.
    mutating func finish() throws(CodecError) -> TypedStream {
        guard top.kind == .stream else {
            let open = top.kind == .object ? outerCount - 1 : outerCount
            throw CodecError(.invalidDocument, "the stream ends with \(open) of its objects, groups or composites still open")
        }
        stream.values.removeLast(stream.values.count - reservedValues)
        stream.storage.removeLast(stream.storage.count - storageCount)
        stream.deepestOpen = deepestOpen
        return stream
    }

    /// Pushes `frame` on `outer`.
    @inline(__always)
    private mutating func push(_ frame: Frame) {
        if outerCount < outer.count { outer[outerCount] = frame } else { outer.append(frame) }
        outerCount += 1
    }

    /// Closes the group or composite `top`: the frame around it is innermost again (a group's
    /// stream or object is `outer`'s last entry, and stays there).
    @inline(__always)
    private mutating func closeTop() {
        let around = outerCount - 1
        if top.kind == .composite { outerCount = around }
        top = outer[around]
    }

    /// Closes the object `top`: the group or composite holding it is innermost again.
    @inline(__always)
    private mutating func leaveObject() {
        outerCount -= 2
        top = outer[outerCount]
    }

    @inline(__always)
    private mutating func noteDepth(_ open: Int) {
        if open > deepestOpen { deepestOpen = open }
    }

    // MARK: Closing at a break (a reader's salvage)

    /// The slot the next value goes in (meaningful where `expectedType` is not nil).
    var nextSlot: UInt32 { top.next }

    /// The innermost object, when an object is innermost.
    var innermostObject: UInt32? {
        top.kind == .object ? top.object : nil
    }

    /// Counts an object at the next slot that a reader numbered but could not begin (its class
    /// could not be read) as open there, for `deepestOpen`: the depth `beginObject` reaches.
    mutating func noteObjectNotBegun() {
        noteDepth(outerCount + 2)
    }

    /// Records where a salvaged read stopped (`TypedStream.Break`).
    mutating func recordBreak(_ broken: TypedStream.Break) {
        stream.broken = broken
    }

    /// The shared string holding `bytes`, defined once per distinct content (as Apple's
    /// writer shares its strings).
    mutating func intern(_ bytes: [UInt8]) throws(CodecError) -> UInt32 {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try intern(buffer) }
    }

    /// `intern` for bytes held elsewhere (a JSON document's text), copied only when new.
    mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32 {
        try checkRoom(for: bytes.count)
        let cached = interns >= Self.internsBeforeCache
        if cached, let known = recentlyInterned.object(for: bytes) { return known }
        interns += 1
        if interns == Self.internsBeforeCache { recentlyInterned = ShortStringCache(expectingValues: valueLimit) }
        let hash = ByteStringTable.hash(bytes)
        // The table is taken out while it is probed, as its probes read the storage and its
        // insertion appends to it.
        var table = interned
        interned = ByteStringTable()
        defer { interned = table }
        let string = table.findOrInsert(
            hash: hash,
            equals: { candidate in
                let span = stream.sharedStrings[Int(candidate)]
                guard Int(span.count) == bytes.count else { return false }
                guard let base = bytes.baseAddress else { return true }
                return stream.storage.withUnsafeBufferPointer { ByteStringTable.bytesEqual($0.baseAddress! + Int(span.start), base, count: bytes.count) }
            },
            newValue: { appendSharedString(TypedStream.Span(start: copyToStorage(bytes), count: UInt32(bytes.count))) })
        if cached { recentlyInterned.keep(bytes, object: string) }
        return string
    }

    /// Copies `bytes` to the end of the storage; refuses to grow the storage past 4 GiB.
    mutating func appendStorage(_ bytes: [UInt8]) throws(CodecError) -> TypedStream.Span {
        try bytes.withUnsafeBufferPointer { (bytes) throws(CodecError) in try appendStorage(bytes) }
    }

    /// `appendStorage` for bytes held elsewhere (a JSON document's text).
    mutating func appendStorage(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> TypedStream.Span {
        try checkRoom(for: bytes.count)
        return TypedStream.Span(start: copyToStorage(bytes), count: UInt32(bytes.count))
    }

    /// Appends integer `value` spelled in `form` (an integer spelling that holds it) to the
    /// storage, in the stream's byte order; returns where it starts: a 64-bit value's `word`.
    mutating func appendSpelled(integer value: Int64, form: NumberForm) throws(CodecError) -> UInt32 {
        try checkRoom(for: NumberSpelling.maximumBytes)
        let bigEndian = stream.byteOrder == .big
        return writeStorage(room: NumberSpelling.maximumBytes) { NumberSpelling.writeInteger(value, form: form, bigEndian: bigEndian, to: $0) }
    }

    /// Appends a double's `bits` spelled as a real (`.real`) to the storage; returns where
    /// it starts.
    mutating func appendSpelled(doubleBits bits: UInt64) throws(CodecError) -> UInt32 {
        try checkRoom(for: NumberSpelling.maximumBytes)
        let bigEndian = stream.byteOrder == .big
        return writeStorage(room: NumberSpelling.maximumBytes) { NumberSpelling.writeReal(bits: bits, size: 8, bigEndian: bigEndian, to: $0) }
    }

    /// Appends a `+` value's spelling, its length as Apple's writer spells a length and then
    /// `bytes`; returns where it starts: the value's `word`.
    mutating func appendSpelledString(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32 {
        try checkRoom(for: bytes.count + NumberSpelling.maximumBytes)
        let length = Int64(bytes.count)
        let bigEndian = stream.byteOrder == .big
        return writeStorage(room: bytes.count + NumberSpelling.maximumBytes) { out in
            let spelled = NumberSpelling.writeInteger(length, form: NumberForm.canonical(length), bigEndian: bigEndian, to: out)
            if let source = bytes.baseAddress { (out + spelled).update(from: source, count: bytes.count) }
            return spelled + bytes.count
        }
    }

    /// Copies `bytes` to the end of the storage (`checkRoom` passed); returns where they start.
    private mutating func copyToStorage(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        writeStorage(room: bytes.count) { out in
            if let source = bytes.baseAddress { out.update(from: source, count: bytes.count) }
            return bytes.count
        }
    }

    /// The one way the builder adds to the storage: `write` writes at the end (with room for
    /// `room` bytes) and returns how many it wrote; returns where they start.
    ///
    /// The storage array holds bytes ahead of `storageCount`, appended as zeros in blocks within
    /// its capacity (as value slots are, `appendSlots`): a few bytes written per value (a
    /// number's spelling, a short string) cost a write through a pointer rather than an
    /// array append each. `finish` drops the bytes ahead.
    @inline(__always)
    private mutating func writeStorage(room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) -> UInt32 {
        let start = storageCount
        if stream.storage.count - start < room { addStorageAhead(room) }
        let written = stream.storage.withUnsafeMutableBufferPointer { write($0.baseAddress! + start) }
        storageCount = start + written
        return UInt32(start)
    }

    /// Appends zero bytes so that `needed` fit past `storageCount`, and some ahead
    /// (`Array.appendAhead`).
    @inline(never)
    private mutating func addStorageAhead(_ needed: Int) {
        stream.storage.appendAhead(storageCount + needed - stream.storage.count, copying: Self.zeros)
    }

    private static let storageAhead = 4096
    private static let zeros = [UInt8](filledWith: 0, count: storageAhead)

    /// Refuses `count` more bytes of storage past 4 GiB (spans are 32-bit). Inlined, as
    /// `expectedType` is.
    @inline(__always)
    private func checkRoom(for count: Int) throws(CodecError) {
        guard count < Int(UInt32.max) - storageCount else { throw CodecError(.limitExceeded, "a typedstream's strings take at most 4 GiB", limit: Int(UInt32.max)) }
    }

    // MARK: Internals

    private mutating func parsedType(_ string: UInt32, at offset: Int?) throws(CodecError) -> UInt32 {
        if let known = stream.types.root(ofString: string) { return known }
        let span = stream.sharedStrings[Int(string)]
        let storage = stream.storage
        return try storage.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in
            try stream.types.root(ofString: string, text: UnsafeBufferPointer(rebasing: buffer[span.range]), at: offset)
        }
    }

    /// Reserves a run of `count` value slots; refuses past `valueLimit`. Inlined into the
    /// group and composite openings, which call it for every run.
    @inline(__always)
    private mutating func reserve(_ count: UInt32, at offset: Int?) throws(CodecError) -> UInt32 {
        let first = reservedValues
        guard count <= valueLimit - first else { throw Self.tooManyValues(first + Int(count), limit: valueLimit, offset: offset) }
        reservedValues = first + Int(count)
        if reservedValues > stream.values.count { appendSlots() }
        return UInt32(first)
    }

    /// Appends unplaced slots up to `reservedValues`, and some ahead (`Array.appendAhead`): a
    /// bulk append per many runs rather than an append per slot.
    private mutating func appendSlots() {
        stream.values.appendAhead(reservedValues - stream.values.count, copying: Self.unplacedSlots)
    }

    private static let unplacedSlots = [TypedStream.Value](filledWith: TypedStream.Value(type: 0), count: valuesAhead)

    /// A group or composite refused for the bytes its values need, more than are left.
    private static func tooFewBytes(_ what: String, needing minimum: UInt32, left: Int, offset: Int?) -> CodecError {
        CodecError(.malformedTypedStream, "\(what) whose values need at least \(minimum) bytes, \(left) left", byteOffset: offset)
    }

    /// A run refused for taking the model past `limit` values.
    private static func tooManyValues(_ found: Int, limit: Int, offset: Int?) -> CodecError {
        CodecError(
            .limitExceeded, "the stream asks for more than \(limit) values: more than its size allows (zero-byte values repeated by a shared type string)",
            byteOffset: offset, found: found, limit: limit)
    }

    /// `what` refused where the innermost open thing is `innermost` and the next slot's type
    /// code is `expected` (nil where no value goes). Static, as `TypedStreamBuilder+Values`'
    /// `mismatch` is: a method called from a mutating one copied the whole builder.
    private static func misplaced(_ what: String, offset: Int?, innermost: Frame.Kind, expected: UInt8?) -> CodecError {
        let place: String
        switch innermost {
        case .stream: place = "at the top level, where only groups go"
        case .object: place = "in an object, where only groups and the object's end go"
        case .group, .composite:
            if let expected {
                place = "where a value of type '\(TypeTable.character(expected))' goes"
            } else {
                place = "after the last value of a group or composite"
            }
        }
        return CodecError(.invalidDocument, "\(what) \(place)", byteOffset: offset)
    }
}
