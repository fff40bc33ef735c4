/// The shared string each literal type string of a readable form's steps (`@`, `i`, `iI`, …)
/// was interned as, found by the literal's address: a literal stays at one address for the
/// process's life, so its bytes need not be hashed and compared again at every group
/// (interning `@` cost about a hundred instructions, and a stream of small objects has a
/// group or two an object).
///
/// A literal is known by its address and its length together (a linker may lay one literal
/// at the tail of another, never two of different bytes at one address with one length).
/// Direct-mapped: 16 slots by the address's low bits. A literal whose slot another took is
/// interned again, which gives the same string; an encoder's lowering names a few literals.
/// Each encoder keeps its own, as its strings are its builder's.
struct LiteralStringCache {
    /// Per slot: the key (`key(of:)`) of the literal kept there, 0 for none; and its string.
    /// Held inline, not in arrays: a nested payload's encoder makes a cache of its own, and two
    /// arrays allocated for each cost a payload of few groups more than the cache saved it.
    private var keys: (UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private var strings: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The string `literal` was kept as, or nil. Mutating only to read the slots in place (a
    /// read through a copy of them copied all sixteen).
    @inline(__always)
    mutating func string(for literal: StaticString) -> UInt32? {
        let key = Self.key(of: literal)
        let slot = Self.slot(key)
        guard withUnsafeMutableBytes(of: &keys, { $0.load(fromByteOffset: slot &* 8, as: UInt.self) }) == key else { return nil }
        return withUnsafeMutableBytes(of: &strings) { $0.load(fromByteOffset: slot &* 4, as: UInt32.self) }
    }

    mutating func keep(_ string: UInt32, for literal: StaticString) {
        let key = Self.key(of: literal)
        let slot = Self.slot(key)
        withUnsafeMutableBytes(of: &keys) { $0.storeBytes(of: key, toByteOffset: slot &* 8, as: UInt.self) }
        withUnsafeMutableBytes(of: &strings) { $0.storeBytes(of: string, toByteOffset: slot &* 4, as: UInt32.self) }
    }

    /// The literal's address with its length in the top 16 bits (a user-space address has
    /// fewer than 48 bits).
    @inline(__always)
    private static func key(of literal: StaticString) -> UInt {
        UInt(bitPattern: literal.utf8Start) ^ (UInt(truncatingIfNeeded: literal.utf8CodeUnitCount) &<< 48)
    }

    @inline(__always)
    private static func slot(_ key: UInt) -> Int {
        Int(truncatingIfNeeded: (key ^ (key &>> 4)) & 15)
    }
}
