/// Receives a property list bottom-up: every value before the containers that hold it.
/// Each call returns the index later containers name the value by. Scalars are interned:
/// equal strings, data, numbers, dates and UIDs get one index, as Apple's writer gives them
/// one object (which keeps millions of repeated keys from bloating an archive).
///
/// `PlistTree` keeps the values for writers that need the whole tree (XML);
/// `BinaryPlistBuilder` writes each value as binary plist bytes the moment it arrives.
protocol PlistBuilding {
    /// Room for about `values` values and `bytes` bytes of text. Reserved pages cost no
    /// memory until written; growing by doubling would copy and touch them twice.
    mutating func reserve(values: Int, bytes: Int)
    /// `utf8` is valid UTF-8.
    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32
    mutating func data(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32
    mutating func integer(_ value: PlistInteger) throws(CodecError) -> UInt32
    mutating func real(_ value: Double) throws(CodecError) -> UInt32
    mutating func date(_ value: Double) throws(CodecError) -> UInt32
    mutating func bool(_ value: Bool) throws(CodecError) -> UInt32
    mutating func uid(_ value: UInt64) throws(CodecError) -> UInt32
    mutating func array(_ elements: some Collection<UInt32>) throws(CodecError) -> UInt32
    /// Keys must be string values; `keys` and `values` have the same count.
    mutating func dict(keys: some Collection<UInt32>, values: some Collection<UInt32>) throws(CodecError) -> UInt32
    /// The same from (key, value) pairs laid out one after the other.
    mutating func dict(pairs: UnsafeBufferPointer<UInt32>) throws(CodecError) -> UInt32
    /// The text of string value `index`, for error messages.
    func text(of index: UInt32) -> String
}

extension PlistBuilding {
    mutating func string(bytes: [UInt8]) throws(CodecError) -> UInt32 {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try string(buffer) }
    }

    mutating func string(_ value: String) throws(CodecError) -> UInt32 {
        try string(bytes: Array(value.utf8))
    }

    /// A literal key, interned without building a `String` (the encoder writes them for
    /// every object).
    mutating func string(static value: StaticString) throws(CodecError) -> UInt32 {
        guard value.hasPointerRepresentation else { return try string(value.description) }
        return try string(UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }
}
