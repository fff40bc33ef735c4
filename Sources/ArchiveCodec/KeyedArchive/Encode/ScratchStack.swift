/// The encoder's reference lists under construction (`ArchiveEncoder.scratch`): the elements
/// of a plist array, the (key, value) pairs of a dictionary or of an instance. Building one
/// list builds others (an element is an instance, a key holds an array, …), so the lists
/// stand one above the other on one buffer that is kept and reused: a list costs no
/// allocation of its own.
///
/// The contract, for each list: open a frame at the top (`frame()`); append the list's items
/// (`append`), letting what is called in between open frames of its own above them and pop
/// them again; read the items (`count(of:)`, `item(_:of:)`, `withItems(of:_:)`, in place,
/// without a copy) while the frame is the top-most open one; then pop it (`pop`), which
/// removes its items. A frame cannot be copied and popping consumes it: once popped it can
/// be neither read nor popped again.
///
/// The invariant: frames are popped in the reverse order of their opening. So while a frame is
/// the top-most open one, everything from its start to the top is its own items, in the order
/// they were appended. Debug builds check it (`isTop`) at every read and every pop. (An error
/// thrown while frames are open leaves them open: the encoder is given up then, stack and all.)
struct ScratchStack {
    private var items: [UInt32] = []
    /// How many frames are open.
    private var openFrames = 0

    /// Opens a frame at the top: what is appended while it is the top-most open frame is its
    /// own.
    @inline(__always)
    mutating func frame() -> ScratchFrame {
        openFrames += 1
        return ScratchFrame(start: items.count, depth: openFrames - 1)
    }

    /// Appends `item` to the top-most open frame.
    @inline(__always)
    mutating func append(_ item: UInt32) { items.append(item) }

    /// Whether `frame` is the top-most open frame: the only one that may be read or popped.
    func isTop(_ frame: borrowing ScratchFrame) -> Bool {
        frame.depth == openFrames - 1 && frame.start <= items.count
    }

    /// How many items `frame` holds.
    @inline(__always)
    func count(of frame: borrowing ScratchFrame) -> Int {
        assert(isTop(frame), "a scratch frame is read while a frame opened above it is still open")
        return items.count - frame.start
    }

    /// Item `index` of `frame`, counted from its start.
    @inline(__always)
    func item(_ index: Int, of frame: borrowing ScratchFrame) -> UInt32 {
        assert(isTop(frame), "a scratch frame is read while a frame opened above it is still open")
        return items[frame.start + index]
    }

    /// Calls `body` with the items of `frame`, in place: a slice of the buffer would retain it,
    /// and growing the stack while the slice lived would copy it.
    @inline(__always)
    func withItems<Result, Failure: Error>(
        of frame: borrowing ScratchFrame, _ body: (UnsafeBufferPointer<UInt32>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        assert(isTop(frame), "a scratch frame is read while a frame opened above it is still open")
        let start = frame.start
        return try items.withUnsafeBufferPointer { (all) throws(Failure) -> Result in try body(UnsafeBufferPointer(rebasing: all[start...])) }
    }

    /// Opens a frame above `pairs` (the top-most one, holding (key, value) pairs) with all
    /// their keys, then all their values: the two lists of a dictionary's archived form.
    mutating func splitPairs(of pairs: borrowing ScratchFrame) -> ScratchFrame {
        let count = self.count(of: pairs) / 2
        let start = pairs.start
        let lists = frame()
        for pair in 0..<count { items.append(items[start + 2 * pair]) }
        for pair in 0..<count { items.append(items[start + 2 * pair + 1]) }
        return lists
    }

    /// Closes `frame`, the top-most open one, and removes its items: the stack is as it was
    /// when the frame was opened.
    @inline(__always)
    mutating func pop(_ frame: consuming ScratchFrame) {
        assert(isTop(frame), "scratch frames are popped in the reverse order of their opening")
        items.removeSubrange(frame.start...)
        openFrames -= 1
    }
}

/// A list's place on a `ScratchStack`, from `ScratchStack.frame()` to `ScratchStack.pop(_:)`.
/// Not copyable, so that a list has one owner, and popping it is its end.
struct ScratchFrame: ~Copyable {
    /// Where the frame's items begin.
    fileprivate let start: Int
    /// How many frames were open below it.
    fileprivate let depth: Int
}
