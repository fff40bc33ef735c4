extension NestedPayload {
    /// Whether two data values are the same for equivalence: equal bytes, or documents of the
    /// same kind and format whose graphs are equivalent (`Archive.difference`; `difference(_:_:nesting:)` says where they are not), which is what
    /// a payload decoded and encoded again keeps. `nesting`: how many payloads the values are
    /// in; past `maximumNesting` bytes must be equal.
    static func equivalent(_ left: some Collection<UInt8>, _ right: some Collection<UInt8>, nesting: Int) -> Bool {
        if left.elementsEqual(right) { return true }
        guard nesting < maximumNesting, let (a, kind) = document(Array(left)), let (b, other) = document(Array(right)), kind == other else {
            return false
        }
        return a.documentDifference(from: b, payloadNesting: nesting + 1) == nil
    }
}
