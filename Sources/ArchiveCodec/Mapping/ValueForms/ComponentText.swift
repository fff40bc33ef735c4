/// The text NSColor's keyed archive holds its components in (`NSRGB`, `NSWhite`, `NSCMYK`,
/// `NSComponents`, stored as bytes): decimal numbers separated by one space, then one NUL
/// byte (`NSRGB`, `NSWhite`, `NSCMYK`, written as C strings) or none (`NSComponents`).
///
/// Only text in the *canonical* spelling is read: at least one number, each spelled as
/// `spelling(of:)` spells its value (the shortest decimal that reads back as the same
/// double, without a `.0` for whole numbers: `0.25`, `0`, `1`, `1e-05`, as Apple's `%.10g`
/// spells such values), single spaces, no NUL or other byte inside. For text read
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
        components.reserveCapacity(1 + bytes[..<end].reduce(0) { $0 + ($1 == UInt8(ascii: " ") ? 1 : 0) })
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
        if let value = shortDecimal(token) { return value }
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

    /// The fast path of `value(of:)`, for the tokens archives hold (`0`, `1`, `0.7411764706`):
    /// the value of a token that is canonical by its shape alone, else nil (the token is then
    /// read the slow way, which gives the same answer for every token this one reads).
    ///
    /// The shape: digits with an optional fraction, no leading zero before other digits, no
    /// trailing zero in the fraction, at most 15 significant digits, at most 22 fraction
    /// digits, and at least 0.0001 unless 0. Such a value is exact as an integer over a power
    /// of ten that a double holds exactly, so one correctly rounded division gives the double
    /// nearest the token (what `Double(text)` gives). With at most 15 significant digits no
    /// other decimal as short reads back as the same double, so the shortest spelling is the
    /// token's own digits; and Swift spells values from 0.0001 to below 2^53 without an
    /// exponent. So `spelling(of:)` gives the token back.
    static func shortDecimal(_ token: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0
        var significant = 0
        var fractionDigits = 0
        var leadingFractionZeros = 0
        var seenPoint = false
        for (index, byte) in token.enumerated() {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint, index > 0 else { return nil }
                seenPoint = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // A leading zero is only the whole token or the one before the point.
            if index == 1, token[0] == UInt8(ascii: "0"), !seenPoint { return nil }
            let digit = UInt64(byte &- UInt8(ascii: "0"))
            if seenPoint {
                fractionDigits += 1
                if mantissa == 0, digit == 0 { leadingFractionZeros += 1 }
            }
            if mantissa != 0 || digit != 0 { significant += 1 }
            mantissa = mantissa &* 10 &+ digit
            guard significant <= 15, fractionDigits <= 22 else { return nil }
        }
        guard !token.isEmpty, token[token.count - 1] != UInt8(ascii: ".") else { return nil }
        if seenPoint {
            guard token[token.count - 1] != UInt8(ascii: "0"), mantissa != 0 else { return nil }
            if token[0] == UInt8(ascii: "0"), leadingFractionZeros > 3 { return nil }
        }
        return Double(mantissa) / Self.powersOfTen[fractionDigits]
    }

    /// 10^0 … 10^22, each exact as a double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
    ]
}
