/// A parsed JSON document: its source bytes, validated once by `JSONParser`, and an index of
/// its arrays and objects. Scalars are not stored; they are read from the source when asked
/// for. A value is named by a `Value` handle (where it starts, and for a container its index
/// entry), and containers are walked with a `Cursor` that steps from one child to the next.
///
/// Why this shape: a node per value cost 16 bytes for each of millions of values plus a copy
/// of every string, about 3× the source; the index takes 16 bytes per container only (a
/// game save has one container per seven values), so a parsed document costs little more
/// than its source.
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
        /// Index in `containers` for arrays and objects; `scalar` otherwise.
        let container: UInt32

        static let scalar = UInt32.max
    }

    /// An array or an object. Entries are in document order, so the containers nested in
    /// entry `i` are entries `i + 1 ... i + descendants`.
    struct Container {
        var start: UInt32
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
    }

    /// Largest document parsed: offsets are 32-bit.
    public static let maximumSize = 1 << 30

    /// Nesting deeper than this is refused while parsing.
    public static let maximumNesting = 500_000

    let source: [UInt8]
    let containers: [Container]
    /// Deepest container nesting in the document (a scalar document has depth 0).
    public let depth: Int
    /// Values in the document, member keys not counted.
    let valueCount: Int

    public init(parsing bytes: [UInt8]) throws(CodecError) {
        guard bytes.count <= Self.maximumSize else {
            throw CodecError(.limitExceeded, "JSON document larger than 1 GiB", found: bytes.count, limit: Self.maximumSize)
        }
        let index = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> JSONParser.Index in
            var parser = JSONParser(source: buffer)
            return try parser.parse()
        }
        source = bytes
        containers = index.containers
        depth = index.depth
        valueCount = index.valueCount
        try checkDuplicateKeys()
    }

    // MARK: Values

    var root: Value {
        var cursor = Cursor(position: 0, nextContainer: 0, remaining: 1)
        return nextElement(&cursor)!
    }

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
    func count(_ value: Value) -> Int {
        value.container == Value.scalar ? 0 : Int(containers[Int(value.container)].count)
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
    func children(of value: Value) -> Cursor {
        guard value.container != Value.scalar else { return Cursor(position: 0, nextContainer: 0, remaining: 0) }
        let entry = containers[Int(value.container)]
        return Cursor(position: Int(entry.start) + 1, nextContainer: value.container + 1, remaining: entry.count)
    }

    /// The next element of an array (or the next key or value of an object, one at a time).
    func nextElement(_ cursor: inout Cursor) -> Value? {
        guard cursor.remaining > 0 else { return nil }
        cursor.remaining -= 1
        return step(&cursor)
    }

    /// The next (key, value) member of an object.
    func nextMember(_ cursor: inout Cursor) -> (key: Value, value: Value)? {
        guard cursor.remaining > 0 else { return nil }
        cursor.remaining -= 1
        let key = step(&cursor)
        return (key, step(&cursor))
    }

    /// The value after the separators at the cursor; the cursor moves past it.
    private func step(_ cursor: inout Cursor) -> Value {
        source.withUnsafeBufferPointer { source in
            var position = cursor.position
            while JSONText.isSeparator(source[position]) { position += 1 }
            let byte = source[position]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                let container = cursor.nextContainer
                let entry = containers[Int(container)]
                cursor.nextContainer += 1 + entry.descendants
                cursor.position = Int(entry.end)
                return Value(offset: UInt32(position), container: container)
            }
            cursor.position = JSONText.scalarEnd(source, at: position)
            return Value(offset: UInt32(position), container: Value.scalar)
        }
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
            var position = start
            while true {
                let byte = source[position]
                if byte == UInt8(ascii: "\"") { return try body(UnsafeBufferPointer(rebasing: source[start..<position])) }
                if byte == UInt8(ascii: "\\") { break }
                position += 1
            }
            var text: [UInt8] = []
            JSONText.unescape(source, from: start, into: &text)
            return try text.withUnsafeBufferPointer(body)
        }
    }

    func stringValue(_ value: Value) -> String { withString(value) { String(decoding: $0, as: UTF8.self) } }

    func stringBytes(_ value: Value) -> [UInt8] { withString(value) { Array($0) } }

    // MARK: Checks

    /// Objects that repeat a key are refused: which value wins is unspecified (RFC 8259 §4),
    /// and an archive dictionary cannot hold a key twice. Small objects are checked pairwise,
    /// larger ones through a randomly seeded hash set.
    private func checkDuplicateKeys() throws(CodecError) {
        var seen = Set<[UInt8]>()
        var keys: [Value] = []
        for (index, entry) in containers.enumerated() where entry.count >= 2 && source[Int(entry.start)] == UInt8(ascii: "{") {
            let object = Value(offset: entry.start, container: UInt32(index))
            keys.removeAll(keepingCapacity: true)
            var cursor = children(of: object)
            while let member = nextMember(&cursor) { keys.append(member.key) }
            if keys.count <= 12 {
                for second in 1..<keys.count {
                    for first in 0..<second where sameString(keys[first], keys[second]) {
                        throw repeatedKey(keys[second])
                    }
                }
            } else {
                seen.removeAll(keepingCapacity: true)
                for key in keys where !seen.insert(stringBytes(key)).inserted {
                    throw repeatedKey(key)
                }
            }
        }
    }

    private func repeatedKey(_ key: Value) -> CodecError {
        CodecError(.malformedJSON, "an object repeats the key \"\(stringValue(key))\"", byteOffset: Int(key.offset))
    }

    /// Whether two strings have the same text, compared in the source when neither holds an
    /// escape.
    private func sameString(_ first: Value, _ second: Value) -> Bool {
        let plain = source.withUnsafeBufferPointer { source -> Bool? in
            let one = JSONText.stringSpan(source, quote: Int(first.offset))
            let two = JSONText.stringSpan(source, quote: Int(second.offset))
            guard !one.escaped, !two.escaped else { return nil }
            return one.end - one.start == two.end - two.start
                && ByteStringTable.bytesEqual(source.baseAddress! + one.start, source.baseAddress! + two.start, count: one.end - one.start)
        }
        return plain ?? (stringBytes(first) == stringBytes(second))
    }

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
                    let key = stringValue(member.key)
                    let simple = !key.isEmpty && key.utf8.allSatisfy {
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
