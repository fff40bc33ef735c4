/// A table of plain values that one pass fills and later passes only read: the JSON parser's
/// index of a document's containers and of their key spans (`JSONDocument`). It keeps the
/// buffer the pass wrote, handed over from the pass's `InPlaceStack`: copied into an array,
/// a document dense in containers (`[[],[],…]`, twelve bytes of index per three of text) held
/// its index twice at the end of its parse.
///
/// Read-only once made; copies share the buffer, which is freed with the last of them.
/// Reading is bounds-checked, as an array's is. One word, as an array is: a document that
/// holds two tables is passed in registers as it was with two arrays.
struct FrozenTable<Element: BitwiseCopyable & Sendable>: RandomAccessCollection, Sendable {
    /// Owns the buffer: frees it when no table refers to it any more.
    private final class Storage: @unchecked Sendable {
        let base: UnsafeMutablePointer<Element>
        let count: Int

        init(_ base: UnsafeMutablePointer<Element>, count: Int) {
            self.base = base
            self.count = count
        }

        deinit { base.deallocate() }
    }

    private let storage: Storage

    var count: Int { storage.count }

    /// The elements `stack` holds, in its buffer, which the table now owns: the stack must
    /// not be used or deallocated after.
    init(adopting stack: InPlaceStack<Element>) {
        storage = Storage(stack.base, count: stack.count)
    }

    /// A copy of `elements`.
    init(_ elements: some Collection<Element>) {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(elements.count, 1))
        let (_, written) = UnsafeMutableBufferPointer(start: base, count: elements.count).initialize(from: elements)
        precondition(written == elements.count, "a collection gave fewer elements than its count")
        storage = Storage(base, count: written)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    @inline(__always)
    subscript(position: Int) -> Element {
        let storage = storage
        precondition(UInt(bitPattern: position) < UInt(bitPattern: storage.count), "index out of range")
        return storage.base[position]
    }
}
