/// UTF-8 encoding and validation shared by the readers and writers.
enum UTF8Encoding {
    /// Writes `scalar` (at most U+10FFFF) as UTF-8 at `out`, which has room for four
    /// bytes; returns how many it wrote.
    @inline(__always)
    static func write(scalar: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case ..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case ..<0x800:
            out[0] = UInt8(0xC0 | (scalar >> 6))
            out[1] = UInt8(0x80 | (scalar & 0x3F))
            return 2
        case ..<0x10000:
            out[0] = UInt8(0xE0 | (scalar >> 12))
            out[1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[2] = UInt8(0x80 | (scalar & 0x3F))
            return 3
        default:
            out[0] = UInt8(0xF0 | (scalar >> 18))
            out[1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
            out[2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[3] = UInt8(0x80 | (scalar & 0x3F))
            return 4
        }
    }

    static func append(scalar: UInt32, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4) { buffer in
            let count = write(scalar: scalar, to: buffer.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Length of the valid UTF-8 sequence starting at `index`, or nil if it is not valid
    /// (overlong forms, surrogates and values past U+10FFFF are invalid).
    @inline(__always)
    static func validSequenceLength(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = text[index]
        let remaining = text.count - index
        func cont(_ offset: Int) -> UInt8? {
            offset < remaining ? text[index + offset] : nil
        }
        switch lead {
        case 0x00...0x7F:
            return 1
        case 0xC2...0xDF:
            guard let b1 = cont(1), b1 & 0xC0 == 0x80 else { return nil }
            return 2
        case 0xE0...0xEF:
            guard let b1 = cont(1), let b2 = cont(2), b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return nil }
            if lead == 0xE0 && b1 < 0xA0 { return nil }
            if lead == 0xED && b1 >= 0xA0 { return nil }
            return 3
        case 0xF0...0xF4:
            guard let b1 = cont(1), let b2 = cont(2), let b3 = cont(3),
                b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80, b3 & 0xC0 == 0x80
            else { return nil }
            if lead == 0xF0 && b1 < 0x90 { return nil }
            if lead == 0xF4 && b1 >= 0x90 { return nil }
            return 4
        default:
            return nil
        }
    }

    /// Offset of the first invalid byte, or nil when all of `text` is valid UTF-8.
    ///
    /// ASCII runs are skipped eight bytes at a time (one unaligned load, one mask test), so
    /// text that is mostly ASCII costs about a test per word rather than per byte.
    static func firstInvalidOffset(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = text.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let count = text.count
        var index = 0
        while index < count {
            // Eight bytes lie within the text: `index + 8 <= count` is checked first.
            while index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { index += 8 }
            guard index < count else { break }
            if text[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = validSequenceLength(text, at: index) else { return index }
            index += length
        }
        return nil
    }
}
