/// One bit per plist object.
struct Bitmap {
    private var words: [UInt64]

    init(count: Int) {
        words = [UInt64](filledWith: 0, count: (count + 63) / 64)
    }

    @inline(__always)
    func contains(_ index: Int) -> Bool {
        words[index >> 6] & (1 &<< UInt64(truncatingIfNeeded: index)) != 0
    }

    @inline(__always)
    mutating func insert(_ index: Int) {
        words[index >> 6] |= 1 &<< UInt64(truncatingIfNeeded: index)
    }

    /// Sets the bit; if it was already set, sets it in `repeats` too.
    @inline(__always)
    mutating func insert(_ index: Int, notingRepeatsIn repeats: inout Bitmap) {
        let bit: UInt64 = 1 &<< UInt64(truncatingIfNeeded: index)
        let word = words[index >> 6]
        if word & bit != 0 { repeats.words[index >> 6] |= bit } else { words[index >> 6] = word | bit }
    }

    mutating func formUnion(_ other: Bitmap) {
        for index in words.indices { words[index] |= other.words[index] }
    }

    mutating func formUnion(intersectionOf a: Bitmap, _ b: Bitmap) {
        for index in words.indices { words[index] |= a.words[index] & b.words[index] }
    }

    func forEach(_ body: (Int) -> Void) {
        for (wordIndex, word) in words.enumerated() where word != 0 {
            var rest = word
            while rest != 0 {
                body(wordIndex << 6 | rest.trailingZeroBitCount)
                rest &= rest - 1
            }
        }
    }

    func contains(where predicate: (Int) -> Bool) -> Bool {
        for (wordIndex, word) in words.enumerated() where word != 0 {
            var rest = word
            while rest != 0 {
                if predicate(wordIndex << 6 | rest.trailingZeroBitCount) { return true }
                rest &= rest - 1
            }
        }
        return false
    }
}
