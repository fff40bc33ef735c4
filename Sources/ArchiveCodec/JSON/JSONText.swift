/// Byte-level reading of JSON text shared by `JSONParser` (which validates) and
/// `JSONDocument` (which reads again what the parser accepted). Functions that take
/// validated text say so: they do not check bounds the grammar already guarantees.
enum JSONText {
    /// Whitespace, `,` and `:`: in validated text, what lies between one value (or key) and
    /// the next.
    @inline(__always)
    static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":")
    }

    /// Whether `text` is exactly `literal`: lengths first, then the bytes in place.
    @inline(__always)
    static func text(_ text: UnsafeBufferPointer<UInt8>, equals literal: StaticString) -> Bool {
        guard text.count == literal.utf8CodeUnitCount else { return false }
        guard text.count > 0 else { return true }
        guard literal.hasPointerRepresentation else { return text.elementsEqual(literal.description.utf8) }
        return ByteStringTable.bytesEqual(text.baseAddress!, literal.utf8Start, count: text.count)
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Just past the validated scalar (string, number, literal) starting at `position`, and
    /// whether it is a string holding escapes.
    @inline(__always)
    static func scalarEnd(_ source: UnsafeBufferPointer<UInt8>, at position: Int) -> (end: Int, escaped: Bool) {
        switch source[position] {
        case UInt8(ascii: "\""):
            let span = stringSpan(source, quote: position)
            return (span.end + 1, span.escaped)
        case UInt8(ascii: "t"), UInt8(ascii: "n"): return (position + 4, false)
        case UInt8(ascii: "f"): return (position + 5, false)
        default:
            var end = position + 1
            while end < source.count, isNumberByte(source[end]) { end += 1 }
            return (end, false)
        }
    }

    @inline(__always)
    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that equals `byte`; exact for the lowest such byte
    /// (bytes above it may be marked falsely, so callers use only the lowest mark).
    @inline(__always)
    static func bytesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let match = word ^ (ones &* UInt64(byte))
        return (match &- ones) & ~match & highs
    }

    /// The high bit of each byte of `word` below `limit` (at most 0x80); exact for the
    /// lowest such byte, as above.
    @inline(__always)
    static func bytesBelow(_ word: UInt64, _ limit: UInt8) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highs
    }

    /// The content of the validated string whose opening quote is at `quote`: from `start`
    /// to the closing quote at `end`, and whether it holds escapes. Reads eight bytes at a
    /// time while eight remain.
    static func stringSpan(_ source: UnsafeBufferPointer<UInt8>, quote: Int) -> (start: Int, end: Int, escaped: Bool) {
        var position = quote + 1
        var escaped = false
        let raw = UnsafeRawPointer(source.baseAddress!)
        while true {
            while position + 8 <= source.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let marks = bytesEqual(word, UInt8(ascii: "\"")) | bytesEqual(word, UInt8(ascii: "\\"))
                if marks != 0 {
                    position += marks.trailingZeroBitCount / 8
                    break
                }
                position += 8
            }
            let byte = source[position]
            if byte == UInt8(ascii: "\"") { return (quote + 1, position, escaped) }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position += 2  // the escaped character is never the closing quote
            } else {
                position += 1
            }
        }
    }

    /// What went wrong with an escape sequence.
    enum EscapeProblem: Error {
        case unterminated, invalid, truncatedUnicode, invalidUnicode, unpairedHigh, unpairedLow

        var message: String {
            switch self {
            case .unterminated: "unterminated escape"
            case .invalid: "invalid escape"
            case .truncatedUnicode: "truncated \\u escape"
            case .invalidUnicode: "invalid \\u escape"
            case .unpairedHigh: "unpaired high surrogate escape"
            case .unpairedLow: "unpaired low surrogate escape"
            }
        }
    }

    /// The escape sequence whose backslash is at `position`: the Unicode scalar it stands
    /// for and how many source bytes it takes (a surrogate pair written as two `\u`
    /// escapes is one scalar).
    static func escape(_ source: UnsafeBufferPointer<UInt8>, at position: Int) throws(EscapeProblem) -> (scalar: UInt32, length: Int) {
        guard position + 1 < source.count else { throw .unterminated }
        switch source[position + 1] {
        case UInt8(ascii: "\""): return (0x22, 2)
        case UInt8(ascii: "\\"): return (0x5C, 2)
        case UInt8(ascii: "/"): return (0x2F, 2)
        case UInt8(ascii: "b"): return (0x08, 2)
        case UInt8(ascii: "f"): return (0x0C, 2)
        case UInt8(ascii: "n"): return (0x0A, 2)
        case UInt8(ascii: "r"): return (0x0D, 2)
        case UInt8(ascii: "t"): return (0x09, 2)
        case UInt8(ascii: "u"):
            let unit = try hex4(source, at: position + 2)
            if unit >= 0xDC00 && unit < 0xE000 { throw .unpairedLow }
            guard unit >= 0xD800 && unit < 0xDC00 else { return (unit, 6) }
            guard position + 7 < source.count, source[position + 6] == UInt8(ascii: "\\"), source[position + 7] == UInt8(ascii: "u") else {
                throw .unpairedHigh
            }
            let low = try hex4(source, at: position + 8)
            guard low >= 0xDC00 && low < 0xE000 else { throw .unpairedHigh }
            return (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), 12)
        default:
            throw .invalid
        }
    }

    private static func hex4(_ source: UnsafeBufferPointer<UInt8>, at start: Int) throws(EscapeProblem) -> UInt32 {
        guard start + 4 <= source.count else { throw .truncatedUnicode }
        var value: UInt32 = 0
        for position in start..<(start + 4) {
            let byte = source[position]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw .invalidUnicode
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Appends the unescaped UTF-8 of the validated string content starting at `start`.
    static func unescape(_ source: UnsafeBufferPointer<UInt8>, from start: Int, into text: inout [UInt8]) {
        let bound = stringSpan(source, quote: start - 1).end - start
        let old = text.count
        text.append(contentsOf: repeatElement(0, count: bound))
        let written = text.withUnsafeMutableBufferPointer { unescape(source, from: start, writingTo: $0.baseAddress! + old) }
        text.removeLast(bound - written)
    }

    /// Writes the unescaped UTF-8 of the validated string content starting at `start` to
    /// `out` (a label apart from the appending form: `&array` would convert to a pointer), which must have room for the content's length in the source (unescaping never
    /// lengthens text); returns the bytes written.
    static func unescape(_ source: UnsafeBufferPointer<UInt8>, from start: Int, writingTo out: UnsafeMutablePointer<UInt8>) -> Int {
        var position = start
        var written = 0
        func put(_ byte: UInt32) {
            out[written] = UInt8(truncatingIfNeeded: byte)
            written += 1
        }
        while true {
            let byte = source[position]
            if byte == UInt8(ascii: "\"") { return written }
            guard byte == UInt8(ascii: "\\") else {
                out[written] = byte
                written += 1
                position += 1
                continue
            }
            // Validated: the escape is well formed. U+FFFD keeps a broken invariant visible.
            let (scalar, length) = (try? escape(source, at: position)) ?? (0xFFFD, 2)
            switch scalar {
            case ..<0x80:
                put(scalar)
            case ..<0x800:
                put(0xC0 | scalar >> 6)
                put(0x80 | scalar & 0x3F)
            case ..<0x10000:
                put(0xE0 | scalar >> 12)
                put(0x80 | scalar >> 6 & 0x3F)
                put(0x80 | scalar & 0x3F)
            default:
                put(0xF0 | scalar >> 18)
                put(0x80 | scalar >> 12 & 0x3F)
                put(0x80 | scalar >> 6 & 0x3F)
                put(0x80 | scalar & 0x3F)
            }
            position += length
        }
    }
}
