/// The JSON text of object keys (quoted, escaped, a leading `$` doubled, then the colon)
/// by plist reference, for `ReadableWriter`. The instances of a keyed archive share a few
/// key objects (every player's `name` key is one string object), so most keys are copied
/// from here, a fixed-size copy, instead of being decoded and escaped again.
///
/// Direct-mapped: a reference has one slot, and a key whose slot another took is written
/// afresh and takes it back, so memory stays fixed whatever the archive. Texts longer than
/// `longest` bytes are not kept.
struct KeyTextCache {
    private static let slotCount = 256
    private static let longest = 63
    /// Bytes per slot: a whole slot may be read (see `JSONOutput.key(prepared:)`).
    private static let stride = 64
    /// The reference whose text each slot holds (−1: none).
    private var refs = [Int](repeating: -1, count: slotCount)
    private var lengths = [UInt8](repeating: 0, count: slotCount)
    private var texts = [UInt8](repeating: 0, count: slotCount * stride)

    @inline(__always)
    func slot(of ref: Int) -> Int? {
        let slot = ref & (Self.slotCount - 1)
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
        let slot = ref & (Self.slotCount - 1)
        refs[slot] = ref
        lengths[slot] = UInt8(text.count)
        texts.withUnsafeMutableBufferPointer { all in
            (all.baseAddress! + slot * Self.stride).update(from: source, count: text.count)
        }
    }
}
