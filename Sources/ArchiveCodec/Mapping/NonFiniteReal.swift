/// The text of the reals JSON numbers cannot hold, in `{"$real": …}`: `"Infinity"`,
/// `"-Infinity"`, `"NaN"` for the usual quiet NaN (bit pattern 0x7FF8000000000000, what
/// Foundation archives), and `"NaN:"` plus the 16 hex digits of the bit pattern for any other
/// NaN, so that distinct NaN payloads survive a round trip and stay distinct objects.
enum NonFiniteReal {
    static let canonicalNaN: UInt64 = 0x7FF8_0000_0000_0000

    static func text(_ value: Double) -> String {
        if value.isNaN {
            guard value.bitPattern != canonicalNaN else { return "NaN" }
            let hex = String(value.bitPattern, radix: 16, uppercase: false)
            return "NaN:" + String(repeating: "0", count: 16 - hex.count) + hex
        }
        return value < 0 ? "-Infinity" : "Infinity"
    }

    /// The real for `text`, or nil if it is none of the forms above.
    static func value(_ text: String) -> Double? {
        switch text {
        case "NaN": return Double(bitPattern: canonicalNaN)
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard text.hasPrefix("NaN:"), text.utf8.count == 20,
                let bits = UInt64(text.dropFirst(4), radix: 16), Double(bitPattern: bits).isNaN
            else { return nil }
            return Double(bitPattern: bits)
        }
    }
}
