/// The plist objects that hold the text `$class`, found once so that the passes that skip
/// an object's `$class` key (analysis, depth probe, writer) compare references instead of
/// decoding and comparing a string for every key of every object.
///
/// Apple's archiver writes `$class` once and shares it, so this is usually one reference;
/// other writers may repeat it, hence the set for many.
struct ClassKeyRefs: Sendable {
    private var refs: [Int] = []
    private var set: Set<Int> = []

    init(view: BinaryPlistView) {
        for ref in 0..<view.objectCount {
            // "$class" is six characters: ASCII marker 0x56 or UTF-16 marker 0x66, or 0x5F /
            // 0x6F with the length spelled out (valid, though Apple's writer never does it).
            let marker = view.bytes[view.offset(of: ref)]
            if (marker == 0x56 || marker == 0x66 || marker == 0x5F || marker == 0x6F) && view.isString(ref, equalTo: "$class") {
                refs.append(ref)
            }
        }
        if refs.count > 4 { set = Set(refs) }
    }

    @inline(__always)
    func contains(_ ref: Int) -> Bool {
        if refs.count == 1 { return refs[0] == ref }
        return refs.count > 4 ? set.contains(ref) : refs.contains(ref)
    }
}
