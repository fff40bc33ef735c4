/// A set reused for one container after another (the keys of each dictionary in turn).
extension Set {
    /// Empties the set for a container of about `count` elements. Keeping the capacity saves
    /// an allocation per container, but clearing costs the capacity, not the count: after one
    /// huge dictionary every small one after it would pay the huge one's buckets again (the
    /// work then grows with the product of the two). So a capacity far above `count` (more
    /// than eight times, and past a few pages) is given back and a set of `count` made anew.
    @inline(__always)
    mutating func reuse(forAbout count: Int) {
        if capacity > 8 * count + 1024 {
            self = Set(minimumCapacity: count)
        } else {
            removeAll(keepingCapacity: true)
        }
    }
}
