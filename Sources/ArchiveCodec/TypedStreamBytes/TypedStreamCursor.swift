/// Reads a typedstream's bytes with every read bounds-checked: a read past the end throws
/// `.malformedTypedStream` at the offset where that read began, never traps. Multi-byte
/// integers and reals are in the header's byte order.
///
/// Integers the format itself needs (string lengths, reference numbers, class versions, the
/// system version) are "structural": Apple's writer always gives them their shortest
/// spelling, and one spelled otherwise is refused, so that the model need not record it and
/// the writer gives back the same bytes.
struct TypedStreamCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var bigEndian = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position == bytes.count }

    func fail(_ message: String, at offset: Int) -> CodecError {
        CodecError(.malformedTypedStream, message, byteOffset: offset)
    }

    /// The next byte; `what` names it in the error at the end of the input.
    @inline(__always)
    mutating func byte(_ what: @autoclosure () -> String) throws(CodecError) -> UInt8 {
        guard position < bytes.count else { throw fail("the stream ends where \(what()) was expected", at: position) }
        position += 1
        return bytes[position - 1]
    }

    /// The next byte, not consumed.
    func peek(_ what: @autoclosure () -> String) throws(CodecError) -> UInt8 {
        guard position < bytes.count else { throw fail("the stream ends where \(what()) was expected", at: position) }
        return bytes[position]
    }

    /// Skips `count` bytes of `what` that began at `start`; returns where they start.
    @inline(__always)
    mutating func skip(_ count: Int, of what: @autoclosure () -> String, startedAt start: Int) throws(CodecError) -> Int {
        guard count <= remaining else { throw fail("\(what()) needs \(count) bytes, \(remaining) left", at: start) }
        position += count
        return position - count
    }

    /// A fixed-width integer's bits in the stream's byte order.
    @inline(__always)
    mutating func fixed<T: FixedWidthInteger>(_: T.Type, of what: @autoclosure () -> String, startedAt start: Int) throws(CodecError) -> T {
        let at = try skip(MemoryLayout<T>.size, of: what(), startedAt: start)
        let raw = UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: at, as: T.self)
        return bigEndian ? T(bigEndian: raw) : T(littleEndian: raw)
    }

    /// A compact integer whose first byte `head` was read at `start`, and how it is spelled.
    @inline(__always)
    mutating func compactInteger(head: UInt8, at start: Int, _ what: @autoclosure () -> String) throws(CodecError) -> (Int64, NumberForm) {
        switch head {
        case StreamTag.int16: return (Int64(Int16(bitPattern: try fixed(UInt16.self, of: "a 2-byte integer", startedAt: start))), .int16)
        case StreamTag.int32: return (Int64(Int32(bitPattern: try fixed(UInt32.self, of: "a 4-byte integer", startedAt: start))), .int32)
        case StreamTag.int64: return (Int64(bitPattern: try fixed(UInt64.self, of: "an 8-byte integer", startedAt: start)), .int64)
        case StreamTag.reserved: throw fail("tag 0x\(String(head, radix: 16)) where \(what()) was expected", at: start)
        default: return (Int64(Int8(bitPattern: head)), .byte)
        }
    }

    /// A structural integer (see the type's comment) whose first byte `head` was read at `start`.
    ///
    /// Inlined for its common cases: a head outside the tags (`StreamTag.reserved`) is the
    /// number itself (-110...127), and one byte is how Apple's writer spells such a number;
    /// a 2-byte number past that range (but -32768, which Apple's writer spells in 4) is how
    /// it spells the reference numbers of a table past its first 238 entries.
    @inline(__always)
    mutating func structuralInteger(head: UInt8, at start: Int, _ what: @autoclosure () -> String) throws(CodecError) -> Int64 {
        if !StreamTag.reserved.contains(head) { return Int64(Int8(bitPattern: head)) }
        if head == StreamTag.int16, remaining >= 2 {
            let raw = UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: position, as: UInt16.self)
            let value = Int64(Int16(bitPattern: bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)))
            if value < StreamTag.firstReference || value > 127, value != -32768 {
                position += 2
                return value
            }
        }
        return try taggedStructuralInteger(head: head, at: start, what())
    }

    /// `structuralInteger` for a head among the tags: a longer spelling, or a tag that is none.
    mutating func taggedStructuralInteger(head: UInt8, at start: Int, _ what: @autoclosure () -> String) throws(CodecError) -> Int64 {
        let (value, form) = try compactInteger(head: head, at: start, what())
        let canonical = NumberForm.canonical(value)
        guard form == canonical else {
            throw fail("\(what()) \(value) is spelled as \(form), not as \(canonical) as Apple's writer spells it", at: start)
        }
        return value
    }

    /// A length whose first byte `head` was read at `start`: at least 0, and at most the bytes
    /// left, so nothing is reserved for bytes the input does not have.
    mutating func length(head: UInt8, at start: Int, of what: @autoclosure () -> String) throws(CodecError) -> Int {
        let value = try structuralInteger(head: head, at: start, "the length of \(what())")
        guard value >= 0, value <= Int64(remaining) else { throw fail("\(what()) of \(value) bytes, \(remaining) left", at: start) }
        return Int(value)
    }

    /// The table index a reference number stands for, whose first byte `head` was read at
    /// `start`: within the `count` entries the table has so far. Inlined: every group's type
    /// string and most objects are references.
    @inline(__always)
    mutating func reference(head: UInt8, at start: Int, into count: Int, of table: @autoclosure () -> String) throws(CodecError) -> Int {
        let label = try structuralInteger(head: head, at: start, "a reference")
        let index = label - StreamTag.firstReference
        guard index >= 0, index < Int64(count) else {
            throw fail("reference \(label) to entry \(index) of \(table()), which holds \(count) so far", at: start)
        }
        return Int(index)
    }
}
