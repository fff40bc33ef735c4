/// The plist objects that hold the text `$class`, found once so that the passes that skip
/// an object's `$class` key (analysis, depth probe, writer) compare references instead of
/// decoding and comparing a string for every key of every object.
///
/// Apple's archiver writes `$class` once and shares it, so this is usually one reference;
/// other writers may repeat it, hence the set for many.
struct ClassKeyRefs: Sendable {
    private var refs: [Int] = []
    private var set: Set<Int> = []

    /// `refs`: the objects holding the text `$class`, in any order (`ObjectRangeCheck`).
    init(refs: [Int]) {
        self.refs = refs
        if refs.count > 4 { set = Set(refs) }
    }

    @inline(__always)
    func contains(_ ref: Int) -> Bool {
        if refs.count == 1 { return refs[0] == ref }
        return refs.count > 4 ? set.contains(ref) : refs.contains(ref)
    }
}
