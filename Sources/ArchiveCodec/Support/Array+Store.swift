/// Tables indexed by a number the input chooses (a plist value index, a UID), as the
/// encoder and the builder keep them: an array, where a dictionary would hash per lookup.
extension Array where Element == UInt32 {
    /// Sets element `slot`, growing the array to it first with `fill` (the "none yet" value).
    /// Grown to the slot only: the capacity still doubles, but the pages past the count are
    /// not touched.
    @inline(__always)
    mutating func store(_ value: UInt32, at slot: Int, filling fill: UInt32) {
        if slot >= count { self += repeatElement(fill, count: slot + 1 - count) }
        self[slot] = value
    }
}
