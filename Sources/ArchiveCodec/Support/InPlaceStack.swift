/// A stack of plain values in a buffer of its own, for a pass's hot loop: a push writes in
/// place and a pop reads, where an array's append or removal asks the runtime whether the
/// array is shared every time (a call and a branch per change; a JSON parse made several per
/// container). Grown by doubling, as an array's append would, so it holds at most twice the
/// most it held at once.
///
/// Not counted: the owner frees it (`deallocate()`) when its pass ends, or hands its buffer
/// to a `FrozenTable` that keeps what the pass wrote; a copy shares the buffer, so the pass
/// keeps one copy only.
struct InPlaceStack<Element: BitwiseCopyable> {
    /// The elements, bottom first: the first `count` of `capacity`.
    private(set) var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func push(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// The top element, removed; the stack must not be empty (checked, as an array's
    /// `removeLast` checks).
    @inline(__always)
    mutating func pop() -> Element {
        precondition(count > 0, "pop from an empty stack")
        count -= 1
        return base[count]
    }

    /// Drops the elements from `newCount` on; `newCount` must lie in `0...count` (not
    /// checked: the callers pass a count the stack had).
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        count = newCount
    }

    /// Elements `range` of the stack in place, valid until the next push; `range` must lie
    /// in `0..<count` (not checked, as `truncate`).
    @inline(__always)
    func elements(_ range: Range<Int>) -> UnsafeBufferPointer<Element> {
        UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: 2 * capacity)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    func deallocate() { base.deallocate() }
}
