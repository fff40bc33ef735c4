/// An open-addressing map from a byte offset (1 … 2^40 − 1) to a small value (24 bits), each
/// entry one word (`offset << 24 | value`, 0 for an empty slot), so that a lookup costs one
/// memory read where a table of parallel arrays costs one per array. Seeded per process, like
/// `ScalarTable`, so no input can be crafted to make its offsets collide.
struct OffsetTable: Sendable {
    private var slots: [UInt64] = []
    private(set) var count = 0

    private static let seed = UInt64.random(in: .min ... .max)
    private static let valueBits: UInt64 = 24

    @inline(__always)
    private static func slot(of offset: UInt64, mask: Int) -> Int {
        var value = offset ^ seed
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: value ^ (value >> 31)) & mask
    }

    /// The value stored for `offset`, or nil.
    @inline(__always)
    func find(_ offset: Int) -> UInt32? {
        guard count > 0 else { return nil }
        let key = UInt64(truncatingIfNeeded: offset)
        let mask = slots.count - 1
        var slot = Self.slot(of: key, mask: mask)
        while slots[slot] != 0 {
            if slots[slot] >> Self.valueBits == key { return UInt32(truncatingIfNeeded: slots[slot] & ((1 << Self.valueBits) - 1)) }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Stores `value` (below 2^24) for `offset` (1 … 2^40 − 1), which `find` did not know.
    mutating func insert(_ offset: Int, value: UInt32) {
        precondition(offset > 0 && offset < 1 << 40 && value < 1 << 24, "an offset table holds offsets below 2^40 and values below 2^24")
        if (count + 1) * 2 > slots.count { grow() }
        place(UInt64(offset) << Self.valueBits | UInt64(value))
        count += 1
    }

    /// Replaces the value stored for `offset` (below 2^24), which `find` knows.
    mutating func update(_ offset: Int, value: UInt32) {
        precondition(value < 1 << 24, "an offset table holds values below 2^24")
        let key = UInt64(truncatingIfNeeded: offset)
        let mask = slots.count - 1
        var slot = Self.slot(of: key, mask: mask)
        while slots[slot] >> Self.valueBits != key {
            precondition(slots[slot] != 0, "update of an offset the table does not hold")
            slot = (slot + 1) & mask
        }
        slots[slot] = key << Self.valueBits | UInt64(value)
    }

    private mutating func place(_ entry: UInt64) {
        let mask = slots.count - 1
        var slot = Self.slot(of: entry >> Self.valueBits, mask: mask)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    private mutating func grow() {
        let old = slots
        slots = Array(filledWith: 0, count: max(64, 2 * old.count))
        for entry in old where entry != 0 { place(entry) }
    }
}
