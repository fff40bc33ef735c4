/// Text quoted from the input in a message for a person (an error's message, its JSON path, a
/// problem document's detail): long enough to recognise, never as long as the input. A
/// message quotes what it found, and what it found may be a 33 MB element name or key; the
/// reply that explains a refusal must not be as large as what was refused.
///
/// A cut keeps the beginning and the end (where a message's explanation usually stands) and
/// marks the gap with "…"; it falls between Unicode scalars, so the excerpt is valid UTF-8.
package enum TextExcerpt {
    /// The longest message or path kept whole, in UTF-8 bytes.
    package static let maximumBytes = 600
    /// Of a cut text: bytes kept from its start and from its end.
    static let headBytes = 400
    static let tailBytes = 150

    /// `text` itself when it is at most `maximumBytes` long, else its first `headBytes` and
    /// last `tailBytes` bytes (fewer where a scalar would be split) around "…".
    /// Out of line: every error is made through it, and the readers' hot loops throw.
    @inline(never)
    package static func of(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.count > maximumBytes else { return text }
        var headEnd = utf8.index(utf8.startIndex, offsetBy: headBytes)
        while headEnd > utf8.startIndex, !isScalarStart(utf8[headEnd]) { headEnd = utf8.index(before: headEnd) }
        var tailStart = utf8.index(utf8.endIndex, offsetBy: -tailBytes)
        while tailStart < utf8.endIndex, !isScalarStart(utf8[tailStart]) { tailStart = utf8.index(after: tailStart) }
        return String(decoding: utf8[..<headEnd], as: UTF8.self) + "…" + String(decoding: utf8[tailStart...], as: UTF8.self)
    }

    /// A quoted piece of input inside a longer message (a key, an element name): at most
    /// `quoteBytes`, cut at its end with "…".
    @inline(never)
    package static func quote(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.count > quoteBytes else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: quoteBytes)
        while end > utf8.startIndex, !isScalarStart(utf8[end]) { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self) + "…"
    }

    /// The longest piece of input `quote` keeps.
    package static let quoteBytes = 120

    private static func isScalarStart(_ byte: UInt8) -> Bool { byte & 0xC0 != 0x80 }
}
