/// The text NSColor's keyed archive holds its components in (`NSRGB`, `NSWhite`, `NSCMYK`,
/// `NSComponents`, stored as bytes): decimal numbers separated by one space, then one NUL
/// byte (`NSRGB`, `NSWhite`, `NSCMYK`, written as C strings) or none (`NSComponents`).
///
/// Only text in the *canonical* spelling is read: at least one number, each spelled as
/// `spelling(of:)` spells its value (the shortest decimal that reads back as the same
/// double, without a `.0` for whole numbers: `0.7411764706`, `0`, `1`, `1e-05`, as Apple's
/// `%.10g` spells these values), single spaces, no NUL or other byte inside. For text read
/// that way, `bytes` gives back exactly the text's bytes; any other text is left to the caller
/// as bytes, so no byte is lost to a readable form.
struct ComponentText: Equatable {
    var components: [Double]
    /// Whether the text ends with a NUL byte.
    var terminated: Bool

    init(components: [Double], terminated: Bool) {
        self.components = components
        self.terminated = terminated
    }

    /// The components of `bytes`, or nil when the bytes are not canonical component text.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        var end = bytes.count
        terminated = end > 0 && bytes[end - 1] == 0
        if terminated { end -= 1 }
        guard end > 0 else { return nil }
        components = []
        var start = 0
        while start <= end {
            var stop = start
            while stop < end, bytes[stop] != UInt8(ascii: " ") { stop += 1 }
            guard let value = Self.value(of: UnsafeBufferPointer(rebasing: bytes[start..<stop])) else { return nil }
            components.append(value)
            start = stop + 1
        }
    }

    /// The text's bytes: the components' spellings, a space between two, and the NUL when
    /// `terminated`.
    var bytes: [UInt8] {
        var text: [UInt8] = []
        for (index, component) in components.enumerated() {
            if index > 0 { text.append(UInt8(ascii: " ")) }
            text.append(contentsOf: Self.spelling(of: component).utf8)
        }
        if terminated { text.append(0) }
        return text
    }

    /// How a component is spelled: the shortest decimal that reads back as `value`, with no
    /// `.0` after a whole number. (Swift's own shortest spelling, so the same on every
    /// platform; the JSON writer reads and writes the same doubles exactly.)
    static func spelling(of value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// The value of one token when it is a finite number spelled canonically. Negative zero
    /// is refused: the JSON mapping writes reals through a writer that does not keep its sign.
    private static func value(of token: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !token.isEmpty, token.count <= 32 else { return nil }
        for byte in token {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "e"): continue
            default: return nil
            }
        }
        let text = String(decoding: token, as: UTF8.self)
        guard let value = Double(text), value.isFinite, !(value == 0 && value.sign == .minus) else { return nil }
        return spelling(of: value) == text ? value : nil
    }
}
