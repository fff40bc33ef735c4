/// The JSON text of object keys (quoted, escaped, a leading `$` doubled, then the colon) by
/// a number the writer gives each key's source: a plist reference for `ReadableWriter`, a
/// type string's shared-string index for the typedstream writer. A document repeats a few
/// keys many times (every player's `name` key is one string object; every note's group of
/// an integer and a long is one type string), so most keys are copied from here, a
/// fixed-size copy, instead of being decoded and escaped again.
///
/// Direct-mapped: a number has one slot, and a key whose slot another took is written
/// afresh and takes it back, so memory stays fixed whatever the document. Texts longer than
/// `longest` bytes are not kept.
///
/// At most `maximumSlots` slots, fewer for a document of fewer key sources (a slot per
/// source then, rounded up to a power of two): the tables are made and cleared for every
/// document written, and a small one (a nested payload's NSColor, a few objects) would
/// otherwise pay for 16 KB of them.
struct KeyTextCache {
    private static let maximumSlots = 256
    private static let longest = 63
    /// Bytes per slot: a whole slot may be read (see `JSONOutput.key(prepared:)`).
    private static let stride = 64
    /// Slots minus one: a reference's slot is its low bits.
    private let mask: Int
    /// The reference whose text each slot holds (−1: none).
    private var refs: [Int]
    private var lengths: [UInt8]
    private var texts: [UInt8]

    /// A cache for the numbers below `references` (a plist's object count, a stream's shared
    /// strings).
    init(references: Int) {
        var slots = 1
        while slots < Self.maximumSlots, slots < references { slots <<= 1 }
        mask = slots - 1
        refs = [Int](filledWith: -1, count: slots)
        lengths = [UInt8](filledWith: 0, count: slots)
        texts = [UInt8](filledWith: 0, count: slots * Self.stride)
    }

    @inline(__always)
    func slot(of ref: Int) -> Int? {
        let slot = ref & mask
        return refs[slot] == ref ? slot : nil
    }

    /// Writes the text kept in `slot` as a key of `out`.
    @inline(__always)
    func write(_ slot: Int, to out: inout JSONOutput) {
        texts.withUnsafeBufferPointer { all in
            out.key(prepared: all.baseAddress! + slot * Self.stride, count: Int(lengths[slot]), readable: Self.stride)
        }
    }

    mutating func keep(_ text: UnsafeBufferPointer<UInt8>, for ref: Int) {
        guard text.count <= Self.longest, let source = text.baseAddress else { return }
        let slot = ref & mask
        refs[slot] = ref
        lengths[slot] = UInt8(text.count)
        texts.withUnsafeMutableBufferPointer { all in
            (all.baseAddress! + slot * Self.stride).update(from: source, count: text.count)
        }
    }
}
