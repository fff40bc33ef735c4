/// A parsed JSON document held flat, in document order: each node is followed by its
/// subtree, and `size` says how many nodes that subtree takes, so children are found by
/// skipping. Object members are a key string node followed by the value's subtree.
///
/// Parsing is iterative (any nesting is safe for the stack) and strict: exact UTF-8
/// validation, no lone surrogates, integers and reals kept apart, integers exact over
/// −2^63 … 2^64−1.
public struct JSONDocument: Sendable {
    enum Kind: UInt8 { case null, bool, int, uint, real, string, array, object }

    /// One value, in 16 bytes (documents hold millions of them).
    struct Node {
        /// Numbers: their bits (booleans 0 or 1). Strings: start of the unescaped UTF-8 in
        /// `text` << 32 | its byte length. Arrays and objects: elements or members.
        var bits: UInt64
        /// The kind (top 3 bits) and the nodes in this subtree, itself included (low 29).
        private var kindAndSize: UInt32
        /// Byte offset of the value in the source, for error messages.
        var offset: UInt32

        init(bits: UInt64, start: UInt32, count: UInt32, size: UInt32, offset: UInt32, kind: Kind) {
            self.bits = kind == .string ? UInt64(start) << 32 | UInt64(count) : (kind == .array || kind == .object ? UInt64(count) : bits)
            kindAndSize = UInt32(kind.rawValue) << 29 | size
            self.offset = offset
        }

        var kind: Kind { Kind(rawValue: UInt8(kindAndSize >> 29))! }

        var size: UInt32 {
            get { kindAndSize & Self.sizeMask }
            set { kindAndSize = kindAndSize & ~Self.sizeMask | newValue }
        }

        /// Strings only.
        var start: UInt32 { UInt32(truncatingIfNeeded: bits >> 32) }

        /// Strings: byte length. Arrays: elements. Objects: members. Others: 0.
        var count: UInt32 {
            get {
                switch kind {
                case .string, .array, .object: return UInt32(truncatingIfNeeded: bits)
                default: return 0
                }
            }
            set { bits = UInt64(newValue) }  // containers only
        }

        static let sizeMask: UInt32 = 1 << 29 - 1
    }

    /// Largest document parsed: every node takes at least two bytes of source (but the last),
    /// so the node count stays within the 29 bits `Node` keeps for subtree sizes.
    public static let maximumSize = 1 << 30

    /// Nesting deeper than this is refused while parsing.
    public static let maximumNesting = 500_000

    private(set) var nodes: [Node] = []
    private(set) var text: [UInt8] = []
    /// Deepest container nesting in the document (a scalar document has depth 0).
    public private(set) var depth = 0

    public init(parsing bytes: [UInt8]) throws(CodecError) {
        guard bytes.count <= Self.maximumSize else {
            throw CodecError(.limitExceeded, "JSON document larger than 1 GiB", found: bytes.count, limit: Self.maximumSize)
        }
        try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) in
            var parser = JSONParser(source: buffer)
            try parser.parse(into: &self)
        }
        try checkDuplicateKeys()
    }

    /// Objects that repeat a key are refused: which value wins is unspecified (RFC 8259 §4),
    /// and an archive dictionary cannot hold a key twice. Small objects are checked pairwise,
    /// larger ones through a randomly seeded hash set.
    private func checkDuplicateKeys() throws(CodecError) {
        var seen = Set<ArraySlice<UInt8>>()
        var keys: [Int] = []
        let repeated = text.withUnsafeBufferPointer { text -> Int? in
            func equal(_ first: Node, _ second: Node) -> Bool {
                first.count == second.count
                    && (first.count == 0 || ByteStringTable.bytesEqual(text.baseAddress! + Int(first.start), text.baseAddress! + Int(second.start), count: Int(first.count)))
            }
            for index in nodes.indices where nodes[index].kind == .object && nodes[index].count >= 2 {
                let count = Int(nodes[index].count)
                keys.removeAll(keepingCapacity: true)
                var child = index + 1
                for _ in 0..<count {
                    keys.append(child)
                    child += 1 + Int(nodes[child + 1].size)
                }
                if count <= 12 {
                    for second in 1..<count {
                        for first in 0..<second where equal(nodes[keys[first]], nodes[keys[second]]) {
                            return keys[second]
                        }
                    }
                } else {
                    seen.removeAll(keepingCapacity: true)
                    for key in keys where !seen.insert(string(key)).inserted {
                        return key
                    }
                }
            }
            return nil
        }
        if let repeated {
            throw CodecError(.malformedJSON, "an object repeats the key \"\(stringValue(repeated))\"", byteOffset: Int(nodes[repeated].offset))
        }
    }

    /// Reserves room for a document parsed from `length` bytes: unescaped text never exceeds
    /// the source, and a node takes at least two source bytes in all but tiny documents
    /// (`1,`), six or more in typical ones. Reserved pages cost no memory until written.
    fileprivate mutating func reserve(forSourceLength length: Int) {
        text.reserveCapacity(length)
        nodes.reserveCapacity(min(length / 6 + 16, 1 << 26))  // at most 1 GiB of address space
    }

    fileprivate mutating func append(_ node: Node) -> Int {
        nodes.append(node)
        return nodes.count - 1
    }

    fileprivate mutating func setSize(_ index: Int) {
        nodes[index].size = UInt32(nodes.count - index)
    }

    fileprivate mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>) { text.append(contentsOf: bytes) }
    fileprivate mutating func appendText(byte: UInt8) { text.append(byte) }
    fileprivate mutating func appendScalar(_ scalar: UInt32) { UTF8Encoding.append(scalar: scalar, to: &text) }
    fileprivate var textCount: Int { text.count }
    fileprivate mutating func noteDepth(_ value: Int) { depth = max(depth, value) }

    // MARK: Reading

    func node(_ index: Int) -> Node { nodes[index] }

    /// Indices of an array's element nodes.
    func elements(of index: Int) -> [Int] {
        let node = nodes[index]
        var result: [Int] = []
        result.reserveCapacity(Int(node.count))
        var child = index + 1
        for _ in 0..<node.count {
            result.append(child)
            child += Int(nodes[child].size)
        }
        return result
    }

    /// (key node, value node) indices of an object's members, in document order.
    func members(of index: Int) -> [(key: Int, value: Int)] {
        let node = nodes[index]
        var result: [(key: Int, value: Int)] = []
        result.reserveCapacity(Int(node.count))
        var child = index + 1
        for _ in 0..<node.count {
            result.append((child, child + 1))
            child += 1 + Int(nodes[child + 1].size)
        }
        return result
    }

    func string(_ index: Int) -> ArraySlice<UInt8> {
        let node = nodes[index]
        return text[Int(node.start)..<Int(node.start + node.count)]
    }

    func stringValue(_ index: Int) -> String { String(decoding: string(index), as: UTF8.self) }

    /// Where node `target` is, as a JSON path: `$`, `$.name`, `$[3]`, `$["odd key"]`. Walks
    /// down from the root, skipping subtrees by their size; meant for error messages.
    func path(to target: Int) -> String {
        var text = "$"
        var current = 0
        descent: while current != target, target < nodes.count {
            let node = nodes[current]
            var child = current + 1
            switch node.kind {
            case .array:
                for position in 0..<Int(node.count) {
                    let end = child + Int(nodes[child].size)
                    if target < end {
                        text += "[\(position)]"
                        current = child
                        continue descent
                    }
                    child = end
                }
            case .object:
                for _ in 0..<Int(node.count) {
                    let value = child + 1
                    let end = value + Int(nodes[value].size)
                    if target < end {
                        let key = stringValue(child)
                        let simple = !key.isEmpty && key.utf8.allSatisfy {
                            ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x5F || $0 == 0x24
                        }
                        text += simple ? ".\(key)" : "[\"\(key)\"]"
                        if target == child { break descent }  // the key itself
                        current = value
                        continue descent
                    }
                    child = end
                }
            default:
                break
            }
            break
        }
        return text
    }
}

/// The iterative recursive-descent-free parser behind `JSONDocument`.
private struct JSONParser {
    let source: UnsafeBufferPointer<UInt8>
    var position = 0

    init(source: UnsafeBufferPointer<UInt8>) { self.source = source }

    private func fail(_ message: String, at offset: Int? = nil) -> CodecError {
        CodecError(.malformedJSON, message, byteOffset: offset ?? position)
    }

    private mutating func skipWhitespace() {
        while position < source.count {
            let byte = source[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    /// Containers open at this moment, with whether they are objects.
    private struct Open {
        var node: Int
        var isObject: Bool
    }

    mutating func parse(into document: inout JSONDocument) throws(CodecError) {
        var stack: [Open] = []
        document.reserve(forSourceLength: source.count)
        skipWhitespace()
        guard position < source.count else { throw fail("empty JSON document") }
        // Parse one value per turn; after it, consume separators and closers.
        while true {
            skipWhitespace()
            if let open = stack.last, open.isObject {
                // A member key comes first.
                guard position < source.count, source[position] == UInt8(ascii: "\"") else {
                    throw fail("expected a string key")
                }
                try parseString(into: &document)
                skipWhitespace()
                guard position < source.count, source[position] == UInt8(ascii: ":") else {
                    throw fail("expected ':' after an object key")
                }
                position += 1
                skipWhitespace()
            }
            guard position < source.count else { throw fail("unexpected end of JSON") }
            let byte = source[position]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                let isObject = byte == UInt8(ascii: "{")
                guard stack.count < JSONDocument.maximumNesting else {
                    throw CodecError(.limitExceeded, "JSON nesting deeper than \(JSONDocument.maximumNesting)", byteOffset: position, found: stack.count + 1, limit: JSONDocument.maximumNesting)
                }
                let index = document.append(JSONDocument.Node(bits: 0, start: 0, count: 0, size: 1, offset: UInt32(position), kind: isObject ? .object : .array))
                stack.append(Open(node: index, isObject: isObject))
                document.noteDepth(stack.count)
                position += 1
                skipWhitespace()
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if position < source.count && source[position] == closer {
                    position += 1
                    stack.removeLast()
                    document.setSize(index)
                } else {
                    continue
                }
            } else {
                try parseScalar(into: &document)
            }
            // After a complete value: a comma continues the container, a closer ends it.
            while true {
                skipWhitespace()
                guard let open = stack.last else {
                    guard position == source.count else { throw fail("unexpected content after the JSON value") }
                    return
                }
                guard position < source.count else { throw fail("unexpected end of JSON inside a container") }
                document.nodes_incrementCount(open.node)
                let byte = source[position]
                if byte == UInt8(ascii: ",") {
                    position += 1
                    break
                }
                let closer = open.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard byte == closer else {
                    throw fail(open.isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                position += 1
                stack.removeLast()
                document.setSize(open.node)
            }
        }
    }

    private mutating func parseScalar(into document: inout JSONDocument) throws(CodecError) {
        let start = position
        let byte = source[position]
        func literal(_ word: StaticString) -> Bool {
            word.withUTF8Buffer { text in
                guard source.count - position >= text.count else { return false }
                for index in 0..<text.count where source[position + index] != text[index] { return false }
                position += text.count
                return true
            }
        }
        switch byte {
        case UInt8(ascii: "\""):
            try parseString(into: &document)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            if literal("true") {
                _ = document.append(.init(bits: 1, start: 0, count: 0, size: 1, offset: UInt32(start), kind: .bool))
            } else if literal("false") {
                _ = document.append(.init(bits: 0, start: 0, count: 0, size: 1, offset: UInt32(start), kind: .bool))
            } else if literal("null") {
                _ = document.append(.init(bits: 0, start: 0, count: 0, size: 1, offset: UInt32(start), kind: .null))
            } else {
                throw fail("invalid literal")
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber(into: &document)
        default:
            throw fail("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func parseNumber(into document: inout JSONDocument) throws(CodecError) {
        let start = position
        func digits() -> Int {
            let first = position
            while position < source.count, source[position] >= 0x30, source[position] <= 0x39 { position += 1 }
            return position - first
        }
        let negative = source[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < source.count, source[position] >= 0x30, source[position] <= 0x39 else {
            throw fail("invalid number", at: start)
        }
        if source[position] == 0x30 {
            position += 1
        } else {
            _ = digits()
        }
        var isReal = false
        if position < source.count, source[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw fail("invalid number: digits must follow '.'", at: start) }
            isReal = true
        }
        if position < source.count, source[position] == UInt8(ascii: "e") || source[position] == UInt8(ascii: "E") {
            position += 1
            if position < source.count, source[position] == UInt8(ascii: "+") || source[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw fail("invalid number: digits must follow the exponent", at: start) }
            isReal = true
        }
        // Up to 18 digits cannot overflow: read them directly, without building text.
        let magnitudeDigits = position - start - (negative ? 1 : 0)
        if !isReal, magnitudeDigits <= 18 {
            var magnitude: Int64 = 0
            for offset in (negative ? start + 1 : start)..<position { magnitude = magnitude &* 10 &+ Int64(source[offset] &- 0x30) }
            let value = negative ? -magnitude : magnitude
            _ = document.append(.init(bits: UInt64(bitPattern: value), start: 0, count: 0, size: 1, offset: UInt32(start), kind: .int))
            return
        }
        let textValue = String(decoding: UnsafeBufferPointer(rebasing: source[start..<position]), as: UTF8.self)
        if isReal {
            guard let value = Double(textValue), value.isFinite else {
                throw CodecError(.invalidDocument, "real \(textValue.prefix(40)) is outside the range of a double", byteOffset: start)
            }
            _ = document.append(.init(bits: value.bitPattern, start: 0, count: 0, size: 1, offset: UInt32(start), kind: .real))
        } else if let value = Int64(textValue) {
            _ = document.append(.init(bits: UInt64(bitPattern: value), start: 0, count: 0, size: 1, offset: UInt32(start), kind: .int))
        } else if !negative, let value = UInt64(textValue) {
            _ = document.append(.init(bits: value, start: 0, count: 0, size: 1, offset: UInt32(start), kind: .uint))
        } else {
            throw CodecError(.invalidDocument, "integer \(textValue.prefix(40)) is outside −2^63 … 2^64−1", byteOffset: start)
        }
    }

    private mutating func parseString(into document: inout JSONDocument) throws(CodecError) {
        let quote = position
        position += 1
        let textStart = document.textCount
        var runStart = position
        while true {
            guard position < source.count else { throw fail("unterminated string", at: quote) }
            let byte = source[position]
            if byte == UInt8(ascii: "\"") {
                document.appendText(UnsafeBufferPointer(rebasing: source[runStart..<position]))
                position += 1
                break
            }
            if byte == UInt8(ascii: "\\") {
                document.appendText(UnsafeBufferPointer(rebasing: source[runStart..<position]))
                try parseEscape(into: &document)
                runStart = position
                continue
            }
            if byte < 0x20 { throw fail("unescaped control character in string") }
            if byte < 0x80 {
                position += 1
                continue
            }
            guard let length = UTF8Encoding.validSequenceLength(source, at: position) else {
                throw fail("invalid UTF-8 in string")
            }
            position += length
        }
        let length = document.textCount - textStart
        guard document.textCount < Int(UInt32.max) else { throw fail("string data larger than 4 GiB") }
        _ = document.append(.init(bits: 0, start: UInt32(textStart), count: UInt32(length), size: 1, offset: UInt32(quote), kind: .string))
    }

    private mutating func parseEscape(into document: inout JSONDocument) throws(CodecError) {
        let start = position
        guard position + 1 < source.count else { throw fail("unterminated escape") }
        let code = source[position + 1]
        position += 2
        switch code {
        case UInt8(ascii: "\""): document.appendText(byte: 0x22)
        case UInt8(ascii: "\\"): document.appendText(byte: 0x5C)
        case UInt8(ascii: "/"): document.appendText(byte: 0x2F)
        case UInt8(ascii: "b"): document.appendText(byte: 0x08)
        case UInt8(ascii: "f"): document.appendText(byte: 0x0C)
        case UInt8(ascii: "n"): document.appendText(byte: 0x0A)
        case UInt8(ascii: "r"): document.appendText(byte: 0x0D)
        case UInt8(ascii: "t"): document.appendText(byte: 0x09)
        case UInt8(ascii: "u"):
            let unit = try hex4(at: start)
            if unit >= 0xD800 && unit < 0xDC00 {
                guard position + 1 < source.count, source[position] == UInt8(ascii: "\\"), source[position + 1] == UInt8(ascii: "u") else {
                    throw fail("unpaired high surrogate escape", at: start)
                }
                position += 2
                let low = try hex4(at: start)
                guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired high surrogate escape", at: start) }
                document.appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            } else if unit >= 0xDC00 && unit < 0xE000 {
                throw fail("unpaired low surrogate escape", at: start)
            } else {
                document.appendScalar(unit)
            }
        default:
            throw fail("invalid escape", at: start)
        }
    }

    private mutating func hex4(at start: Int) throws(CodecError) -> UInt32 {
        guard position + 4 <= source.count else { throw fail("truncated \\u escape", at: start) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = source[position]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw fail("invalid \\u escape", at: start)
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }
}

extension JSONDocument {
    fileprivate mutating func nodes_incrementCount(_ index: Int) {
        nodes[index].count += 1
    }
}
