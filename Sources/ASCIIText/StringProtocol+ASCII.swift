/// Text handled as ASCII bytes: protocol tokens (header names and values, codings, media
/// types, query flags), settings read from the environment and the kernel's one-value files.
/// Swift's own case mapping and whitespace test are Unicode's (the Kelvin sign U+212A
/// lowercases to `k`, U+00A0 and U+0085 are whitespace), so a token a peer compares as ASCII
/// bytes — libevent among them — would read differently with them.
extension StringProtocol {
    /// The text with A–Z mapped to a–z and every other byte kept.
    package func asciiLowercased() -> String {
        String(decoding: utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The text without the ASCII whitespace (`UInt8.isASCIIWhitespace`) around it.
    package func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { !$0.isASCIIWhitespace }), let last = bytes.lastIndex(where: { !$0.isASCIIWhitespace }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

extension UInt8 {
    /// Space, tab, line feed, vertical tab, form feed or carriage return: the whitespace of
    /// C's `isspace` in the C locale, which covers HTTP's optional whitespace (space, tab) and
    /// the line ends a kernel file or an environment value may carry.
    package var isASCIIWhitespace: Bool { self == 0x20 || (0x09...0x0D).contains(self) }
}
