/// Validates JSON text and indexes its containers for `JSONDocument`. Iterative: the open
/// containers are an explicit stack, so any nesting up to `JSONDocument.maximumNesting` is
/// safe for the thread's stack. Scalars are checked and skipped, not stored. Objects that
/// repeat a key are refused when they close: which value wins is unspecified (RFC 8259 §4),
/// and an archive dictionary cannot hold a key twice.
struct JSONParser {
    typealias Value = JSONDocument.Value

    /// What parsing leaves behind.
    struct Index {
        var containers: FrozenTable<JSONDocument.Container>
        var depth: Int
        var valueCount: Int
        var noted: [(object: Value, value: Value)]
        /// Per container: see `JSONDocument.mappingKeySpans`.
        var mappingKeySpans: FrozenTable<UInt8>
        /// Objects that are the value of a `$data` or `$bytes` member: see `JSONDocument.nestedPayloads`.
        var payloads: [Value]
        /// See `JSONDocument.scalarEnds`.
        var scalarEnds: [UInt64]
    }

    /// What the parse notes beside its index as it goes.
    private struct Found {
        var depth = 0
        var valueCount = 0
        var noted: [(object: Value, value: Value)] = []
        var payloads: [Value] = []
    }

    private let source: UnsafeBufferPointer<UInt8>
    private let notedKey: StaticString
    private var found = Found()
    /// The index's containers and their mapping-key spans while the parse runs, in buffers of
    /// the parse's own (`InPlaceStack`): an array's append and element write asked the runtime
    /// whether the array was shared, three times a container. The index keeps the buffers
    /// (`FrozenTable`).
    private var containers: InPlaceStack<JSONDocument.Container>
    private var mappingKeySpans: InPlaceStack<UInt8>
    /// A key of an open object: `count` bytes of text, between its quotes in the source or,
    /// for a key with escapes, in `keyText` from `start` (unescaped once, when read).
    private struct Key {
        var value: Value
        var start: UInt32
        var count: UInt32
    }

    /// Keys of the objects open now, innermost last (each `Open` knows where its own begin),
    /// on a stack of the parse's own (`InPlaceStack`, freed when the parse ends): a key is
    /// written in place, where an array's element write checked the array's uniqueness at
    /// every key. An object's keys are dropped when it closes.
    private var keys = InPlaceStack<Key>(capacity: 16)
    /// Unescaped text of the open objects' keys that hold escapes, innermost last.
    private var keyText: [UInt8] = []
    /// The object whose member named `notedKey` is being read, if one is.
    private var noting: Value?
    /// Whether the value being read is that of a `$data` or `$bytes` member.
    private var notingPayload = false

    /// Validates `source` and indexes its containers, listing the members named `notingKey`.
    static func index(of source: UnsafeBufferPointer<UInt8>, notingKey: StaticString) throws(CodecError) -> Index {
        var parser = JSONParser(source: source, notingKey: notingKey)
        var handedOver = false
        defer {
            parser.keys.deallocate()
            if !handedOver {
                parser.containers.deallocate()
                parser.mappingKeySpans.deallocate()
            }
        }
        // One bit per source byte, all of it allocated and cleared before the parse: an eighth
        // of the source, whatever its values.
        let words = source.count / 64 + 1
        var failure: CodecError?
        var scalarEnds = [UInt64](filledWith: 0, count: words)
        scalarEnds.withUnsafeMutableBufferPointer { buffer in
            do throws(CodecError) {
                try parser.parse(markingScalarsIn: buffer.baseAddress!)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        handedOver = true
        return Index(
            containers: FrozenTable(adopting: parser.containers), depth: parser.found.depth, valueCount: parser.found.valueCount,
            noted: parser.found.noted, mappingKeySpans: FrozenTable(adopting: parser.mappingKeySpans), payloads: parser.found.payloads,
            scalarEnds: scalarEnds)
    }

    private init(source: UnsafeBufferPointer<UInt8>, notingKey: StaticString) {
        self.source = source
        notedKey = notingKey
        // A container takes at least two bytes; typical documents hold one per 15 to 40.
        // The buffers grow by doubling past this first guess.
        let guess = min(source.count / 16 + 16, 1 << 26)
        containers = InPlaceStack(capacity: guess)
        mappingKeySpans = InPlaceStack(capacity: guess)
    }

    private static func fail(_ message: String, at offset: Int) -> CodecError {
        CodecError(.malformedJSON, message, byteOffset: offset)
    }

    /// The first byte at or after `position` that is not whitespace (or the end).
    @inline(__always)
    private static func skippingWhitespace(_ source: UnsafeBufferPointer<UInt8>, from position: Int) -> Int {
        var position = position
        while position < source.count, JSONText.isWhitespace(source[position]) { position += 1 }
        return position
    }

    /// A container open at this moment: whether it is an object, where its keys begin in
    /// `keys`, and how many values it has had so far.
    private struct Open {
        var container: Int
        var start: UInt32
        var isObject: Bool
        var firstKey: Int
        var firstKeyText: Int
        var count: UInt32
    }

    /// The parse. Its hot state is held in locals: the position, the value count, and the
    /// innermost open container (`open`, with its running count), whose ancestors wait on
    /// `stack`, touched only when a container opens or closes. The index's entry of a
    /// container is written once, when it closes. Every scalar and key is marked in `ends`
    /// (`JSONDocument.scalarEnds`).
    private mutating func parse(markingScalarsIn ends: UnsafeMutablePointer<UInt64>) throws(CodecError) {
        let source = source
        // The ancestors of `open`, outermost first; at the top level `open` is a stand-in that
        // is no object.
        var stack = InPlaceStack<Open>(capacity: 16)
        defer { stack.deallocate() }
        var open = Open(container: 0, start: 0, isObject: false, firstKey: 0, firstKeyText: 0, count: 0)
        var valueCount = 0
        var position = Self.skippingWhitespace(source, from: 0)
        guard position < source.count else { throw Self.fail("empty JSON document", at: position) }
        // Parse one value per turn; after it, consume separators and closers.
        while true {
            position = Self.skippingWhitespace(source, from: position)
            if open.isObject {
                // A member key comes first.
                guard position < source.count, source[position] == UInt8(ascii: "\"") else {
                    throw Self.fail("expected a string key", at: position)
                }
                let key = try readKey(at: position)
                Self.mark(key.value, in: ends)
                position = Int(key.value.offset) + Int(key.value.payload & ~Value.escapedBit)
                if key.isNoted { noting = Value(offset: open.start, payload: UInt32(open.container)) }
                if key.isMapping {
                    notingPayload = key.holdsPayload
                    let span = Int(open.count) + 1
                    mappingKeySpans.base[open.container] = UInt8(min(span, JSONDocument.unboundedSpan))
                }
                position = Self.skippingWhitespace(source, from: position)
                guard position < source.count, source[position] == UInt8(ascii: ":") else {
                    throw Self.fail("expected ':' after an object key", at: position)
                }
                position = Self.skippingWhitespace(source, from: position + 1)
            }
            guard position < source.count else { throw Self.fail("unexpected end of JSON", at: position) }
            valueCount += 1
            let byte = source[position]
            let payload = notingPayload
            notingPayload = false
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                let isObject = byte == UInt8(ascii: "{")
                guard stack.count < JSONDocument.maximumNesting else {
                    throw CodecError(.limitExceeded, "JSON nesting deeper than \(JSONDocument.maximumNesting)", byteOffset: position, found: stack.count + 1, limit: JSONDocument.maximumNesting)
                }
                let container = containers.count
                // The clock is read at every `pollInterval`th container: between two, the parse
                // meets at most that many containers and the scalars of their text.
                try ConversionDeadline.poll(container)
                containers.push(JSONDocument.Container(end: 0, count: 0, descendants: 0))
                mappingKeySpans.push(0)
                note(Value(offset: UInt32(position), payload: UInt32(container)))
                if payload && isObject { found.payloads.append(Value(offset: UInt32(position), payload: UInt32(container))) }
                stack.push(open)
                open = Open(container: container, start: UInt32(position), isObject: isObject, firstKey: keys.count, firstKeyText: keyText.count, count: 0)
                found.depth = max(found.depth, stack.count)
                position = Self.skippingWhitespace(source, from: position + 1)
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if position < source.count && source[position] == closer {
                    position += 1
                    try close(open, at: position)
                    open = stack.pop()
                } else {
                    continue
                }
            } else {
                let value = try Self.skipScalar(source, at: position)
                Self.mark(value, in: ends)
                position = Int(value.offset) + Int(value.payload & ~Value.escapedBit)
                note(value)
            }
            // After a complete value: a comma continues the container, a closer ends it.
            while true {
                position = Self.skippingWhitespace(source, from: position)
                guard !stack.isEmpty else {
                    guard position == source.count else { throw Self.fail("unexpected content after the JSON value", at: position) }
                    found.valueCount = valueCount
                    return
                }
                guard position < source.count else { throw Self.fail("unexpected end of JSON inside a container", at: position) }
                open.count += 1
                let byte = source[position]
                if byte == UInt8(ascii: ",") {
                    position += 1
                    break
                }
                let closer = open.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard byte == closer else {
                    throw Self.fail(open.isObject ? "expected ',' or '}'" : "expected ',' or ']'", at: position)
                }
                position += 1
                try close(open, at: position)
                open = stack.pop()
            }
        }
    }

    /// Marks scalar `value` in `ends` as `JSONDocument.scalarEnds` describes.
    @inline(__always)
    private static func mark(_ value: Value, in ends: UnsafeMutablePointer<UInt64>) {
        let last = Int(value.offset) + Int(value.payload & ~Value.escapedBit) - 1
        ends[last >> 6] |= 1 &<< UInt64(truncatingIfNeeded: last)
        if value.payload & Value.escapedBit != 0 {
            ends[Int(value.offset) >> 6] |= 1 &<< UInt64(truncatingIfNeeded: value.offset)
        }
    }

    /// Records container `open`, whose closer ends just before `end`, and refuses an object
    /// that repeats a key.
    private mutating func close(_ open: Open, at end: Int) throws(CodecError) {
        let container = open.container
        containers.base[container] = JSONDocument.Container(
            end: UInt32(end), count: open.count, descendants: UInt32(containers.count - container - 1))
        guard open.isObject else { return }
        // An object of one member (a typedstream's every group, a `{"$ref": n}`) repeats no
        // key: its key is dropped without the search below, which cost it twice its closing.
        if keys.count - open.firstKey <= 1, keyText.count == open.firstKeyText {
            keys.truncate(to: open.firstKey)
            return
        }
        defer {
            keys.truncate(to: open.firstKey)
            // Most objects have no escaped keys: their text is left alone.
            if keyText.count > open.firstKeyText { keyText.removeLast(keyText.count - open.firstKeyText) }
        }
        let source = source
        let own = keys.elements(open.firstKey..<keys.count)
        let repeated = keyText.withUnsafeBufferPointer { scratch in Self.firstRepeated(own, source: source, scratch: scratch) }
        if let repeated {
            let key = own[repeated]
            let name = keyText.withUnsafeBufferPointer { String(decoding: Self.text(of: key, source: source, scratch: $0), as: UTF8.self) }
            throw CodecError(.malformedJSON, "an object repeats the key \"\(name)\"", byteOffset: Int(key.value.offset))
        }
    }

    /// The position in `keys` of the first key that repeats an earlier one: up to 12 keys
    /// pairwise, more through a randomly seeded hash table of their positions (nothing
    /// allocated per key).
    private static func firstRepeated(
        _ keys: UnsafeBufferPointer<Key>, source: UnsafeBufferPointer<UInt8>, scratch: UnsafeBufferPointer<UInt8>
    ) -> Int? {
        func text(_ position: Int) -> UnsafeBufferPointer<UInt8> { Self.text(of: keys[position], source: source, scratch: scratch) }
        if keys.count <= 12 {
            for second in keys.indices {
                for first in 0..<second where keys[first].count == keys[second].count && ByteStringTable.equal(text(first), text(second)) {
                    return second
                }
            }
            return nil
        }
        var table = ByteStringTable()
        for position in keys.indices {
            let found = table.findOrInsert(
                hash: ByteStringTable.hash(text(position)),
                equals: { ByteStringTable.equal(text(Int($0)), text(position)) },
                newValue: { UInt32(position) })
            if found != UInt32(position) { return position }
        }
        return nil
    }

    /// A key just read, and what the parse must know of its text.
    private struct KeyRead {
        var value: Value
        /// The key is `notedKey`.
        var isNoted: Bool
        /// The key starts with one `$` (not `$$`): a key of the archive mapping.
        var isMapping: Bool
        /// The key is `$data` or `$bytes`, whose value may be a nested payload.
        var holdsPayload: Bool
    }

    /// Reads the key whose opening quote is at `quote` into `keys`, unescaping it into
    /// `keyText` if it holds escapes; returns it and what its text says. The text is looked at
    /// here, where it is at hand: methods that read the key back from `keys` were handed a
    /// copy of the whole parser at every key.
    private mutating func readKey(at quote: Int) throws(CodecError) -> KeyRead {
        let value = try Self.skipString(source, at: quote)
        guard value.payload & Value.escapedBit != 0 else {
            let count = Int(value.payload) - 2
            keys.push(Key(value: value, start: 0, count: UInt32(count)))
            return Self.keyRead(value, text: UnsafeBufferPointer(rebasing: source[(quote + 1)..<(quote + 1 + count)]), notedKey: notedKey)
        }
        let start = keyText.count
        JSONText.unescape(source, from: quote + 1, into: &keyText)
        keys.push(Key(value: value, start: UInt32(start), count: UInt32(keyText.count - start)))
        let notedKey = notedKey
        return keyText.withUnsafeBufferPointer { Self.keyRead(value, text: UnsafeBufferPointer(rebasing: $0[start...]), notedKey: notedKey) }
    }

    @inline(__always)
    private static func keyRead(_ value: Value, text: UnsafeBufferPointer<UInt8>, notedKey: StaticString) -> KeyRead {
        let isMapping = MappingKeys.isMappingKey(text)
        // Only `$data` and `$bytes` (5 and 6 bytes) hold payloads.
        let holdsPayload =
            isMapping && (text.count == 5 || text.count == 6)
            && (JSONText.text(text, equals: MappingKeys.data) || JSONText.text(text, equals: MappingKeys.bytes))
        return KeyRead(value: value, isNoted: JSONText.text(text, equals: notedKey), isMapping: isMapping, holdsPayload: holdsPayload)
    }

    /// The text of `key`: between its quotes in `source`, or in `scratch` (`keyText`).
    private static func text(of key: Key, source: UnsafeBufferPointer<UInt8>, scratch: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if key.value.payload & Value.escapedBit != 0 {
            return UnsafeBufferPointer(rebasing: scratch[Int(key.start)..<Int(key.start + key.count)])
        }
        let content = Int(key.value.offset) + 1
        return UnsafeBufferPointer(rebasing: source[content..<(content + Int(key.count))])
    }

    /// Lists `value` if it is the value of a noted member.
    private mutating func note(_ value: Value) {
        guard let object = noting else { return }
        noting = nil
        found.noted.append((object, value))
    }

    /// Checks the scalar (string, number, literal) at `start`; returns it.
    private static func skipScalar(_ source: UnsafeBufferPointer<UInt8>, at start: Int) throws(CodecError) -> Value {
        func matches(_ word: StaticString) -> Bool {
            word.withUTF8Buffer { text in
                guard source.count - start >= text.count else { return false }
                for offset in 0..<text.count where source[start + offset] != text[offset] { return false }
                return true
            }
        }
        let end: Int
        let byte = source[start]
        switch byte {
        case UInt8(ascii: "\""):
            return try skipString(source, at: start)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            if matches("true") {
                end = start + 4
            } else if matches("false") {
                end = start + 5
            } else if matches("null") {
                end = start + 4
            } else {
                throw fail("invalid literal", at: start)
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            end = try JSONNumber.end(source, at: start)
        default:
            throw fail("unexpected character '\(Unicode.Scalar(byte))'", at: start)
        }
        return Value(offset: start, scalarEnd: end, escaped: false)
    }

    /// Checks the string whose opening quote is at `quote`: UTF-8, no raw control characters,
    /// escapes well formed (surrogates paired). Runs of plain ASCII are passed eight bytes at
    /// a time. Inlined into its two callers (keys, scalars): a call cost a short string a
    /// third of its checking, in saved registers and constants loaded again.
    @inline(__always)
    private static func skipString(_ source: UnsafeBufferPointer<UInt8>, at quote: Int) throws(CodecError) -> Value {
        var escaped = false
        var position = quote + 1
        let raw = UnsafeRawPointer(source.baseAddress!)
        while true {
            while position + 8 <= source.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let marks =
                    JSONText.bytesEqual(word, UInt8(ascii: "\"")) | JSONText.bytesEqual(word, UInt8(ascii: "\\"))
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
                return Value(offset: quote, scalarEnd: position + 1, escaped: escaped)
            }
            if byte == UInt8(ascii: "\\") {
                do {
                    position += try JSONText.escape(source, at: position).length
                } catch {
                    throw fail(error.message, at: position)
                }
                escaped = true
                continue
            }
            if byte < 0x20 { throw fail("unescaped control character in string", at: position) }
            if byte < 0x80 {
                position += 1
                continue
            }
            guard let length = UTF8Encoding.validSequenceLength(source, at: position) else {
                throw fail("invalid UTF-8 in string", at: position)
            }
            position += length
        }
    }
}
