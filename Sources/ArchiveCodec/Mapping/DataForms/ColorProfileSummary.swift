/// What an ICC colour profile says of itself (docs/mapping.md, "Data values"): the version, the
/// class and the data colour space from its 128-byte header (ICC.1 §7.2), and the text of its
/// description tag (`desc`: a `textDescriptionType` in version 2 profiles, a
/// `multiLocalizedUnicodeType` in version 4). Written in `$kind` beside the profile's bytes, which
/// stay the value: an NSColorSpace's `NSICC`, a profile inside a document.
///
/// Read from the bytes only, never guessed: a field is said when the bytes hold it as the
/// specification defines it, else left out (an unknown class signature, a description that is
/// not text). Hostile bytes cost little: the tag table and a description's records are walked
/// only as far as the bytes hold them (each count checked against the bytes left before the walk
/// begins, so a table claiming 2^32 tags costs as much as the bytes it has), every offset and
/// length is checked against the tag and the value before it is read, and nothing is allocated
/// from a size the bytes declare beyond the text the bytes themselves hold.
struct ColorProfileSummary: Equatable, Sendable {
    /// `major.minor.bugfix`, from bytes 8 and 9 (`2.1.0`).
    let version: String
    /// What the profile is for (byte 12's signature, Table 18), in words: nil for a signature the
    /// specification does not define.
    let profileClass: String?
    /// The data colour space's signature without its padding (`RGB`, `GRAY`, `CMYK`, `Lab`),
    /// when it is one the specification defines (Table 19).
    let space: String?
    /// The description tag's text (the `en`-`US` record of a multi-localised one, else its
    /// first), when it is well-formed text without control characters.
    let description: String?

    /// The header's size: a profile is at least this long (its tag count follows).
    static let headerSize = 128

    /// The summary of `bytes`, which begin as a profile (`DataKind.Name.icc`: `acsp` at 36); nil
    /// when they are shorter than a header.
    static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> ColorProfileSummary? {
        guard bytes.count >= headerSize else { return nil }
        let version = "\(bytes[8]).\(bytes[9] >> 4).\(bytes[9] & 0x0F)"
        return ColorProfileSummary(
            version: version, profileClass: className(signature(bytes, 12)), space: isSpace(signature(bytes, 16)) ? trimmed(bytes, 16) : nil,
            description: description(bytes))
    }

    /// The members written after `"name": "icc"`, in this order.
    var members: [AccountMember] {
        var members = [AccountMember("version", .string(version))]
        if let profileClass { members.append(AccountMember("class", .string(profileClass))) }
        if let space { members.append(AccountMember("space", .string(space))) }
        if let description { members.append(AccountMember("description", .string(description))) }
        return members
    }

    // MARK: Header

    /// A profile class (ICC.1 Table 18) in words.
    private static func className(_ signature: UInt32) -> String? {
        switch signature {
        case fourCC("scnr"): "input"
        case fourCC("mntr"): "display"
        case fourCC("prtr"): "output"
        case fourCC("link"): "device link"
        case fourCC("spac"): "colour space"
        case fourCC("abst"): "abstract"
        case fourCC("nmcl"): "named colour"
        default: nil
        }
    }

    /// Whether `signature` is a data colour space (ICC.1 Table 19): `2CLR` … `FCLR` are 2 to 15
    /// colours.
    private static func isSpace(_ signature: UInt32) -> Bool {
        switch signature {
        case fourCC("XYZ "), fourCC("Lab "), fourCC("Luv "), fourCC("YCbr"), fourCC("Yxy "), fourCC("RGB "), fourCC("GRAY"),
            fourCC("HSV "), fourCC("HLS "), fourCC("CMYK"), fourCC("CMY "):
            return true
        default:
            let first = UInt8(signature >> 24)
            let isCount = (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(first) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(first)
            return isCount && signature & 0x00FF_FFFF == fourCC("\0CLR")
        }
    }

    private static func fourCC(_ text: StaticString) -> UInt32 {
        let start = text.utf8Start
        return UInt32(start[0]) << 24 | UInt32(start[1]) << 16 | UInt32(start[2]) << 8 | UInt32(start[3])
    }

    private static func signature(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        bytes.bigEndianUInt32(at: at)
    }

    /// The four letters at `at` without the spaces that pad them (a defined signature: ASCII).
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> String {
        var end = at + 4
        while end > at, bytes[end - 1] == 0x20 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[at..<end]), as: UTF8.self)
    }

    // MARK: Description

    /// The text of the first `desc` tag, or nil.
    private static func description(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count >= headerSize + 4 else { return nil }
        // Only the entries the bytes hold are looked at, however many the count claims.
        let claimed = Int(bytes.bigEndianUInt32(at: headerSize))
        let count = min(claimed, (bytes.count - headerSize - 4) / 12)
        for index in 0..<count {
            let entry = headerSize + 4 + index * 12
            guard signature(bytes, entry) == fourCC("desc") else { continue }
            let offset = Int(bytes.bigEndianUInt32(at: entry + 4))
            let size = Int(bytes.bigEndianUInt32(at: entry + 8))
            guard offset <= bytes.count, size <= bytes.count - offset, size >= 12 else { return nil }
            let tag = UnsafeBufferPointer(rebasing: bytes[offset..<(offset + size)])
            switch signature(tag, 0) {
            case fourCC("desc"): return asciiDescription(tag)
            case fourCC("mluc"): return localisedDescription(tag)
            default: return nil
            }
        }
        return nil
    }

    /// A `textDescriptionType`: an ASCII count (its NUL included) at 8, the text at 12.
    private static func asciiDescription(_ tag: UnsafeBufferPointer<UInt8>) -> String? {
        let count = Int(tag.bigEndianUInt32(at: 8))
        guard count >= 1, count <= tag.count - 12 else { return nil }
        var end = 12
        while end < 12 + count, tag[end] != 0 { end += 1 }
        let text = UnsafeBufferPointer(rebasing: tag[12..<end])
        guard !text.isEmpty, text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// A `multiLocalizedUnicodeType`: a record count at 8 and a record size at 12, records of
    /// (language, country, length, offset) from 16, each text UTF-16 big-endian.
    private static func localisedDescription(_ tag: UnsafeBufferPointer<UInt8>) -> String? {
        guard tag.count >= 16 else { return nil }
        let recordSize = Int(tag.bigEndianUInt32(at: 12))
        guard recordSize >= 12 else { return nil }
        let count = min(Int(tag.bigEndianUInt32(at: 8)), (tag.count - 16) / recordSize)
        guard count > 0 else { return nil }
        var chosen = 16
        for index in 0..<count {
            let record = 16 + index * recordSize
            if tag[record] == UInt8(ascii: "e"), tag[record + 1] == UInt8(ascii: "n"), tag[record + 2] == UInt8(ascii: "U"),
                tag[record + 3] == UInt8(ascii: "S")
            {
                chosen = record
                break
            }
        }
        let length = Int(tag.bigEndianUInt32(at: chosen + 4))
        let offset = Int(tag.bigEndianUInt32(at: chosen + 8))
        guard length > 0, length % 2 == 0, offset <= tag.count, length <= tag.count - offset else { return nil }
        var units = (0..<(length / 2)).lazy.map { UInt16(tag[offset + 2 * $0]) << 8 | UInt16(tag[offset + 2 * $0 + 1]) }[...]
        while let last = units.last, last == 0 { units = units.dropLast() }
        var text = ""
        var decoder = UTF16()
        var iterator = units.makeIterator()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                guard scalar.value >= 0x20, !(0x7F...0x9F).contains(scalar.value) else { return nil }
                text.unicodeScalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        return text.isEmpty ? nil : text
    }

}
