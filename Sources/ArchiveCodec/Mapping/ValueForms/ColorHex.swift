/// The hex spelling of RGB colour components (`#BD934C`, `#BD934C80` with an alpha that is not
/// 1): each component in 0 … 1 scaled to 0 … 255 and rounded to the nearest. A convenience for
/// people, read from the components, never instead of them: it is the components' own hex, not
/// a conversion between colour spaces, and several components spell the same hex.
enum ColorHex {
    /// The hex of three components (red, green, blue) or four (and alpha), or nil for another
    /// count or a component outside 0 … 1.
    static func text(_ components: [Double]) -> String? {
        guard components.count == 3 || components.count == 4, components.allSatisfy({ $0 >= 0 && $0 <= 1 }) else { return nil }
        let shown = components.count == 4 && components[3] == 1 ? components.dropLast() : components[...]
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = [UInt8(ascii: "#")]
        for component in shown {
            let byte = Int((component * 255).rounded())
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0xF])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `hex` is the hex of `components`, in either letter case.
    static func matches(_ hex: String, _ components: [Double]) -> Bool {
        guard let expected = text(components) else { return false }
        return expected.utf8.elementsEqual(hex.utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f") ? $0 - 0x20 : $0 })
    }
}
