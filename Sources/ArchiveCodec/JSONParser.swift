/// Validates JSON text and indexes its containers for `JSONDocument`. Iterative: the open
/// containers are an explicit stack, so any nesting up to `JSONDocument.maximumNesting` is
/// safe for the thread's stack. Scalars are checked and skipped, not stored.
struct JSONParser {
    /// What parsing leaves behind.
    struct Index {
        var containers: [JSONDocument.Container] = []
        var depth = 0
        var valueCount = 0
    }

    private let source: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var index = Index()

    init(source: UnsafeBufferPointer<UInt8>) { self.source = source }

    private func fail(_ message: String, at offset: Int? = nil) -> CodecError {
        CodecError(.malformedJSON, message, byteOffset: offset ?? position)
    }

    private mutating func skipWhitespace() {
        while position < source.count, JSONText.isWhitespace(source[position]) { position += 1 }
    }

    /// Containers open at this moment, with whether they are objects.
    private struct Open {
        var container: Int
        var isObject: Bool
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
                try skipString()
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
                index.containers.append(JSONDocument.Container(start: UInt32(position), end: 0, count: 0, descendants: 0))
                stack.append(Open(container: container, isObject: isObject))
                index.depth = max(index.depth, stack.count)
                position += 1
                skipWhitespace()
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if position < source.count && source[position] == closer {
                    position += 1
                    stack.removeLast()
                    close(container)
                } else {
                    continue
                }
            } else {
                try skipScalar()
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
                stack.removeLast()
                close(open.container)
            }
        }
    }

    /// Records the end of `container`, whose closer was just consumed.
    private mutating func close(_ container: Int) {
        index.containers[container].end = UInt32(position)
        index.containers[container].descendants = UInt32(index.containers.count - container - 1)
    }

    private mutating func skipScalar() throws(CodecError) {
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
            try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard literal("true") || literal("false") || literal("null") else { throw fail("invalid literal") }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            position = try JSONNumber.read(source, at: position).end
        default:
            throw fail("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    /// Checks the string at the opening quote: UTF-8, no raw control characters, escapes
    /// well formed (surrogates paired).
    private mutating func skipString() throws(CodecError) {
        let quote = position
        position += 1
        while true {
            guard position < source.count else { throw fail("unterminated string", at: quote) }
            let byte = source[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                do {
                    position += try JSONText.escape(source, at: position).length
                } catch {
                    throw fail(error.message)
                }
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
