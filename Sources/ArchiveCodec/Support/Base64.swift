/// Standard base64 (RFC 4648, with padding), strict on input: no whitespace, no stray
/// characters, correct padding. Lenient decoding would let two different JSON texts map to
/// one archive, and a typo would silently become different bytes.
package enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](filledWith: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Per place in a group of four characters (256 entries each): each character's six bits
    /// shifted to where that place puts them in the group's 24 bits, or all bits set for a
    /// character outside the alphabet (bit 31 flags it). 4 KB, made once.
    private static let placedDigits: [UInt32] = [UInt32](unsafeUninitializedCapacity: 1024) { table, count in
        for place in 0..<4 {
            for character in 0..<256 {
                let digit = decodeTable[character]
                table.initializeElement(at: place << 8 | character, to: digit == 0xFF ? UInt32.max : UInt32(digit) << (18 - 6 * place))
            }
        }
        count = 1024
    }

    /// The base64 text of `bytes`, for text written outside a document (archive-tool's
    /// `fileBase64`, a file name's bytes).
    package static func text(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { encode($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Length of the base64 text of `count` bytes.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    static func encode(_ data: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: encodedCount(data.count)))
        out.withUnsafeMutableBufferPointer { encode(data, to: $0.baseAddress! + start) }
    }

    /// The two characters of every 12 bits, first character in the low byte: a group of three
    /// bytes is written with two lookups and one four-byte store, not four lookups and stores
    /// (data values are most of a document of nested payloads). 8 KB, made once, row by row
    /// (made through `map` it cost a process 0.1 M instructions, a tenth of a small file's
    /// decode).
    private static let pairs: [UInt16] = [UInt16](unsafeUninitializedCapacity: 4096) { table, count in
        alphabet.withUnsafeBufferPointer { alphabet in
            for first in 0..<64 {
                let low = UInt16(alphabet[first])
                for second in 0..<64 { table.initializeElement(at: first << 6 | second, to: low | UInt16(alphabet[second]) << 8) }
            }
        }
        count = 4096
    }

    /// Writes the `encodedCount(data.count)` bytes of `data`'s base64 text at `out`.
    static func encode(_ data: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) {
        pairs.withUnsafeBufferPointer { pairs in
            var index = 0
            var at = UnsafeMutableRawPointer(out)
            let count = data.count
            // Six bytes at a time while eight can be loaded: their 48 bits, four pairs of
            // characters, one eight-byte store.
            if let bytes = data.baseAddress {
                let raw = UnsafeRawPointer(bytes)
                let table = pairs.baseAddress!
                while index + 8 <= count {
                    let word = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    let text =
                        UInt64(table[Int(truncatingIfNeeded: word &>> 52)])
                        | UInt64(table[Int(truncatingIfNeeded: word &>> 40 & 0xFFF)]) &<< 16
                        | UInt64(table[Int(truncatingIfNeeded: word &>> 28 & 0xFFF)]) &<< 32
                        | UInt64(table[Int(truncatingIfNeeded: word &>> 16 & 0xFFF)]) &<< 48
                    at.storeBytes(of: text.littleEndian, as: UInt64.self)
                    at += 8
                    index += 6
                }
            }
            while index + 3 <= count {
                let value = Int(data[index]) << 16 | Int(data[index + 1]) << 8 | Int(data[index + 2])
                let text = UInt32(pairs[value >> 12]) | UInt32(pairs[value & 0xFFF]) << 16
                at.storeBytes(of: text.littleEndian, as: UInt32.self)
                at += 4
                index += 3
            }
            alphabet.withUnsafeBufferPointer { table in
                let at = at.assumingMemoryBound(to: UInt8.self)
                let rest = count - index
                if rest == 1 {
                    let value = UInt32(data[index]) << 16
                    at[0] = table[Int(value >> 18)]
                    at[1] = table[Int(value >> 12 & 0x3F)]
                    at[2] = UInt8(ascii: "=")
                    at[3] = UInt8(ascii: "=")
                } else if rest == 2 {
                    let value = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8
                    at[0] = table[Int(value >> 18)]
                    at[1] = table[Int(value >> 12 & 0x3F)]
                    at[2] = table[Int(value >> 6 & 0x3F)]
                    at[3] = UInt8(ascii: "=")
                }
            }
        }
    }

    /// The bytes of `text`, or the offset of its first bad character.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], bad: Int?) {
        var bad: Int?
        var written = 0
        var bytes = [UInt8](count: text.count / 4 * 3, placeholder: 0) { buffer in
            (written, bad) = decode(text, to: buffer.baseAddress)
        }
        bytes.removeLast(bytes.count - written)
        return (bytes, bad)
    }

    /// Decodes `text` into `out`, which has room for `text.count / 4 * 3` bytes (nil only
    /// when that is 0). Returns how many bytes it wrote and, on failure, the offset of the
    /// first bad character.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>?) -> (count: Int, bad: Int?) {
        let count = text.count
        guard count % 4 == 0 else { return (0, count) }
        guard count > 0, let out else { return (0, nil) }
        let padding = text[count - 1] != UInt8(ascii: "=") ? 0 : text[count - 2] != UInt8(ascii: "=") ? 1 : 2
        return decodeTable.withUnsafeBufferPointer { table -> (count: Int, bad: Int?) in
            var index = 0
            var written = 0
            // Every group before the last has four digits: its four characters loaded at once,
            // each looked up with its bits already in place (`placedDigits`), one check of the
            // four finding any bad one (the first of them is then found as before), and its three bytes stored
            // as one four-byte word (the byte past them is the next group's, rewritten then;
            // the last group's slot is still ahead, so the word stays in `out`).
            let characters = UnsafeRawPointer(text.baseAddress!)
            let bytesOut = UnsafeMutableRawPointer(out)
            let broken = placedDigits.withUnsafeBufferPointer { (placedDigits) -> Int? in
                let placed = placedDigits.baseAddress!
                while index + 4 < count {
                    let four = UInt32(littleEndian: characters.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                    let value =
                        placed[Int(truncatingIfNeeded: four & 0xFF)] | placed[256 | Int(truncatingIfNeeded: four &>> 8 & 0xFF)]
                        | placed[512 | Int(truncatingIfNeeded: four &>> 16 & 0xFF)] | placed[768 | Int(truncatingIfNeeded: four &>> 24)]
                    guard value & 0x8000_0000 == 0 else { return index }
                    (bytesOut + written).storeBytes(of: (value &<< 8).bigEndian, as: UInt32.self)
                    written += 3
                    index += 4
                }
                return nil
            }
            if let broken { return (0, (0..<4).first { table[Int(text[broken + $0])] == 0xFF }! + broken) }
            var value: UInt32 = 0
            for offset in 0..<4 {
                if offset >= 4 - padding {
                    value <<= 6
                    continue
                }
                let digit = table[Int(text[index + offset])]
                if digit == 0xFF { return (0, index + offset) }
                value = value << 6 | UInt32(digit)
            }
            // Bits under the padding must be zero, or two texts would mean one value.
            if padding == 1 && value & 0xFF != 0 { return (0, index + 2) }
            if padding == 2 && value & 0xFFFF != 0 { return (0, index + 1) }
            out[written] = UInt8(truncatingIfNeeded: value >> 16)
            if padding < 2 { out[written + 1] = UInt8(truncatingIfNeeded: value >> 8) }
            if padding < 1 { out[written + 2] = UInt8(truncatingIfNeeded: value) }
            return (written + 3 - padding, nil)
        }
    }
}
