/// How a compact integer or a real is laid out in a typedstream's bytes: the one home of
/// writing a spelling (the writer's, and the builder's, which keeps a 64-bit value spelled in
/// its storage) and of reading one back from bytes whose spelling is known to be whole (a
/// model's storage: read and checked by the reader, or written by the builder).
///
/// Writes go through a pointer with room for `maximumBytes`: the fixed-width bytes are stored
/// as one 8-byte word and the count kept, so a writer asks for room once.
enum NumberSpelling {
    /// The most bytes a spelling writes at once (a tag and an 8-byte word).
    static let maximumBytes = 9

    /// Writes `value` spelled in `form` (an integer spelling that holds it, not `.canonical`
    /// or `.real`) at `out`, in the byte order `bigEndian` says; returns the bytes it spelled.
    @inline(__always)
    static func writeInteger(_ value: Int64, form: NumberForm, bigEndian: Bool, to out: UnsafeMutablePointer<UInt8>) -> Int {
        switch form {
        case .int16:
            out[0] = StreamTag.int16
            writeFixed(UInt64(UInt16(truncatingIfNeeded: value)), size: 2, bigEndian: bigEndian, to: out + 1)
            return 3
        case .int32:
            out[0] = StreamTag.int32
            writeFixed(UInt64(UInt32(truncatingIfNeeded: value)), size: 4, bigEndian: bigEndian, to: out + 1)
            return 5
        case .int64:
            out[0] = StreamTag.int64
            writeFixed(UInt64(bitPattern: value), size: 8, bigEndian: bigEndian, to: out + 1)
            return 9
        default:
            out[0] = UInt8(truncatingIfNeeded: value)
            return 1
        }
    }

    /// Writes a real spelled as itself (`.real`): the tag and the float's 4 or the double's 8
    /// bytes (`size`) of `bits`; returns the bytes it spelled.
    @inline(__always)
    static func writeReal(bits: UInt64, size: Int, bigEndian: Bool, to out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = StreamTag.real
        writeFixed(bits, size: size, bigEndian: bigEndian, to: out + 1)
        return 1 + size
    }

    /// The low `size` bytes (1 to 8) of `bits` in the byte order `bigEndian` says, stored as
    /// one word (in big-endian, shifted so that its low `size` bytes come first): all eight
    /// bytes are written, `size` of them meant.
    @inline(__always)
    static func writeFixed(_ bits: UInt64, size: Int, bigEndian: Bool, to out: UnsafeMutablePointer<UInt8>) {
        let word = bigEndian ? (bits << UInt64(64 - 8 * size)).bigEndian : bits.littleEndian
        UnsafeMutableRawPointer(out).storeBytes(of: word, as: UInt64.self)
    }

    /// The integer spelled at `bytes` (a tag and its fixed bytes, or a byte standing for
    /// itself), which must be a whole spelling: only its own bytes are read.
    @inline(__always)
    static func readInteger(at bytes: UnsafePointer<UInt8>, bigEndian: Bool) -> Int64 {
        let raw = UnsafeRawPointer(bytes + 1)
        switch bytes[0] {
        case StreamTag.int16:
            let bits = raw.loadUnaligned(as: UInt16.self)
            return Int64(Int16(bitPattern: bigEndian ? UInt16(bigEndian: bits) : UInt16(littleEndian: bits)))
        case StreamTag.int32:
            let bits = raw.loadUnaligned(as: UInt32.self)
            return Int64(Int32(bitPattern: bigEndian ? UInt32(bigEndian: bits) : UInt32(littleEndian: bits)))
        case StreamTag.int64:
            let bits = raw.loadUnaligned(as: UInt64.self)
            return Int64(bitPattern: bigEndian ? UInt64(bigEndian: bits) : UInt64(littleEndian: bits))
        case let head:
            return Int64(Int8(bitPattern: head))
        }
    }

    /// The bits of the real of `size` bytes (4 or 8) spelled at `bytes`: as itself after the
    /// `.real` tag, or as an integer whose value it exactly is (the reader and the builder
    /// let no other through).
    @inline(__always)
    static func readReal(at bytes: UnsafePointer<UInt8>, size: Int, bigEndian: Bool) -> UInt64 {
        guard bytes[0] == StreamTag.real else {
            let whole = Double(readInteger(at: bytes, bigEndian: bigEndian))
            return size == 8 ? whole.bitPattern : UInt64(Float(whole).bitPattern)
        }
        let raw = UnsafeRawPointer(bytes + 1)
        if size == 8 {
            let bits = raw.loadUnaligned(as: UInt64.self)
            return bigEndian ? UInt64(bigEndian: bits) : UInt64(littleEndian: bits)
        }
        let bits = raw.loadUnaligned(as: UInt32.self)
        return UInt64(bigEndian ? UInt32(bigEndian: bits) : UInt32(littleEndian: bits))
    }

    /// How many bytes the spelling at `bytes` takes: of an integer, or of a real of `size`
    /// bytes after the `.real` tag.
    @inline(__always)
    static func count(at bytes: UnsafePointer<UInt8>, realSize size: Int = 8) -> Int {
        switch bytes[0] {
        case StreamTag.int16: 3
        case StreamTag.int32: 5
        case StreamTag.int64: 9
        case StreamTag.real: 1 + size
        default: 1
        }
    }
}
