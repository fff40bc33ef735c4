/// Standard base64 (RFC 4648, with padding), strict on input: no whitespace, no stray
/// characters, correct padding. Lenient decoding would let two different JSON texts map to
/// one archive, and a typo would silently become different bytes.
enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Length of the base64 text of `count` bytes.
    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    static func encode(_ data: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: encodedCount(data.count)))
        out.withUnsafeMutableBufferPointer { encode(data, to: $0.baseAddress! + start) }
    }

    /// Writes the `encodedCount(data.count)` bytes of `data`'s base64 text at `out`.
    static func encode(_ data: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) {
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            var at = out
            let count = data.count
            while index + 3 <= count {
                let value = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2])
                at[0] = table[Int(value >> 18)]
                at[1] = table[Int(value >> 12 & 0x3F)]
                at[2] = table[Int(value >> 6 & 0x3F)]
                at[3] = table[Int(value & 0x3F)]
                at += 4
                index += 3
            }
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

    /// Decodes `text`, appending to `out`. Returns the offset of the first bad character,
    /// or nil on success.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Int? {
        let count = text.count
        guard count % 4 == 0 else { return count }
        var padding = 0
        if count > 0 && text[count - 1] == UInt8(ascii: "=") { padding += 1 }
        if count > 1 && text[count - 2] == UInt8(ascii: "=") { padding += 1 }
        out.reserveCapacity(out.count + count / 4 * 3)
        return decodeTable.withUnsafeBufferPointer { table -> Int? in
            var index = 0
            while index < count {
                let isLast = index + 4 == count
                var value: UInt32 = 0
                for offset in 0..<4 {
                    let char = text[index + offset]
                    if isLast && offset >= 4 - padding {
                        value <<= 6
                        continue
                    }
                    let digit = table[Int(char)]
                    if digit == 0xFF { return index + offset }
                    value = value << 6 | UInt32(digit)
                }
                out.append(UInt8(value >> 16 & 0xFF))
                if !isLast || padding < 2 { out.append(UInt8(value >> 8 & 0xFF)) }
                if !isLast || padding < 1 { out.append(UInt8(value & 0xFF)) }
                if isLast {
                    // Bits under the padding must be zero, or two texts would mean one value.
                    if padding == 1 && value & 0xFF != 0 { return index + 2 }
                    if padding == 2 && value & 0xFFFF != 0 { return index + 1 }
                }
                index += 4
            }
            return nil
        }
    }
}
