/// Validates JSON text and indexes its containers for `JSONDocument`. Iterative: the open
/// containers are an explicit stack, so any nesting up to `JSONDocument.maximumNesting` is
/// safe for the thread's stack. Scalars are checked and skipped, not stored. Objects that
/// repeat a key are refused when they close: which value wins is unspecified (RFC 8259 §4),
/// and an archive dictionary cannot hold a key twice.
struct JSONParser {
    typealias Value = JSONDocument.Value

    /// What parsing leaves behind.
    struct Index {
        var containers: [JSONDocument.Container] = []
        var depth = 0
        var valueCount = 0
        var noted: [(object: Value, value: Value)] = []
    }

    private let source: UnsafeBufferPointer<UInt8>
    private let notedKey: StaticString
    private var position = 0
    private var index = Index()
    /// Keys of the objects open now, innermost last (each `Open` knows where its own begin).
    private var keys: [Value] = []
    /// The object whose member named `notedKey` is being read, if one is.
    private var noting: Value?
    /// Unescaped text of the key being hashed, when it holds escapes.
    private var unescaped: [UInt8] = []

    init(source: UnsafeBufferPointer<UInt8>, notingKey: StaticString) {
        self.source = source
        notedKey = notingKey
    }

    private func fail(_ message: String, at offset: Int? = nil) -> CodecError {
        CodecError(.malformedJSON, message, byteOffset: offset ?? position)
    }

    private mutating func skipWhitespace() {
        while position < source.count, JSONText.isWhitespace(source[position]) { position += 1 }
    }

    /// Containers open at this moment, with whether they are objects and where their keys
    /// begin in `keys`.
    private struct Open {
        var container: Int
        var start: UInt32
        var isObject: Bool
        var firstKey: Int
    }

    mutating func parse() throws(CodecError) -> Index {
        var stack: [Open] = []
        // A container takes at least two bytes; typical documents hold one per 30 or more.
        // Reserved pages cost no memory until written.
        index.containers.reserveCapacity(min(source.count / 32 + 16, 1 << 26))
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
                let key = try skipString()
                keys.append(key)
                if isNotedKey(key) { noting = Value(offset: open.start, payload: UInt32(open.container)) }
                skipWhitespace()
                guard position < source.count, source[position] == UInt8(ascii: ":") else {
                    throw fail("expected ':' after an object key")
                }
                position += 1
                skipWhitespace()
            }
            guard position < source.count else { throw fail("unexpected end of JSON") }
            index.valueCount += 1
            let byte = source[position]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                let isObject = byte == UInt8(ascii: "{")
                guard stack.count < JSONDocument.maximumNesting else {
                    throw CodecError(.limitExceeded, "JSON nesting deeper than \(JSONDocument.maximumNesting)", byteOffset: position, found: stack.count + 1, limit: JSONDocument.maximumNesting)
                }
                let container = index.containers.count
                index.containers.append(JSONDocument.Container(end: 0, count: 0, descendants: 0))
                note(Value(offset: UInt32(position), payload: UInt32(container)))
                stack.append(Open(container: container, start: UInt32(position), isObject: isObject, firstKey: keys.count))
                index.depth = max(index.depth, stack.count)
                position += 1
                skipWhitespace()
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if position < source.count && source[position] == closer {
                    position += 1
                    try close(stack.removeLast())
                } else {
                    continue
                }
            } else {
                note(try skipScalar())
            }
            // After a complete value: a comma continues the container, a closer ends it.
            while true {
                skipWhitespace()
                guard let open = stack.last else {
                    guard position == source.count else { throw fail("unexpected content after the JSON value") }
                    return index
                }
                guard position < source.count else { throw fail("unexpected end of JSON inside a container") }
                index.containers[open.container].count += 1
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
                try close(stack.removeLast())
            }
        }
    }

    /// Records the end of container `open`, whose closer was just consumed, and checks an
    /// object's keys: small objects pairwise, larger ones through a randomly seeded hash
    /// table of their positions in `keys` (nothing allocated per key).
    private mutating func close(_ open: Open) throws(CodecError) {
        let container = open.container
        index.containers[container].end = UInt32(position)
        index.containers[container].descendants = UInt32(index.containers.count - container - 1)
        guard open.isObject else { return }
        defer { keys.removeSubrange(open.firstKey...) }
        let count = keys.count - open.firstKey
        if count <= 12 {
            if let repeated = repeatedKeyPairwise(from: open.firstKey) { throw repeatedKey(repeated) }
        } else {
            var table = ByteStringTable()
            for position in open.firstKey..<keys.count {
                let key = keys[position]
                let hash = hashText(of: key)
                let found = table.findOrInsert(hash: hash, equals: { sameText(keys[Int($0)], key) }, newValue: { UInt32(position) })
                if found != UInt32(position) { throw repeatedKey(key) }
            }
        }
    }

    /// The first key from `keys[first...]` that repeats an earlier one, compared pairwise.
    /// Keys with escapes are unescaped once each into `unescaped` first, so a pair costs a
    /// length check and at most one comparison of bytes.
    private mutating func repeatedKeyPairwise(from first: Int) -> Value? {
        let plain = keys[first...].allSatisfy { $0.payload & Value.escapedBit == 0 }
        if plain {
            for second in first..<keys.count {
                for earlier in first..<second where sameText(keys[earlier], keys[second]) { return keys[second] }
            }
            return nil
        }
        // Each key's text: (in `unescaped`?, start, length).
        unescaped.removeAll(keepingCapacity: true)
        var texts: [(inScratch: Bool, start: Int, count: Int)] = []
        texts.reserveCapacity(keys.count - first)
        for key in keys[first...] {
            let start = Int(key.offset) + 1
            if key.payload & Value.escapedBit == 0 {
                texts.append((false, start, Int(key.payload) - 2))
            } else {
                let scratchStart = unescaped.count
                JSONText.unescape(source, from: start, into: &unescaped)
                texts.append((true, scratchStart, unescaped.count - scratchStart))
            }
        }
        return unescaped.withUnsafeBufferPointer { scratch -> Value? in
            func base(_ text: (inScratch: Bool, start: Int, count: Int)) -> UnsafePointer<UInt8> {
                (text.inScratch ? scratch.baseAddress! : source.baseAddress!) + text.start
            }
            for second in texts.indices {
                for earlier in 0..<second where texts[earlier].count == texts[second].count {
                    if texts[second].count == 0 || ByteStringTable.bytesEqual(base(texts[earlier]), base(texts[second]), count: texts[second].count) {
                        return keys[first + second]
                    }
                }
            }
            return nil
        }
    }

    /// The hash of string `key`'s unescaped text.
    private mutating func hashText(of key: Value) -> UInt64 {
        let start = Int(key.offset) + 1
        guard key.payload & Value.escapedBit != 0 else {
            return ByteStringTable.hash(UnsafeBufferPointer(rebasing: source[start..<(start + Int(key.payload) - 2)]))
        }
        unescaped.removeAll(keepingCapacity: true)
        JSONText.unescape(source, from: start, into: &unescaped)
        return unescaped.withUnsafeBufferPointer { ByteStringTable.hash($0) }
    }

    private func repeatedKey(_ key: Value) -> CodecError {
        CodecError(.malformedJSON, "an object repeats the key \"\(String(decoding: text(of: key), as: UTF8.self))\"", byteOffset: Int(key.offset))
    }

    /// The unescaped text of string `key`.
    private func text(of key: Value) -> [UInt8] {
        let start = Int(key.offset) + 1
        guard key.payload & Value.escapedBit != 0 else { return Array(source[start..<(start + Int(key.payload) - 2)]) }
        var text: [UInt8] = []
        JSONText.unescape(source, from: start, into: &text)
        return text
    }

    /// Whether two strings have the same text: compared in the source when neither holds an
    /// escape (an escaped string can equal a plain one only if it is no longer).
    private func sameText(_ first: Value, _ second: Value) -> Bool {
        if (first.payload | second.payload) & Value.escapedBit == 0 {
            return first.payload == second.payload
                && ByteStringTable.bytesEqual(source.baseAddress! + Int(first.offset), source.baseAddress! + Int(second.offset), count: Int(first.payload))
        }
        return text(of: first) == text(of: second)
    }

    private func isNotedKey(_ key: Value) -> Bool {
        let length = notedKey.utf8CodeUnitCount
        if key.payload & Value.escapedBit == 0 {
            return Int(key.payload) == length + 2
                && ByteStringTable.bytesEqual(source.baseAddress! + Int(key.offset) + 1, notedKey.utf8Start, count: length)
        }
        return text(of: key).elementsEqual(UnsafeBufferPointer(start: notedKey.utf8Start, count: length))
    }

    /// Lists `value` if it is the value of a noted member.
    private mutating func note(_ value: Value) {
        guard let object = noting else { return }
        noting = nil
        index.noted.append((object, value))
    }

    private mutating func skipScalar() throws(CodecError) -> Value {
        let start = position
        func literal(_ word: StaticString) -> Bool {
            word.withUTF8Buffer { text in
                guard source.count - position >= text.count else { return false }
                for offset in 0..<text.count where source[position + offset] != text[offset] { return false }
                position += text.count
                return true
            }
        }
        let byte = source[position]
        switch byte {
        case UInt8(ascii: "\""):
            return try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard literal("true") || literal("false") || literal("null") else { throw fail("invalid literal") }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            position = try JSONNumber.read(source, at: position).end
        default:
            throw fail("unexpected character '\(Unicode.Scalar(byte))'")
        }
        return Value(offset: start, scalarEnd: position, escaped: false)
    }

    /// Checks the string at the opening quote: UTF-8, no raw control characters, escapes
    /// well formed (surrogates paired). Runs of plain ASCII are passed eight bytes at a time.
    private mutating func skipString() throws(CodecError) -> Value {
        let quote = position
        var escaped = false
        position += 1
        let raw = UnsafeRawPointer(source.baseAddress!)
        while true {
            while position + 8 <= source.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let marks = JSONText.bytesEqual(word, UInt8(ascii: "\"")) | JSONText.bytesEqual(word, UInt8(ascii: "\\"))
                    | JSONText.bytesBelow(word, 0x20) | (word & 0x8080_8080_8080_8080)
                if marks != 0 {
                    position += marks.trailingZeroBitCount / 8
                    break
                }
                position += 8
            }
            guard position < source.count else { throw fail("unterminated string", at: quote) }
            let byte = source[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return Value(offset: quote, scalarEnd: position, escaped: escaped)
            }
            if byte == UInt8(ascii: "\\") {
                do {
                    position += try JSONText.escape(source, at: position).length
                } catch {
                    throw fail(error.message)
                }
                escaped = true
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
    }
}
