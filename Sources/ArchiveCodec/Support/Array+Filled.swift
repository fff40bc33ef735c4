/// Making a table of a known size: the one way the codec does it.
///
/// `Array(repeating:count:)` and `Array(unsafeUninitializedCapacity:initializingWith:)`
/// allocate through a standard-library entry point that is never inlined
/// (`Array._allocateBufferUninitialized`): being generic, it asks the runtime for the storage
/// class's metadata at every call, and for an element type the standard library specialises
/// ahead (`UInt8`, `Int`, `Int32`, `Bool`, …) or any other, that is a lookup in the runtime's
/// concurrent hash table: about 330 instructions, more than the allocation itself. A document
/// makes ten or more such tables (a `--nested` decode made ten per payload, and spent 5 % of
/// its instructions looking them up). `reserveCapacity` is inlined and specialised, and reads
/// the same metadata from a per-type cache; so these make their arrays through it.
///
/// An unoptimised (debug) build takes `Array(repeating:count:)` all the same: there the append
/// runs element by element through unspecialised generic code, which made the test suite, whose
/// tests decode thousands of small documents, a third slower (a document's key-text cache alone
/// fills 16 KB).
extension Array {
    /// `count` copies of `value`, as `Array(repeating:count:)` makes them.
    @inline(__always)
    init(filledWith value: Element, count: Int) {
        #if DEBUG
        self.init(repeating: value, count: count)
        #else
        self.init(reservingAndFilling: value, count: count)
        #endif
    }

    /// An optimised build's `init(filledWith:count:)`, in every build (so that the tests,
    /// built unoptimised, run the way release builds take).
    @inline(__always)
    init(reservingAndFilling value: Element, count: Int) {
        self.init()
        reserveCapacity(count)
        append(contentsOf: repeatElement(value, count: count))
    }
}

extension Array where Element: BitwiseCopyable {
    /// `count` elements that `body` writes, each before anything reads it, as
    /// `Array(unsafeUninitializedCapacity:initializingWith:)` would make them. A small array
    /// is filled with `placeholder` first (through `init(filledWith:count:)`, see above: a
    /// fill of a few hundred bytes costs less than the lookup); from `uninitializedFrom`
    /// elements on, the array is allocated uninitialized, where the lookup is small against
    /// the work and a fill would write every byte twice.
    @inline(__always)
    init(count: Int, placeholder: Element, writing body: (UnsafeMutableBufferPointer<Element>) -> Void) {
        guard count < Self.uninitializedFrom else {
            self.init(unsafeUninitializedCapacity: count) { buffer, initialized in
                body(buffer)
                initialized = count
            }
            return
        }
        self.init(filledWith: placeholder, count: count)
        withUnsafeMutableBufferPointer { body($0) }
    }

    /// See `init(count:placeholder:writing:)`.
    private static var uninitializedFrom: Int { 4096 / Swift.max(MemoryLayout<Element>.stride, 1) }
}
