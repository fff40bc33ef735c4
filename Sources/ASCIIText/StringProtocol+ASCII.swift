/// Text handled as ASCII bytes: protocol tokens (header names and values, codings, media
/// types, query flags), settings read from the environment and the kernel's one-value files.
/// Swift's own case mapping and whitespace test are Unicode's (the Kelvin sign U+212A
/// lowercases to `k`, U+00A0 and U+0085 are whitespace), so a token a peer compares as ASCII
/// bytes — libevent among them — would read differently with them.
extension StringProtocol {
    /// The text with A–Z mapped to a–z and every other byte kept.
    package func asciiLowercased() -> String { withContiguousUTF8 { ASCIIBytes.lowercased($0) } }

    /// The text without the ASCII whitespace (`UInt8.isASCIIWhitespace`) around it.
    package func trimmingASCIIWhitespace() -> String {
        withContiguousUTF8 { String(decoding: ASCIIBytes.trimmed($0), as: UTF8.self) }
    }

    /// `trimmingASCIIWhitespace().asciiLowercased()` with one string made: for a protocol token
    /// read from a header on every request.
    package func trimmingASCIIWhitespaceLowercased() -> String { withContiguousUTF8 { ASCIIBytes.lowercased(ASCIIBytes.trimmed($0)) } }

    /// Calls `body` with the text's UTF-8 in one buffer. A native string or substring has it so
    /// (no copy); a bridged one is copied first. The work is done on the buffer, not through
    /// `StringProtocol`'s generic views: across this module's boundary those are unspecialised,
    /// hundreds of instructions a byte.
    private func withContiguousUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = String(self)
        return copy.withUTF8(body)
    }
}

/// The byte work behind the text functions, on a buffer.
private enum ASCIIBytes {
    /// `bytes` as text with A–Z mapped to a–z: one string, written in place.
    static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            for (index, byte) in bytes.enumerated() { out[index] = byte.asciiLowercased }
            return bytes.count
        }
    }

    /// `bytes` without the ASCII whitespace around them.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard let first = bytes.firstIndex(where: { !$0.isASCIIWhitespace }) else { return UnsafeBufferPointer(rebasing: bytes[0..<0]) }
        let last = bytes.lastIndex { !$0.isASCIIWhitespace } ?? first
        return UnsafeBufferPointer(rebasing: bytes[first...last])
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
