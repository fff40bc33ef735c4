/// Unsigned LEB128 varints, the encoding Foundation's keyed archives use for the bytes of
/// NSIndexSet's `NSRangeData`, NSIndexPath's `NSIndexPathData` and NSAttributedString's
/// `NSAttributeInfo`: seven bits a byte, low bits first, the high bit set on every byte but a
/// value's last.
///
/// Only the *canonical* encoding is read: each value in the fewest bytes (no trailing zero
/// groups), within 0 … 2^64 − 1, and nothing after the last value. For bytes read that way,
/// `encode(decode(bytes)) == bytes`; any other bytes are left to the caller as they are, so no
/// byte is lost to a readable form.
enum Varint {
    /// The values of `bytes` read as consecutive varints, or nil when the bytes are not
    /// exactly the canonical encoding of a list of values (an empty list for no bytes).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt64]? {
        var values: [UInt64] = []
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var length = 0
        for byte in bytes {
            let group = UInt64(byte & 0x7F)
            // The tenth byte holds bit 63 alone; anything more is past 2^64 − 1.
            if shift == 63, group > 1 { return nil }
            value |= group << shift
            length += 1
            if byte & 0x80 != 0 {
                shift += 7
                if shift > 63 { return nil }
                continue
            }
            // A last byte of zero after others is a group the minimal encoding leaves out.
            if group == 0, length > 1 { return nil }
            values.append(value)
            (value, shift, length) = (0, 0, 0)
        }
        return length == 0 ? values : nil
    }

    /// The canonical encoding of `values`, appended to `bytes`.
    static func encode(_ values: [UInt64], into bytes: inout [UInt8]) {
        for value in values {
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }
    }
}
