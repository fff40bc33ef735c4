/// Growing a table ahead of need, for a builder that then writes in place: the one way the
/// typedstream builder adds value slots and storage bytes.
///
/// A builder that appended an element (or a few bytes) at a time paid an array append each: a
/// uniqueness check, a capacity check and a generic copy. Appending a block of placeholders
/// ahead and then writing into it through a pointer costs an append per block.
extension Array {
    /// Appends `missing` copies of placeholders from `block`, and 16 more and an eighth of the
    /// elements held (at most `block.count`) — within the capacity held when
    /// `missing` fits it, never past it: elements ahead of need are no reason for the array to
    /// grow, so a small table (a nested payload's) fills few. Copied from `block` a block at a
    /// time: a copy per block, where repeating an element is a loop.
    mutating func appendAhead(_ missing: Int, copying block: [Element]) {
        precondition(!block.isEmpty, "a block of placeholders to copy")
        let room = capacity - count
        let ahead = Swift.min(block.count, 16 + count / 8)
        var remaining = missing <= room ? Swift.min(missing + ahead, room) : missing + ahead
        while remaining > 0 {
            let step = Swift.min(remaining, block.count)
            append(contentsOf: block[..<step])
            remaining -= step
        }
    }
}
