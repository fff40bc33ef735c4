/// The hex spelling of RGB colour components (`#BD934C`, `#BD934C80` with an alpha that is not
/// 1): each component in 0 … 1 scaled to 0 … 255 and rounded to the nearest. A convenience for
/// people, read from the components, never instead of them: it is the components' own hex, not
/// a conversion between colour spaces, and several components spell the same hex.
enum ColorHex {
    /// A spelling held in place, `#` and up to four pairs of digits: made per colour a view
    /// writes (a colour list holds hundreds) without allocating.
    struct Spelling {
        private var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        private(set) var count = 0

        /// The spelling's bytes (ASCII), for the body's duration.
        func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
            try withUnsafeBytes(of: bytes) { raw in try body(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self).prefix(count))) }
        }

        fileprivate mutating func append(_ byte: UInt8) {
            withUnsafeMutableBytes(of: &bytes) { $0[count] = byte }
            count += 1
        }
    }

    /// The spelling of three components (red, green, blue) or four (and alpha), or nil for
    /// another count or a component outside 0 … 1.
    static func spelling(_ components: some Collection<Double>) -> Spelling? {
        let count = components.count
        guard count == 3 || count == 4, components.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { return nil }
        var spelling = Spelling()
        spelling.append(UInt8(ascii: "#"))
        for (index, component) in components.enumerated() where index < 3 || component != 1 {
            let byte = Int((component * 255).rounded())
            spelling.append(digits[byte >> 4])
            spelling.append(digits[byte & 0xF])
        }
        return spelling
    }

    /// The hex of `components` as text (`spelling`).
    static func text(_ components: [Double]) -> String? {
        spelling(components)?.withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    private static let digits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether `hex` is the hex of `components`, in either letter case.
    static func matches(_ hex: String, _ components: [Double]) -> Bool {
        guard let expected = spelling(components) else { return false }
        return expected.withUTF8 { expected in
            expected.elementsEqual(hex.utf8.lazy.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") ? $0 - 0x20 : $0 })
        }
    }
}
