/// The type codes a typedstream's type encodings use, and what each says about its values.
///
/// A type encoding is Objective-C's `@encode` text with two codes of typedstream's own (`+` for
/// counted bytes, `%` for an atom). The codes read here are the ones NSArchiver and NeXT's
/// typedstream wrote: integers `c C s S i I l L q Q`, `B`, reals `f d`, the strings `* % : +`,
/// `#` classes, `@` objects, `!` (an ignored field, no bytes), and the composites `[N type]`,
/// `{name=types}` and `^type`. Unions, bit fields, `void`, `?` and method qualifiers are refused
/// when a type string is parsed: no writer in hand shows how their values are laid out.
enum TypeCode {
    static let char = UInt8(ascii: "c")
    static let unsignedChar = UInt8(ascii: "C")
    static let short = UInt8(ascii: "s")
    static let unsignedShort = UInt8(ascii: "S")
    static let int = UInt8(ascii: "i")
    static let unsignedInt = UInt8(ascii: "I")
    static let long = UInt8(ascii: "l")
    static let unsignedLong = UInt8(ascii: "L")
    static let longLong = UInt8(ascii: "q")
    static let unsignedLongLong = UInt8(ascii: "Q")
    static let bool = UInt8(ascii: "B")
    static let float = UInt8(ascii: "f")
    static let double = UInt8(ascii: "d")
    static let cString = UInt8(ascii: "*")
    static let atom = UInt8(ascii: "%")
    static let selector = UInt8(ascii: ":")
    static let byteString = UInt8(ascii: "+")
    static let classObject = UInt8(ascii: "#")
    static let object = UInt8(ascii: "@")
    static let ignored = UInt8(ascii: "!")
    static let arrayOpen = UInt8(ascii: "[")
    static let arrayClose = UInt8(ascii: "]")
    static let structOpen = UInt8(ascii: "{")
    static let structClose = UInt8(ascii: "}")
    static let structNameEnd = UInt8(ascii: "=")
    static let pointer = UInt8(ascii: "^")
    /// Not a character of any encoding: the root of a parsed type string, whose children are
    /// the types of one group.
    static let sequence: UInt8 = 0

    // The tests below are inlined: readers and writers ask them of every value.

    /// `c s i l q`: integers read and written as signed.
    @inline(__always)
    static func isSignedInteger(_ code: UInt8) -> Bool {
        code == char || code == short || code == int || code == long || code == longLong
    }

    /// `C S I L Q B`: integers whose stored (signed) bits are read as unsigned.
    @inline(__always)
    static func isUnsignedInteger(_ code: UInt8) -> Bool {
        code == unsignedChar || code == unsignedShort || code == unsignedInt || code == unsignedLong || code == unsignedLongLong || code == bool
    }

    /// `c C B`: stored as one raw byte, never as a compact integer (the tags do not apply).
    @inline(__always)
    static func isRawByte(_ code: UInt8) -> Bool {
        code == char || code == unsignedChar || code == bool
    }

    /// The width in bits of an integer code: `l`/`L` are 32-bit, as in the Objective-C runtime's
    /// encodings and in NeXT's typedstream (which stored them as ints). 0 for other codes.
    @inline(__always)
    static func bitWidth(_ code: UInt8) -> Int {
        switch code {
        case char, unsignedChar, bool: 8
        case short, unsignedShort: 16
        case int, unsignedInt, long, unsignedLong: 32
        case longLong, unsignedLongLong: 64
        default: 0
        }
    }

    /// Codes that stand alone (no children).
    static func isScalar(_ code: UInt8) -> Bool {
        bitWidth(code) != 0 || code == float || code == double || code == cString || code == atom || code == selector
            || code == byteString || code == classObject || code == object || code == ignored
    }
}
