/// A parsed JSON document: its source bytes, validated once by `JSONParser`, and an index of
/// its arrays and objects. Scalars are not stored; they are read from the source when asked
/// for. A value is named by a `Value` handle (where it starts, and for a container its index
/// entry), and containers are walked with a `Cursor` that steps from one child to the next.
///
/// Why this shape: a node per value cost 16 bytes for each of millions of values plus a copy
/// of every string, about 3× the source; the index takes 13 bytes per container only (a
/// game save has one container per seven values and keys) and one bit per source byte
/// (`scalarEnds`), so a parsed document costs little more than its source.
///
/// Parsing is iterative (any nesting is safe for the stack) and strict: exact UTF-8
/// validation, no lone surrogates, integers and reals kept apart, integers exact over
/// −2^63 … 2^64−1, no key repeated within an object.
public struct JSONDocument: Sendable {
    enum Kind: UInt8 { case null, bool, number, string, array, object }

    /// A value of the document. Two values never start at the same byte, so `offset` alone
    /// identifies one.
    struct Value: Equatable {
        /// First byte of the value in the source (a string's opening quote).
        let offset: UInt32
        /// Arrays and objects: their entry in `containers`. Scalars: their length in the
        /// source, with `escapedBit` set for a string that holds escapes.
        let payload: UInt32

        static let escapedBit: UInt32 = 1 << 31

        init(offset: UInt32, payload: UInt32) {
            self.offset = offset
            self.payload = payload
        }

        init(offset: Int, scalarEnd end: Int, escaped: Bool) {
            self.offset = UInt32(offset)
            payload = UInt32(end - offset) | (escaped ? Self.escapedBit : 0)
        }

        /// A scalar of a parsed document, without the checks of the initializer above: its
        /// offset and length fit 31 bits, as the document is at most `maximumSize` bytes.
        @inline(__always)
        init(parsedOffset offset: Int, scalarEnd end: Int, escaped: Bool) {
            self.offset = UInt32(truncatingIfNeeded: offset)
            payload = UInt32(truncatingIfNeeded: end &- offset) | (escaped ? Self.escapedBit : 0)
        }

        var container: Int { Int(payload) }
    }

    /// An array or an object. Entries are in document order, so the containers nested in
    /// entry `i` are entries `i + 1 ... i + descendants`.
    struct Container {
        /// Just past the closing bracket or brace.
        var end: UInt32
        /// Elements, or members.
        var count: UInt32
        var descendants: UInt32
    }

    /// A position among the children of a container; see `nextElement`, `nextMember`.
    struct Cursor {
        /// Just past the last child read (or the opening bracket).
        fileprivate(set) var position: Int
        /// Index entry of the next container child.
        fileprivate var nextContainer: UInt32
        fileprivate var remaining: UInt32

        /// A cursor with no child left (a scalar's).
        static let none = Cursor(position: 0, nextContainer: 0, remaining: 0)
    }

    /// Largest document parsed: offsets are 32-bit.
    public static let maximumSize = 1 << 30

    /// Nesting deeper than this is refused while parsing.
    public static let maximumNesting = 500_000

    let source: [UInt8]
    let containers: FrozenTable<Container>
    /// Deepest container nesting in the document (a scalar document has depth 0).
    public var depth: Int { notes.depth }
    /// Values in the document, member keys not counted. What encoding it holds in memory grows
    /// with this count more than with the text's size (`[[],[],…]` is three bytes a value).
    public var valueCount: Int { notes.valueCount }

    /// What the parser noted beside its index (`JSONNotes`), and its counts, behind one
    /// reference: the encoders' hot paths take the document apart into the fields they read,
    /// which the compiler does only for a document of few fields (one more array here cost
    /// encoding 4 %; the document keeps five).
    let notes: JSONNotes

    /// Every member whose key is `notedKey`, as (object, value), in document order.
    var notedMembers: [(object: Value, value: Value)] { notes.members }

    /// Per container, for objects: how many of its first members hold every key that starts
    /// with a single `$` (the archive mapping's keys, which `meta(of:)` reads), so that no
    /// member after them need be looked at; `unboundedSpan` when that is so many or more.
    /// An archive's objects put those keys first: the span is 1 or 2 for most.
    let mappingKeySpans: FrozenTable<UInt8>
    static let unboundedSpan = 255

    /// One bit per source byte, set at the last byte of every scalar and key (a string's
    /// closing quote), and at the opening quote of every string that holds escapes: walking
    /// the document finds where a scalar ends with a look at the bitmap, not a second scan of
    /// its text (which cost an encode a tenth of its instructions). Its size is fixed by the
    /// source's, an eighth of it, whatever the values (a marked opening quote never stands
    /// for an end: a string's last byte is its closing quote).
    let scalarEnds: [UInt64]

    /// Every object that is the value of a `$data` or `$bytes` member, in document order: a
    /// nested payload's document (`NestedPayload`), whose own `$id`s are not the document's.
    var nestedPayloads: [Value] { notes.payloads }

    /// How many payloads this document is nested in (0 for a request's document).
    var payloadNesting: Int { notes.payloadNesting }

    /// The key the parser lists members of: the archive mapping finds every `$id` before it
    /// encodes anything, and this saves it a pass over the whole document.
    static let notedKey = MappingKeys.identity

    public init(parsing bytes: [UInt8]) throws(CodecError) {
        try self.init(parsing: bytes, payloadNesting: 0)
    }

    /// The document of `bytes`, the text of a payload nested in `payloadNesting` others.
    init(parsing bytes: [UInt8], payloadNesting: Int) throws(CodecError) {
        guard bytes.count <= Self.maximumSize else {
            throw CodecError(.limitExceeded, "JSON document larger than 1 GiB", found: bytes.count, limit: Self.maximumSize)
        }
        let index = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> JSONParser.Index in
            try JSONParser.index(of: buffer, notingKey: Self.notedKey)
        }
        source = bytes
        containers = index.containers
        notes = JSONNotes(
            members: index.noted, payloads: index.payloads, payloadNesting: payloadNesting, depth: index.depth, valueCount: index.valueCount)
        mappingKeySpans = index.mappingKeySpans
        scalarEnds = index.scalarEnds
    }

    // MARK: Values

    var root: Value {
        var cursor = Cursor(position: 0, nextContainer: 0, remaining: 1)
        return nextElement(&cursor)!
    }

    @inline(__always)
    func isContainer(_ value: Value) -> Bool {
        let byte = source[Int(value.offset)]
        return byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")
    }

    @inline(__always)
    func kind(_ value: Value) -> Kind {
        switch source[Int(value.offset)] {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): .bool
        case UInt8(ascii: "n"): .null
        default: .number
        }
    }

    /// Elements of an array, members of an object; 0 for scalars.
    @inline(__always)
    func count(_ value: Value) -> Int {
        isContainer(value) ? Int(containers[value.container].count) : 0
    }

    func bool(_ value: Value) -> Bool { source[Int(value.offset)] == UInt8(ascii: "t") }

    /// A number value (validated by the parser, so reading it again cannot fail).
    func number(_ value: Value) -> JSONNumber {
        source.withUnsafeBufferPointer { source in
            (try? JSONNumber.read(source, at: Int(value.offset)).number) ?? .signed(0)
        }
    }

    // MARK: Walking containers

    /// A cursor before the first child of container `value`.
    @inline(__always)
    func children(of value: Value) -> Cursor {
        guard isContainer(value) else { return .none }
        let entry = containers[value.container]
        return Cursor(position: Int(value.offset) + 1, nextContainer: value.payload + 1, remaining: entry.count)
    }

    /// The next element of an array (or the next key or value of an object, one at a time).
    @inline(__always)
    func nextElement(_ cursor: inout Cursor) -> Value? {
        guard cursor.remaining > 0 else { return nil }
        cursor.remaining -= 1
        return step(&cursor)
    }

    /// The next (key, value) member of an object.
    @inline(__always)
    func nextMember(_ cursor: inout Cursor) -> (key: Value, value: Value)? {
        guard cursor.remaining > 0 else { return nil }
        cursor.remaining -= 1
        let key = step(&cursor)
        return (key, step(&cursor))
    }

    /// The value after the separators at the cursor; the cursor moves past it. Inlined: every
    /// walk of a document steps from value to value, and the call cost a short step about a
    /// fifth of its instructions (keyed encode −2 %).
    @inline(__always)
    private func step(_ cursor: inout Cursor) -> Value {
        source.withUnsafeBufferPointer { source in
            var position = cursor.position
            while JSONText.isSeparator(source[position]) { position += 1 }
            let byte = source[position]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                let container = cursor.nextContainer
                let entry = containers[Int(container)]
                // Entries and offsets fit 32 bits: the parser indexed them so.
                cursor.nextContainer &+= 1 &+ entry.descendants
                cursor.position = Int(entry.end)
                return Value(offset: UInt32(truncatingIfNeeded: position), payload: container)
            }
            let (end, escaped) = scalarEnd(at: position, isString: byte == UInt8(ascii: "\""))
            cursor.position = end
            return Value(parsedOffset: position, scalarEnd: end, escaped: escaped)
        }
    }

    /// Just past the scalar at `start`, and whether it is a string holding escapes, as
    /// `scalarEnds` marks them: the first bit at or after `start` (after it, for a string
    /// whose opening quote is marked as holding escapes).
    @inline(__always)
    private func scalarEnd(at start: Int, isString: Bool) -> (end: Int, escaped: Bool) {
        var from = start
        var bits = scalarEnds[start >> 6] &>> UInt64(truncatingIfNeeded: start & 63)
        let escaped = isString && bits & 1 != 0
        if escaped {
            from += 1
            bits &>>= 1
        }
        if bits != 0 { return (from &+ bits.trailingZeroBitCount &+ 1, escaped) }
        // No mark left in the word of `start` (`from` may be the next word's first byte).
        var word = start >> 6
        repeat {
            word += 1
            bits = scalarEnds[word]
        } while bits == 0
        return ((word << 6 | bits.trailingZeroBitCount) + 1, escaped)
    }

    /// The bytes of `value` in the source, as the document spells it (a container from its
    /// opening bracket to its closing one).
    func sourceRange(of value: Value) -> Range<Int> {
        let start = Int(value.offset)
        if isContainer(value) { return start..<Int(containers[value.container].end) }
        return start..<(start + Int(value.payload & ~Value.escapedBit))
    }

    /// Every member of object `value`, in document order.
    func members(of value: Value) -> [(key: Value, value: Value)] {
        var result: [(key: Value, value: Value)] = []
        result.reserveCapacity(count(value))
        var cursor = children(of: value)
        while let member = nextMember(&cursor) { result.append(member) }
        return result
    }

    /// Every element of array `value`.
    func elements(of value: Value) -> [Value] {
        var result: [Value] = []
        result.reserveCapacity(count(value))
        var cursor = children(of: value)
        while let element = nextElement(&cursor) { result.append(element) }
        return result
    }

    // MARK: Strings

    /// Calls `body` with the text of string `value`, unescaped: the source bytes themselves
    /// unless the string holds escapes.
    func withString<Result, Failure: Error>(
        _ value: Value, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try source.withUnsafeBufferPointer { (source) throws(Failure) -> Result in
            let start = Int(value.offset) + 1
            if value.payload & Value.escapedBit == 0 {
                return try body(UnsafeBufferPointer(rebasing: source[start..<(start + Int(value.payload) - 2)]))
            }
            // Unescaped text is never longer than its source. Short ones go on the stack (at
            // most a kilobyte, whatever the thread's stack: workers may have small ones).
            let bound = Int(value.payload & ~Value.escapedBit) - 2
            func unescaped(into room: UnsafeMutablePointer<UInt8>) throws(Failure) -> Result {
                let count = JSONText.unescape(source, from: start, writingTo: room)
                return try body(UnsafeBufferPointer(start: room, count: count))
            }
            guard bound > 1024 else {
                return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { (room) throws(Failure) -> Result in
                    try unescaped(into: room.baseAddress!)
                }
            }
            let room = UnsafeMutablePointer<UInt8>.allocate(capacity: bound)
            defer { room.deallocate() }
            return try unescaped(into: room)
        }
    }

    /// `withString` for a caller that changes `state` with the text: the state is lent along
    /// with it, so that `body` need not capture anything (a closure that reached the document
    /// through a copy of it retained and released its bytes at every string).
    func withString<State, Result, Failure: Error>(
        _ value: Value, updating state: inout State, _ body: (UnsafeBufferPointer<UInt8>, inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withString(value) { (text) throws(Failure) -> Result in try body(text, &state) }
    }

    func stringValue(_ value: Value) -> String { withString(value) { String(decoding: $0, as: UTF8.self) } }

    // MARK: Locations

    /// Where `target` is, as a JSON path: `$`, `$.name`, `$[3]`, `$["odd key"]`. Walks down
    /// from the root; meant for error messages.
    func path(to target: Value) -> String {
        var text = "$"
        var current = root
        descent: while current.offset != target.offset {
            var cursor = children(of: current)
            switch kind(current) {
            case .array:
                var position = 0
                while let element = nextElement(&cursor) {
                    if target.offset >= element.offset && Int(target.offset) < cursor.position {
                        text += "[\(position)]"
                        current = element
                        continue descent
                    }
                    position += 1
                }
            case .object:
                while let member = nextMember(&cursor) {
                    guard target.offset >= member.key.offset && Int(target.offset) < cursor.position else { continue }
                    let key = TextExcerpt.quote(stringValue(member.key))
                    let simple =
                        !key.isEmpty
                        && key.utf8.allSatisfy {
                            ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x5F || $0 == 0x24
                        }
                    text += simple ? ".\(key)" : "[\"\(key)\"]"
                    if target.offset == member.key.offset { break descent }  // the key itself
                    current = member.value
                    continue descent
                }
            default:
                break
            }
            break
        }
        return text
    }
}

/// What `JSONParser` noted of a document beside its index, its counts, and how deep in
/// payloads it stands.
final class JSONNotes: Sendable {
    let members: [(object: JSONDocument.Value, value: JSONDocument.Value)]
    let payloads: [JSONDocument.Value]
    let payloadNesting: Int
    let depth: Int
    let valueCount: Int

    init(
        members: [(object: JSONDocument.Value, value: JSONDocument.Value)], payloads: [JSONDocument.Value], payloadNesting: Int, depth: Int,
        valueCount: Int
    ) {
        self.members = members
        self.payloads = payloads
        self.payloadNesting = payloadNesting
        self.depth = depth
        self.valueCount = valueCount
    }
}
