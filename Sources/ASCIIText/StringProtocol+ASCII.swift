/// Text handled as ASCII bytes: protocol tokens (header names and values, codings, media
/// types, query flags), settings read from the environment and the kernel's one-value files.
/// Swift's own case mapping and whitespace test are Unicode's (the Kelvin sign U+212A
/// lowercases to `k`, U+00A0 and U+0085 are whitespace), so a token a peer compares as ASCII
/// bytes — libevent among them — would read differently with them.
extension StringProtocol {
    /// The text with A–Z mapped to a–z and every other byte kept.
    package func asciiLowercased() -> String { Self.lowercased(utf8) }

    /// The text without the ASCII whitespace (`UInt8.isASCIIWhitespace`) around it.
    package func trimmingASCIIWhitespace() -> String {
        String(decoding: utf8[trimmedOfASCIIWhitespace], as: UTF8.self)
    }

    /// `trimmingASCIIWhitespace().asciiLowercased()` with one string made: for a protocol token
    /// read from a header on every request.
    package func trimmingASCIIWhitespaceLowercased() -> String { Self.lowercased(utf8[trimmedOfASCIIWhitespace]) }

    /// Where the text stands without the ASCII whitespace around it, found in one pass.
    private var trimmedOfASCIIWhitespace: Range<UTF8View.Index> {
        let bytes = utf8
        var start: UTF8View.Index?
        var end = bytes.startIndex
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let next = bytes.index(after: index)
            if !bytes[index].isASCIIWhitespace {
                if start == nil { start = index }
                end = next
            }
            index = next
        }
        guard let start else { return bytes.startIndex..<bytes.startIndex }
        return start..<end
    }

    /// `bytes` as text with A–Z mapped to a–z: one string, written in place.
    private static func lowercased(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            var written = 0
            for byte in bytes {
                out[written] = byte.asciiLowercased
                written += 1
            }
            return written
        }
    }
}

extension Collection where Element == UInt8 {
    /// Whether the bytes begin with `prefix`'s, an ASCII letter matching either case of itself.
    package func startsWithIgnoringASCIICase(_ prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { expected in
            var index = startIndex
            for wanted in expected {
                guard index != endIndex, self[index].asciiLowercased == wanted.asciiLowercased else { return false }
                index = self.index(after: index)
            }
            return true
        }
    }
}

extension UInt8 {
    /// A–Z as a–z, every other byte as it is.
    package var asciiLowercased: UInt8 { self &- UInt8(ascii: "A") < 26 ? self | 0x20 : self }

    /// Space, tab, line feed, vertical tab, form feed or carriage return: the whitespace of
    /// C's `isspace` in the C locale, which covers HTTP's optional whitespace (space, tab) and
    /// the line ends a kernel file or an environment value may carry.
    package var isASCIIWhitespace: Bool { self == 0x20 || (0x09...0x0D).contains(self) }
}
