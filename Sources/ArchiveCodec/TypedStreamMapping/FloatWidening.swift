/// A typedstream's `f` values through the JSON, which holds reals as doubles: a float widens to
/// the double of the same value and narrows back, and a NaN keeps its sign and payload bit for
/// bit. (The processor's conversions set a signalling NaN's quiet bit, which would change the
/// float the stream holds; found by fuzzing.)
enum FloatWidening {
    /// The double holding float `bits`: its value, or for a NaN the same sign and payload (the
    /// float's 23 payload bits at the top of the double's 52).
    static func double(_ bits: UInt32) -> Double {
        let float = Float(bitPattern: bits)
        guard float.isNaN else { return Double(float) }
        let sign = UInt64(bits >> 31) << 63
        return Double(bitPattern: sign | 0x7FF0_0000_0000_0000 | UInt64(bits & 0x7F_FFFF) << 29)
    }

    /// The float `real` holds, nil when it is no float's value; `double(_:)` undone for a NaN
    /// (one whose payload lies only below a float's bits narrows as the processor narrows it).
    static func float(_ real: Double) -> Float? {
        guard real.isNaN else { return Double(Float(real)) == real ? Float(real) : nil }
        let bits = real.bitPattern
        let payload = UInt32(truncatingIfNeeded: bits >> 29) & 0x7F_FFFF
        guard payload != 0 else { return Float(real) }
        return Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 63) << 31 | 0x7F80_0000 | payload)
    }
}
