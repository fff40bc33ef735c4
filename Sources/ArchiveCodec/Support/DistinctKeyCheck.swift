/// Proves cheaply that a dictionary's keys are distinct. A key is noted as an `Int` that equal
/// keys share (a keyed archive's key reference, or a hash of a typedstream key's text); each
/// sets one bit of two 64-bit masks, chosen by two different hashes of it; if either mask never
/// saw a bit set twice, no two keys are equal. Only dictionaries failing both (few, at 6 keys
/// ~5 %) are looked at again, the caller putting their keys in a set.
struct DistinctKeyCheck {
    private var first: UInt64 = 0
    private var second: UInt64 = 0
    private var firstClash = false
    private var secondClash = false

    @inline(__always)
    mutating func note(_ key: Int) {
        let hash = UInt64(truncatingIfNeeded: key) &* 0x9E37_79B9_7F4A_7C15
        let a: UInt64 = 1 &<< (hash >> 58)
        let b: UInt64 = 1 &<< (hash >> 52)
        if first & a != 0 { firstClash = true }
        if second & b != 0 { secondClash = true }
        first |= a
        second |= b
    }

    var mayRepeat: Bool { firstClash && secondClash }
}
