/// Short strings already interned by `BinaryPlistBuilder`, with their objects, in front of
/// its string table. An archive repeats a few keys and class names millions of times; a hit
/// here costs a copy of the text into four words and one comparison, where the table hashes
/// the whole text, probes, and compares against the bytes it wrote. Most of an archive's
/// string lookups are such repeats.
///
/// Direct-mapped and fixed in size: a text has one slot, and one that finds its slot taken
/// goes to the table and takes the slot, so memory and the cost of a miss are bounded for
/// any input. The size follows the document (16 slots for the service's small ones, 512 at
/// most): a builder is made per request, and clearing 24 KB each time would cost a small
/// encode more than the cache saves it. Only texts of at most `longest` bytes are kept, zero-padded; with the length
/// compared too, equal words mean equal texts. (The slot comes from the words alone, so
/// texts that differ only in trailing zero bytes share one; they are rare.)
struct ShortStringCache {
    static let longest = 32

    private struct Slot {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        /// `UInt32.max` while empty: no text has that length.
        var count = UInt32.max
        var object: UInt32 = 0
    }

    private var slots: [Slot] = []
    private var slotBits = 0

    /// No slots: nothing is kept.
    init() {}

    /// Room for a document of about `values` plist values.
    init(expectingValues values: Int) {
        slotBits = 4
        while slotBits < 9 && 16 << slotBits < values { slotBits += 1 }
        slots = [Slot](filledWith: Slot(), count: 1 << slotBits)
    }

    /// The text zero-padded to four words, and its slot. `text.count <= longest`, and there
    /// are slots.
    @inline(__always)
    private func key(_ text: UnsafeBufferPointer<UInt8>) -> (words: (UInt64, UInt64, UInt64, UInt64), slot: Int) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        if let source = text.baseAddress {
            if text.count <= 8 {
                // Most texts: one word, loaded in at most three pieces (a copy of a few bytes
                // called `memcpy`, which cost more than the rest of a lookup).
                words.0 = ByteStringTable.word(UnsafeRawPointer(source), count: text.count)
            } else {
                withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: source, byteCount: text.count) }
            }
        }
        var mixed = words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15) ^ words.2 ^ (words.3 &* 0xC2B2_AE3D_27D4_EB4F)
        mixed = mixed &* 0xBF58_476D_1CE4_E5B9
        return (words, Int(truncatingIfNeeded: mixed &>> (64 - slotBits)))
    }

    /// The slot `text` would take (for tests). `text.count <= longest`, and there are slots.
    func slot(of text: UnsafeBufferPointer<UInt8>) -> Int { key(text).slot }

    /// The object kept for `text`, if any. Any text may be asked for.
    @inline(__always)
    func object(for text: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard text.count <= Self.longest, !slots.isEmpty else { return nil }
        let (words, slot) = key(text)
        return slots.withUnsafeBufferPointer { slots in
            let kept = slots[slot]
            guard kept.count == UInt32(truncatingIfNeeded: text.count), kept.words.0 == words.0, kept.words.1 == words.1,
                kept.words.2 == words.2, kept.words.3 == words.3
            else { return nil }
            return kept.object
        }
    }

    /// Keeps `object` as the one for `text` (ignored when the text is too long).
    mutating func keep(_ text: UnsafeBufferPointer<UInt8>, object: UInt32) {
        guard text.count <= Self.longest, !slots.isEmpty else { return }
        let (words, slot) = key(text)
        slots[slot] = Slot(words: words, count: UInt32(text.count), object: object)
    }
}
