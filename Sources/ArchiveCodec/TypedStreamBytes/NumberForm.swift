/// The one-byte tags of a typedstream. A byte read where a tag may stand is a signed char:
/// -128...-111 (0x80...0x91) are reserved for tags, every other byte is a small integer or
/// reference number standing for itself.
enum StreamTag {
    /// A 2-byte integer follows.
    static let int16: UInt8 = 0x81
    /// A 4-byte integer follows.
    static let int32: UInt8 = 0x82
    /// A float or double follows, 4 or 8 bytes (the type says which).
    static let real: UInt8 = 0x83
    /// A new string, object or class follows (not a reference to an earlier one).
    static let new: UInt8 = 0x84
    /// nil: no string, object or class.
    static let null: UInt8 = 0x85
    /// The end of an object's contents.
    static let endOfObject: UInt8 = 0x86
    /// An 8-byte integer follows: how Foundation stores a `q`/`Q` past 32 bits (NeXT's
    /// typedstream had no 64-bit integers).
    static let int64: UInt8 = 0x87
    /// The reserved range; the tags not listed above are never written.
    static let reserved: ClosedRange<UInt8> = 0x80...0x91

    /// Reference numbers count from here: the first string or object of a table is -110,
    /// written as the byte 0x92, just past the tags.
    static let firstReference: Int64 = -110
}

/// How a compact integer or a real is spelled in the stream. Apple's writer picks the shortest
/// spelling (`canonical(_:short:)`, `canonical(real:)`); a stream may spell a value otherwise,
/// and a `TypedStream.Value` records the spelling only then, so that the stream is written back
/// byte for byte while a model built by hand gets Apple's choice.
enum NumberForm: UInt8, Sendable {
    /// Only in a value's record: the spelling the writer picks.
    case canonical = 0
    /// The value itself in one byte (-110...127).
    case byte = 1
    /// 0x81 and 2 bytes.
    case int16 = 2
    /// 0x82 and 4 bytes.
    case int32 = 3
    /// 0x87 and 8 bytes.
    case int64 = 4
    /// 0x83 and the float's 4 or the double's 8 bytes.
    case real = 5

    /// Whether this integer spelling holds `value`.
    func holds(_ value: Int64) -> Bool {
        switch self {
        case .byte: (StreamTag.firstReference...127).contains(value)
        case .int16: Int16(exactly: value) != nil
        case .int32: Int32(exactly: value) != nil
        case .int64: true
        case .canonical, .real: false
        }
    }

    /// The spelling Apple's writer gives integer `value`: one byte from -110 to 127; two from
    /// -32767 (NeXT's writer kept -32768 for four bytes, except in a `short`, `short` true)
    /// to 32767; four within 32 bits; eight past them.
    @inline(__always)
    static func canonical(_ value: Int64, short: Bool = false) -> NumberForm {
        if (StreamTag.firstReference...127).contains(value) { return .byte }
        if (-32767...32767).contains(value) || (short && value == -32768) { return .int16 }
        return Int32(exactly: value) != nil ? .int32 : .int64
    }

    /// The spelling Apple's writer gives a float or double `real`: the integer spelling when
    /// `real` is whole, within -2147483646...2147483645 and exactly a float (NeXT's writer
    /// compared the value with its conversion to int through float), `.real` otherwise and
    /// for -0.0, whose sign an integer would lose.
    @inline(__always)
    static func canonical(real: Double) -> NumberForm {
        // The range first (NaN fails it), so that the conversion below cannot trap.
        guard real >= -2_147_483_646, real <= 2_147_483_645 else { return .real }
        let whole = Int64(real)
        guard Double(whole) == real, whole != 0 || real.sign == .plus, Double(Float(real)) == real else { return .real }
        return canonical(whole)
    }
}
