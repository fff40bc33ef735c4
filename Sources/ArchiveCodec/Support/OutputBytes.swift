#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes a writer appends (JSON text, a typedstream), written through a pointer into memory
/// this value owns rather than into an array: an array's append asks the runtime whether its
/// buffer is shared, every time, and the writers append for every token they write.
///
/// A writer's fast path asks for room once (`room(for:)`), writes at `end` and adds what it
/// wrote to `count`; or it appends a byte or a buffer. The capacity at least doubles when it
/// grows, so appends stay amortised constant time; `realloc` moves a large buffer by remapping
/// its pages, not by copying them.
///
/// Invariant: an `OutputBytes` is moved from owner to owner, never written through two copies
/// (copies share the memory, and a copy that grew it would leave the other's pointer stale).
struct OutputBytes {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// Bytes written. A writer may set it back: to drop what it wrote past a point, or to
    /// zero once it has handed the bytes on.
    var count = 0
    private let storage: Storage

    /// Room for `capacity` bytes (at least 16); only the pages written are touched, so a
    /// generous capacity costs address space, not memory.
    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        storage = Storage(capacity: self.capacity)
        base = storage.base
    }

    /// Where the next byte goes.
    @inline(__always)
    var end: UnsafeMutablePointer<UInt8> { base + count }

    /// Makes room for `needed` more bytes at `end`.
    @inline(__always)
    mutating func room(for needed: Int) {
        if capacity - count < needed { grow(toHold: needed) }
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        room(for: bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let (wanted, overflow) = count.addingReportingOverflow(needed)
        precondition(!overflow, "output size overflows")
        capacity = Swift.max(wanted, capacity * 2)
        storage.resize(to: capacity)
        base = storage.base
    }

    /// Lends the bytes written to `body`, without copying them.
    func withBytes<Result, Failure>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        defer { withExtendedLifetime(storage) {} }
        return try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The memory, freed with the last copy of the value.
    private final class Storage {
        private(set) var base: UnsafeMutablePointer<UInt8>

        init(capacity: Int) {
            base = Self.checked(malloc(capacity), capacity)
        }

        func resize(to capacity: Int) {
            base = Self.checked(realloc(base, capacity), capacity)
        }

        private static func checked(_ memory: UnsafeMutableRawPointer?, _ capacity: Int) -> UnsafeMutablePointer<UInt8> {
            guard let memory else { fatalError("out of memory for \(capacity) bytes of output") }
            return memory.bindMemory(to: UInt8.self, capacity: capacity)
        }

        deinit { free(base) }
    }
}
