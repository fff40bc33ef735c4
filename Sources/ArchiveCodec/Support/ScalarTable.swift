/// An open-addressing map from a scalar plist value (a tag for its kind, and its 64 bits) to
/// its object index. Every number of a document is interned through it, which made a
/// `Dictionary` with `Hasher` the encoder's costliest lookup. Seeded per process, like
/// `ByteStringTable`, so no input can be crafted to make its values collide.
struct ScalarTable {
    private var bits: [UInt64] = []
    /// 0 = empty slot, else the value's tag.
    private var tags: [UInt8] = []
    private var values: [UInt32] = []
    private var count = 0

    private static let seed = UInt64.random(in: .min ... .max)

    @inline(__always)
    private static func hash(tag: UInt8, bits: UInt64) -> UInt64 {
        var value = bits ^ seed ^ (UInt64(tag) &* 0x9E37_79B9_7F4A_7C15)
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// The index stored for (`tag`, `bits`), or nil. `tag` is never 0.
    func find(tag: UInt8, bits: UInt64) -> UInt32? {
        guard !tags.isEmpty else { return nil }
        let mask = tags.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(tag: tag, bits: bits)) & mask
        while tags[slot] != 0 {
            if tags[slot] == tag && self.bits[slot] == bits { return values[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Stores `value` for (`tag`, `bits`), which `find` did not know.
    mutating func insert(tag: UInt8, bits: UInt64, value: UInt32) {
        if (count + 1) * 2 > tags.count { grow() }
        place(tag: tag, bits: bits, value: value)
        count += 1
    }

    private mutating func place(tag: UInt8, bits: UInt64, value: UInt32) {
        let mask = tags.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(tag: tag, bits: bits)) & mask
        while tags[slot] != 0 { slot = (slot + 1) & mask }
        tags[slot] = tag
        self.bits[slot] = bits
        values[slot] = value
    }

    private mutating func grow() {
        let (oldTags, oldBits, oldValues) = (tags, bits, values)
        let capacity = max(64, 2 * oldTags.count)
        tags = Array(filledWith: 0, count: capacity)
        bits = Array(filledWith: 0, count: capacity)
        values = Array(filledWith: 0, count: capacity)
        for slot in oldTags.indices where oldTags[slot] != 0 {
            place(tag: oldTags[slot], bits: oldBits[slot], value: oldValues[slot])
        }
    }
}
