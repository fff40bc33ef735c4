/// Structure-aware byte mutations for archives (binary and XML plists) and JSON documents.
///
/// Deterministic for a given seed, so a run can be repeated exactly.
struct Mutator {
    var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    /// splitmix64: small, fast, and good enough to spread mutations.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }

    /// Values that sit on the edges of the format's fields: markers with every low nibble
    /// pattern that matters, sizes 0/1/2/4/8/16, sign bits, "extended count" 0x0F.
    static let interestingBytes: [UInt8] = [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x07, 0x08, 0x09, 0x0F, 0x10, 0x13, 0x14, 0x1F, 0x20,
        0x22, 0x23, 0x33, 0x40, 0x4F, 0x50, 0x5F, 0x60, 0x6F, 0x7F, 0x80, 0x87, 0x88, 0xA0,
        0xAF, 0xC0, 0xD0, 0xDF, 0xEF, 0xF0, 0xFE, 0xFF
    ]

    /// Fragments that mean something to one of the parsers: JSON wrappers and escapes,
    /// XML plist elements and entity tricks, numbers at the edges of their types.
    static let tokens: [String] = [
        "{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "-0", "1e999", "-1e-999",
        "18446744073709551615", "18446744073709551616", "-9223372036854775808", "0.1", "\\u0000",
        "\\ud800", "\\udc00", "\\\"", "{\"$ref\":\"a\"}", "\"$id\":\"a\",", "{\"$class\":\"X\"}",
        "\"$classes\":[\"X\",\"NSObject\"],", "{\"$data\":\"AA==\"}", "{\"$real\":\"NaN\"}",
        "{\"$date\":\"2001-01-01T00:00:00Z\"}", "{\"$set\":[]}", "{\"$dict\":[[1,2]]}",
        "{\"$array\":[]}", "{\"$number\":1}", "{\"$string\":\"s\"}", "{\"$uuid\":\"00000000-0000-0000-0000-000000000000\"}",
        "\"$$x\":1,", "{\"$top\":{}}", "\"$inline\":", "\"$bytes\":\"\"", "\"$plist\":",
        "<dict>", "</dict>", "<array>", "</array>", "<key>CF$UID</key>", "<integer>0</integer>",
        "<integer>-1</integer>", "<integer>99999999999999999999</integer>", "<real>nan</real>",
        "<date>2001-01-01T00:00:00Z</date>", "<data>AA==</data>", "<string>&lt;</string>",
        "<true/>", "<false/>", "<key>$objects</key>", "<key>$top</key>", "&#0;", "&#xD800;",
        "<!ENTITY a \"b\">", "<![CDATA[x]]>", "<?xml version=\"1.0\"?>", "<!-- -->"
    ]

    /// Applies one to `rounds` random mutations to `input`; `other` feeds splices.
    mutating func mutate(_ input: [UInt8], rounds: Int, other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + below(rounds)) {
            mutateOnce(&bytes, other: other)
        }
        return bytes
    }

    private mutating func mutateOnce(_ bytes: inout [UInt8], other: [UInt8]) {
        if bytes.isEmpty {
            bytes = Array(other.prefix(1 + below(max(1, other.count))))
            return
        }
        let position = below(bytes.count)
        switch below(11) {
        case 0:
            bytes[position] ^= 1 << UInt8(below(8))
        case 1:
            bytes[position] = Self.interestingBytes[below(Self.interestingBytes.count)]
        case 2:
            bytes[position] = UInt8(truncatingIfNeeded: next())
        case 3:
            // A binary plist's trailer: sizes, object count, top object, offset table offset.
            let trailerByte = max(0, bytes.count - 32) + below(min(32, bytes.count))
            bytes[trailerByte] = Self.interestingBytes[below(Self.interestingBytes.count)]
        case 4:
            // Copy a byte from elsewhere: offset tables and references then point at other
            // objects, which makes shared and cyclic structure out of trees.
            bytes[position] = bytes[below(bytes.count)]
        case 5:
            bytes.removeSubrange(position..<min(bytes.count, position + 1 + below(16)))
        case 6:
            let length = 1 + below(min(64, bytes.count - position))
            let chunk = Array(bytes[position..<(position + length)])
            bytes.insert(contentsOf: chunk, at: below(bytes.count + 1))
        case 7:
            bytes.removeSubrange(below(bytes.count + 1)...)
            if bytes.isEmpty { bytes = [UInt8(truncatingIfNeeded: next())] }
        case 8:
            guard !other.isEmpty else { return }
            let from = below(other.count)
            let chunk = other[from..<min(other.count, from + 1 + below(128))]
            bytes.insert(contentsOf: chunk, at: position)
        case 9:
            bytes.insert(contentsOf: Self.tokens[below(Self.tokens.count)].utf8, at: position)
        default:
            // Write a big-endian number of a random width over the bytes (counts, offsets).
            let width = 1 << below(4)
            let value = next() >> UInt64(below(64))
            for index in 0..<width where position + index < bytes.count {
                bytes[position + index] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - index)))
            }
        }
    }
}
