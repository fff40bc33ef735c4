/// An open-addressing hash set of byte strings stored elsewhere (in a `PlistTree`'s text
/// buffer), mapping each distinct string to one value. It exists so that interning the
/// millions of repeated keys of a large archive allocates nothing per lookup.
struct ByteStringTable {
    private var slots: [UInt32] = []  // value + 1; 0 = empty
    private var hashes: [UInt64] = []
    private(set) var count = 0

    /// Chosen per process, so that no input can be crafted to make its strings collide
    /// (which would make interning quadratic).
    private static let seed = UInt64.random(in: .min ... .max)

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = (0x9E37_79B9_7F4A_7C15 ^ seed) &+ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return hash }
        let raw = UnsafeRawPointer(base)
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            hash = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            index += 8
        }
        // The last 0–7 bytes: as the text's last eight (overlapping words already mixed in; the
        // length is in the seed) or, in a shorter text, as one word of them (`word`).
        var tail: UInt64 = 0
        let rest = count - index
        if rest > 0 && count >= 8 {
            tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        } else if rest > 0 {
            tail = UInt64(littleEndian: word(raw + index, count: rest))
        }
        hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 29
        return hash
    }

    /// The `count` (at most 8) bytes at `bytes` as one word, zero-padded, laid out as a copy
    /// into the word's memory lays them out; loaded in at most three pieces (4, 2 and 1 bytes:
    /// a copy of a few bytes called `memcpy`), nothing past them read. The word of a short
    /// text for a hash or a cache key.
    @inline(__always)
    static func word(_ bytes: UnsafeRawPointer, count: Int) -> UInt64 {
        if count == 8 { return bytes.loadUnaligned(as: UInt64.self) }
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { room in
            var offset = 0
            if count & 4 != 0 {
                room.storeBytes(of: bytes.loadUnaligned(as: UInt32.self), as: UInt32.self)
                offset = 4
            }
            if count & 2 != 0 {
                room.storeBytes(of: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self), toByteOffset: offset, as: UInt16.self)
                offset += 2
            }
            if count & 1 != 0 { room[offset] = bytes.load(fromByteOffset: offset, as: UInt8.self) }
        }
        return word
    }

    /// Whether `count` bytes at `first` and `second` are equal, a word at a time; the bytes
    /// past the last whole word are compared as one more word (or two halves, or two
    /// quarters) that overlaps what was compared already, never read beyond `count`: keys
    /// and names are mostly shorter than a word, and a loop over their bytes cost more than
    /// the rest of a comparison.
    @inline(__always)
    static func bytesEqual(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        func equal<Word: FixedWidthInteger>(at offset: Int, as _: Word.Type) -> Bool {
            first.loadUnaligned(fromByteOffset: offset, as: Word.self) == second.loadUnaligned(fromByteOffset: offset, as: Word.self)
        }
        if count >= 8 {
            var index = 0
            while index + 8 <= count {
                guard equal(at: index, as: UInt64.self) else { return false }
                index += 8
            }
            return index == count || equal(at: count - 8, as: UInt64.self)
        }
        if count >= 4 { return equal(at: 0, as: UInt32.self) && equal(at: count - 4, as: UInt32.self) }
        if count >= 2 { return equal(at: 0, as: UInt16.self) && equal(at: count - 2, as: UInt16.self) }
        return count == 0 || equal(at: 0, as: UInt8.self)
    }

    /// Whether two byte strings are equal: their lengths, then their bytes (`bytesEqual`).
    @inline(__always)
    static func equal(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        first.count == second.count && (first.isEmpty || bytesEqual(first.baseAddress!, second.baseAddress!, count: first.count))
    }

    /// The value stored for a string equal to `key`, nil when none is. `equals(value)`
    /// compares `key` with the string a stored value stands for.
    func find(hash: UInt64, equals: (UInt32) -> Bool) -> UInt32? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 {
            if hashes[index] == hash && equals(slots[index] - 1) { return slots[index] - 1 }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Returns the value stored for a string equal to `key`, or stores `newValue()` for it.
    /// `equals(value)` compares `key` with the string a stored value stands for.
    mutating func findOrInsert(
        hash: UInt64, equals: (UInt32) -> Bool, newValue: () -> UInt32
    ) -> UInt32 {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 {
            if hashes[index] == hash && equals(slots[index] - 1) { return slots[index] - 1 }
            index = (index + 1) & mask
        }
        let value = newValue()
        slots[index] = value + 1
        hashes[index] = hash
        count += 1
        return value
    }

    private mutating func grow() {
        let oldSlots = slots
        let oldHashes = hashes
        let capacity = max(64, oldSlots.count * 2)
        slots = Array(filledWith: 0, count: capacity)
        hashes = Array(filledWith: 0, count: capacity)
        let mask = slots.count - 1
        for (position, slot) in oldSlots.enumerated() where slot != 0 {
            var index = Int(truncatingIfNeeded: oldHashes[position]) & mask
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = slot
            hashes[index] = oldHashes[position]
        }
    }
}
