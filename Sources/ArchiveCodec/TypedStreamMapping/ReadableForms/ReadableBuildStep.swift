/// One `TypedStreamBuilder` call that a readable form stands for, located at the JSON value it
/// comes from (a refusal names that value). `ReadableFormLowering` turns a readable form into a
/// flat list of them (`ReadableSteps`); `TypedStreamJSONEncoder` runs the list, and each `.value`
/// goes back through the encoder's own dispatch, so forms nest without recursion.
///
/// Plain data: what a step names that has a size of its own (a type string, a C string's
/// text, a byte array, a container's entries) is kept in its list, and the step holds where.
enum ReadableBuildStep {
    typealias Value = JSONDocument.Value

    /// A new object of the readable class's chain at the `@` slot; `id` is its `$id` and where
    /// it is written.
    case beginObject(ReadableClass, id: (number: Int64, at: Value)?, at: Value)
    case endObject(at: Value)
    /// A group of the type string `type` (bytes of the list's pool); `end` closes it once its
    /// values are placed.
    case group(type: Range<Int>, at: Value)
    /// A group of a type string the lowering spells as a literal (`@`, `i`, `*`, …): named in
    /// place, not copied into the pool (most groups are of one of a few such strings).
    case literalGroup(type: StaticString, at: Value)
    case end(at: Value)
    /// Any JSON value, for the slot the builder expects (an `@` value in any form, a number).
    case value(Value)
    /// A signed integer for a `c s i l q` slot.
    case integer(Int64, at: Value)
    /// An unsigned integer for a `C S I L Q B` slot.
    case unsigned(UInt64, at: Value)
    /// A double for a `d` slot.
    case double(Double, at: Value)
    /// `true` or `false` as 1 or 0, for any integer slot.
    case truth(Bool, at: Value)
    /// A `+` value: the text of JSON string `text` from its byte `skip` on (1 drops the first
    /// `$` of a `$$…` key), read from the document where it stands when the step runs.
    case byteString(text: Value, skip: Int, at: Value)
    /// A `*` value's text, bytes of the list's pool (a reference to an earlier C string of the
    /// same text, as in the generic form).
    case cString(Range<Int>, at: Value)
    /// A `[Nc]` value's bytes, bytes of the list's pool.
    case byteArray(Range<Int>, at: Value)
    /// The entries of an array, set or dictionary (the list's `entries[index]`), lowered one
    /// at a time when their turn comes (`ReadableFormLowering.steps(forEntry:of:)`): a form of
    /// a million entries never holds a million entries' steps at once.
    case entries(index: Int)
}

/// A list of `ReadableBuildStep`s with what they name: the bytes of their type strings, C
/// strings and byte arrays, and their containers' entries. Kept beside the steps so that a step
/// is plain data, read from the list without retains and releases (a step that held a `String`
/// or an array was copied and destroyed through the enum's outlined value witnesses at every
/// read). The encoder keeps one list for every form open at once and drops a form's steps,
/// bytes and entries together once the form is done (`truncate(to:)`).
///
/// The steps and the bytes are written over rather than removed: slots past `count` (and bytes
/// past `byteCount`) are stale, kept for the next form (a removal of a form's few steps cost
/// more than writing them; both are plain data, which holds nothing). Entries hold arrays, so
/// they are removed.
struct ReadableSteps {
    /// The steps: `steps[..<count]`, the slots after them stale.
    private var steps: [ReadableBuildStep] = []
    private(set) var count = 0
    /// The bytes the steps name, each step's at its range: `bytes[..<byteCount]`, the rest
    /// stale. Read only at a live step's range, never whole.
    private(set) var bytes: [UInt8] = []
    private var byteCount = 0
    private(set) var entries: [ReadableEntries] = []

    /// Where the list stands, for `truncate(to:)`.
    struct Mark {
        let steps: Int
        let bytes: Int
        let entries: Int
    }

    var mark: Mark { Mark(steps: count, bytes: byteCount, entries: entries.count) }

    /// An empty list with room for the steps and bytes of a few forms open at once (a nested
    /// payload's encoder makes a list of its own, which grew from empty, reallocated on the way).
    static func reserved() -> ReadableSteps {
        var list = ReadableSteps()
        list.steps.reserveCapacity(SmallDocument.values)
        list.bytes.reserveCapacity(SmallDocument.values)
        return list
    }

    subscript(index: Int) -> ReadableBuildStep {
        assert(index < count, "a step past the list's end")
        return steps[index]
    }

    /// Drops what was appended since `mark`, which must be a mark of this list not already
    /// dropped (a later one would bring stale steps back).
    mutating func truncate(to mark: Mark) {
        precondition(mark.steps <= count && mark.bytes <= byteCount && mark.entries <= entries.count, "a mark past the list's end")
        count = mark.steps
        byteCount = mark.bytes
        if entries.count > mark.entries { entries.removeLast(entries.count - mark.entries) }
    }

    /// Inlined: a step, an enum a few words long, went to a call through memory, and the call's
    /// entry and exit cost about as much as the append itself.
    @inline(__always)
    mutating func append(_ step: ReadableBuildStep) {
        if count < steps.count { steps[count] = step } else { steps.append(step) }
        count += 1
    }

    mutating func group(_ type: StaticString, at value: JSONDocument.Value) {
        append(.literalGroup(type: type, at: value))
    }

    mutating func group(_ type: some Collection<UInt8>, at value: JSONDocument.Value) {
        append(.group(type: keep(type), at: value))
    }

    mutating func cString(_ text: some Collection<UInt8>, at value: JSONDocument.Value) {
        append(.cString(keep(text), at: value))
    }

    mutating func byteArray(_ bytes: [UInt8], at value: JSONDocument.Value) {
        append(.byteArray(keep(bytes), at: value))
    }

    mutating func entries(_ list: ReadableEntries) {
        entries.append(list)
        append(.entries(index: entries.count - 1))
    }

    /// Puts `text` in the pool: over stale bytes when they have room for it, else after the
    /// live ones (the stale ones dropped first), copied whole either way (a byte array can be
    /// megabytes).
    private mutating func keep(_ text: some Collection<UInt8>) -> Range<Int> {
        let start = byteCount
        let length = text.count
        if length <= bytes.count - start {
            bytes.withUnsafeMutableBufferPointer { pool in _ = UnsafeMutableBufferPointer(rebasing: pool[start..<start + length]).update(fromContentsOf: text) }
        } else {
            bytes.removeLast(bytes.count - start)
            bytes.append(contentsOf: text)
        }
        byteCount = start + length
        return start..<byteCount
    }
}

/// The entries of a readable container form, each an `@` group (a dictionary's entry two), in
/// the order the stream holds them.
enum ReadableEntries {
    typealias Value = JSONDocument.Value

    /// An array's or set's elements.
    case elements([Value])
    /// `$dict`'s `[key, value]` pairs, each checked when it is lowered.
    case pairs([Value])
    /// A dictionary's data keys (each a new NSString; `$$…` is the key `$…`) and values.
    case stringKeyed([(key: Value, value: Value)])

    var count: Int {
        switch self {
        case .elements(let values), .pairs(let values): values.count
        case .stringKeyed(let entries): entries.count
        }
    }
}
