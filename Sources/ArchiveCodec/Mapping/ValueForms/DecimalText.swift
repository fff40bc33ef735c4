/// An `NSDecimal` as NSDecimalNumber archives it (`NS.mantissa`, `NS.exponent`,
/// `NS.negative`, `NS.length`), and its exact value as decimal text: the `$decimal` form
/// (docs/mapping.md, "Decimal numbers, calendar dates, time zones").
///
/// Contract: `text` and `init(text:)` are inverse on every value `text` writes: the text
/// read back gives the same mantissa, exponent and sign, and `length` is then the number of
/// mantissa words up to the last non-zero one (what Foundation stores). Text is
/// `-`? digits (`.` digits)? (`E` `-`? digits)?; the digits' value is the mantissa and the
/// exponent is the `E` part less the fraction digits, so `"1.50"` is 150 × 10^−2, `"12E5"`
/// is 12 × 10^5 and `"0.00"` is 0 × 10^−2. `"NaN"` is Foundation's NaN (length 0, negative).
///
/// Limits: the mantissa holds 128 bits (8 words of 16), the exponent −128 … 127 (one signed
/// byte, as NSDecimal keeps it); text is read only up to `maximumTextLength` bytes, so a
/// reader spends at most a fixed amount on any value. A negative zero has no NSDecimal
/// (negative with length 0 is NaN): `"-0"` is refused.
struct DecimalText: Equatable {
    /// The mantissa's eight 16-bit words, least significant first.
    var words: [UInt16]
    var exponent: Int8
    var negative: Bool

    /// The longest text read: 39 digits, a sign, a point, 128 zeros after it and an exponent.
    static let maximumTextLength = 200

    /// Foundation's NaN: no mantissa, negative.
    static let notANumber = DecimalText(words: [UInt16](filledWith: 0, count: 8), exponent: 0, negative: true)

    var isNaN: Bool { negative && words.allSatisfy { $0 == 0 } }

    /// The number of words up to the last non-zero one (0 for zero and NaN): `NS.length`.
    var length: Int {
        var length = words.count
        while length > 0, words[length - 1] == 0 { length -= 1 }
        return length
    }

    /// The value as text (see the type's contract).
    var text: String {
        if isNaN { return "NaN" }
        let digits = Self.digits(of: words)
        var text = negative ? "-" : ""
        if exponent >= 0 {
            text += digits
            if exponent > 0 { text += "E\(exponent)" }
            return text
        }
        let fraction = -Int(exponent)
        if digits.count > fraction {
            text += digits.dropLast(fraction) + "." + digits.suffix(fraction)
        } else {
            text += "0." + String(repeating: "0", count: fraction - digits.count) + digits
        }
        return text
    }

    /// The mantissa `words` in decimal, without leading zeros (`"0"` for zero): long division
    /// by 10 of eight words, at most 39 digits.
    static func digits(of words: [UInt16]) -> String {
        var rest = words
        var digits: [UInt8] = []
        while rest.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for index in stride(from: rest.count - 1, through: 0, by: -1) {
                let value = remainder << 16 | UInt32(rest[index])
                rest[index] = UInt16(value / 10)
                remainder = value % 10
            }
            digits.append(UInt8(ascii: "0") + UInt8(remainder))
        }
        if digits.isEmpty { return "0" }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    init(words: [UInt16], exponent: Int8, negative: Bool) {
        self.words = words
        self.exponent = exponent
        self.negative = negative
    }

    /// Reads decimal text (see the type's contract); nil for anything else, a mantissa past
    /// 128 bits, an exponent outside −128 … 127, `"-0"`, or text longer than
    /// `maximumTextLength`.
    init?(text: some Collection<UInt8>) {
        guard text.count <= Self.maximumTextLength else { return nil }
        let bytes = Array(text)
        if bytes == Array("NaN".utf8) {
            self = Self.notANumber
            return
        }
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var words = [UInt16](filledWith: 0, count: 8)
        var digitCount = 0
        var fractionDigits = 0
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        /// Multiplies the mantissa by ten and adds `digit`; false past 128 bits.
        func append(_ digit: UInt8) -> Bool {
            var carry = UInt32(digit - 0x30)
            for word in 0..<words.count {
                let value = UInt32(words[word]) * 10 + carry
                words[word] = UInt16(truncatingIfNeeded: value)
                carry = value >> 16
            }
            return carry == 0
        }
        while index < bytes.count, isDigit(bytes[index]) {
            guard append(bytes[index]) else { return nil }
            digitCount += 1
            index += 1
        }
        guard digitCount > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, isDigit(bytes[index]) {
                guard append(bytes[index]) else { return nil }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "E") || bytes[index] == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponentDigits = 0
            while index < bytes.count, isDigit(bytes[index]) {
                // Bounded by the text's length: at most 200 digits, each step checked.
                exponent = exponent * 10 + Int(bytes[index] - 0x30)
                guard exponent <= 1_000 else { return nil }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            if exponentNegative { exponent = -exponent }
        }
        guard index == bytes.count else { return nil }
        exponent -= fractionDigits
        guard let small = Int8(exactly: exponent) else { return nil }
        let value = DecimalText(words: words, exponent: small, negative: negative)
        // A negative zero would be NaN's layout.
        guard !(negative && value.length == 0) else { return nil }
        self = value
    }

    /// The 16 bytes of `NS.mantissa`: the words little-endian, as `NS.mantissa.bo` 1 says.
    var mantissaBytes: [UInt8] {
        words.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    /// The words of `NS.mantissa`'s 16 bytes (little-endian); nil for another length.
    static func words(ofMantissa bytes: UnsafeBufferPointer<UInt8>) -> [UInt16]? {
        guard bytes.count == 16 else { return nil }
        return (0..<8).map { UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8 }
    }
}
