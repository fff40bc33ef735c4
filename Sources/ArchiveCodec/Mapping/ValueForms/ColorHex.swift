/// The hex spelling of RGB colour components (`#BD934C`, `#BD934C80` with an alpha that is not
/// 1): each component in 0 … 1 scaled to 0 … 255 and rounded to the nearest. A convenience for
/// people, read from the components, never instead of them: it is the components' own hex, not
/// a conversion between colour spaces, and several components spell the same hex.
enum ColorHex {
    /// The hex of three components (red, green, blue) or four (and alpha), or nil for another
    /// count or a component outside 0 … 1.
    static func text(_ components: [Double]) -> String? {
        guard components.count == 3 || components.count == 4, components.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { return nil }
        let shown = components.count == 4 && components[3] == 1 ? 3 : components.count
        // At most 9 bytes: a small string, built in place without a buffer of its own.
        return String(unsafeUninitializedCapacity: 1 + 2 * shown) { text in
            text[0] = UInt8(ascii: "#")
            for index in 0..<shown {
                let byte = Int((components[index] * 255).rounded())
                text[1 + 2 * index] = Self.digits[byte >> 4]
                text[2 + 2 * index] = Self.digits[byte & 0xF]
            }
            return 1 + 2 * shown
        }
    }

    private static let digits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether `hex` is the hex of `components`, in either letter case.
    static func matches(_ hex: String, _ components: [Double]) -> Bool {
        guard let expected = text(components) else { return false }
        return expected.utf8.elementsEqual(hex.utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") ? $0 - 0x20 : $0 })
    }
}
