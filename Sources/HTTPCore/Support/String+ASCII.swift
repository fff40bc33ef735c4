extension StringProtocol {
    /// The text with A–Z mapped to a–z and every other byte kept: how protocol tokens (header
    /// names, codings, media types, query flags) compare, case-insensitively in ASCII alone.
    /// Swift's `lowercased()` maps Unicode too (the Kelvin sign U+212A becomes `k`), so a token
    /// a peer compares as ASCII bytes — libevent among them — would read differently here.
    package func asciiLowercased() -> String {
        String(decoding: utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
