/// The hex spelling of RGB colour components (`#BD934C`, `#BD934C80` with an alpha that is not
/// 1): each component in 0 … 1 scaled to 0 … 255 and rounded to the nearest. A convenience for
/// people, read from the components, never instead of them: it is the components' own hex, not
/// a conversion between colour spaces, and several components spell the same hex.
enum ColorHex {
    /// A spelling held in place, `#` and up to four pairs of digits (packed in a word, first
    /// digit highest): made per colour a view writes (a colour list holds hundreds) without
    /// allocating, and without a tuple, whose type the runtime would make on first use.
    struct Spelling {
        private(set) var digits: UInt64 = 0
        /// How many digits: 6 or 8.
        private(set) var digitCount = 0

        /// The spelling's bytes (ASCII, `#` first), for the body's duration.
        func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
            try withUnsafeTemporaryAllocation(byteCount: 9, alignment: 1) { raw in
                let text = raw.bindMemory(to: UInt8.self)
                text[0] = UInt8(ascii: "#")
                for index in 0..<digitCount {
                    text[1 + index] = UInt8(truncatingIfNeeded: digits >> (8 * (digitCount - 1 - index)))
                }
                return try body(UnsafeBufferPointer(rebasing: text[0..<(1 + digitCount)]))
            }
        }

        fileprivate mutating func append(_ digit: UInt8) {
            digits = digits << 8 | UInt64(digit)
            digitCount += 1
        }
    }

    /// The spelling of three components (red, green, blue) or four (and alpha), or nil for
    /// another count or a component outside 0 … 1.
    static func spelling(_ components: [Double]) -> Spelling? {
        switch components.count {
        case 3: spelling(components[0], components[1], components[2], alpha: nil)
        case 4: spelling(components[0], components[1], components[2], alpha: components[3])
        default: nil
        }
    }

    /// The spelling of red, green and blue, and of `alpha` when it is given and not 1; nil for
    /// a component outside 0 … 1 (NaN included). Arithmetic only: no table, no collection.
    static func spelling(_ red: Double, _ green: Double, _ blue: Double, alpha: Double?) -> Spelling? {
        func inRange(_ component: Double) -> Bool { component >= 0 && component <= 1 }
        guard inRange(red), inRange(green), inRange(blue), alpha.map(inRange) ?? true else { return nil }
        var spelling = Spelling()
        func append(_ component: Double) {
            let byte = UInt8((component * 255).rounded())
            spelling.append(digit(byte >> 4))
            spelling.append(digit(byte & 0xF))
        }
        append(red)
        append(green)
        append(blue)
        if let alpha, alpha != 1 { append(alpha) }
        return spelling
    }

    /// The hex of `components` as text (`spelling`).
    static func text(_ components: [Double]) -> String? {
        spelling(components)?.withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// An upper-case hex digit.
    private static func digit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10 }

    /// Whether `hex` is the hex of `components`, in either letter case.
    static func matches(_ hex: String, _ components: [Double]) -> Bool {
        guard let expected = spelling(components) else { return false }
        return expected.withUTF8 { expected in
            expected.elementsEqual(hex.utf8.lazy.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") ? $0 - 0x20 : $0 })
        }
    }
}
