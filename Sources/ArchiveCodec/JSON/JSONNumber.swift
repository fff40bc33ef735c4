/// A JSON number as the mapping reads it: an integer that fits 64 bits signed, one that
/// needs the unsigned range, or a real.
enum JSONNumber: Equatable {
    case signed(Int64)
    case unsigned(UInt64)
    case real(Double)

    /// Reads and checks the number at `start` against JSON's grammar; returns it and where
    /// it ends. Integers outside −2^63 … 2^64−1 and reals outside a double's range are
    /// refused, not rounded.
    @inline(__always)
    static func read(_ source: UnsafeBufferPointer<UInt8>, at start: Int) throws(CodecError) -> (number: JSONNumber, end: Int) {
        if let short = shortInteger(source, at: start) { return (.signed(short.value), short.end) }
        return try readInFull(source, at: start)
    }

    /// Checks the number at `start` as `read` does (the same numbers refused, with the same
    /// errors); returns where it ends.
    @inline(__always)
    static func end(_ source: UnsafeBufferPointer<UInt8>, at start: Int) throws(CodecError) -> Int {
        if let short = shortInteger(source, at: start) { return short.end }
        if let plain = plainDecimalEnd(source, at: start) { return plain }
        return try readInFull(source, at: start).end
    }

    /// Where the number at `start` ends when it is a decimal that `read` accepts whatever its
    /// digits: an optional `-`, `0` or 1 to 308 digits without a leading zero, a point and at
    /// least one digit, no exponent. It is then below 10^308, inside a double's range, so `end`
    /// need not convert it (`read` converts it when its value is asked: a real of 16 to 19
    /// digits by `exactDecimal`, a longer one by `Double(String)`). Nil for anything else.
    @inline(__always)
    private static func plainDecimalEnd(_ source: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        let bytes = source.baseAddress!
        var position = start
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        var ignored: UInt64 = 0
        let first = position
        position = readDigits(source, from: position, into: &ignored)
        let integerDigits = position - first
        guard integerDigits > 0, integerDigits <= 308, integerDigits == 1 || bytes[first] != 0x30,
            position < source.count, bytes[position] == UInt8(ascii: ".")
        else { return nil }
        position += 1
        let fraction = position
        position = readDigits(source, from: position, into: &ignored)
        guard position > fraction, position == source.count || !isExponentMark(bytes[position]) else { return nil }
        return position
    }

    /// The integer at `start` when it is one that `readInFull` would return at once: an
    /// optional `-`, then `0` or 1 to 18 digits without a leading zero, not followed by a
    /// point or an exponent. Nil for anything else, which `readInFull` then reads (or
    /// refuses) itself: this only spares the common case its checks (the digits read by
    /// `readDigits`, a word at a time).
    @inline(__always)
    private static func shortInteger(_ source: UnsafeBufferPointer<UInt8>, at start: Int) -> (value: Int64, end: Int)? {
        let bytes = source.baseAddress!
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        var digits: UInt64 = 0
        position = Self.readDigits(source, from: position, into: &digits)
        let magnitude = Int64(bitPattern: digits)
        let count = position - first
        guard count > 0, count <= 18, count == 1 || bytes[first] != 0x30 else { return nil }
        if position < source.count, continuesNumber(bytes[position]) { return nil }
        return (negative ? -magnitude : magnitude, position)
    }

    /// `read` beyond its common case: every number JSON allows, and every refusal.
    @inline(never)
    private static func readInFull(_ source: UnsafeBufferPointer<UInt8>, at start: Int) throws(CodecError) -> (number: JSONNumber, end: Int) {
        var position = start
        func fail(_ message: String) -> CodecError { CodecError(.malformedJSON, message, byteOffset: start) }
        func digits() -> Int {
            let first = position
            while position < source.count, source[position] >= 0x30, source[position] <= 0x39 { position += 1 }
            return position - first
        }
        let negative = source[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < source.count, source[position] >= 0x30, source[position] <= 0x39 else { throw fail("invalid number") }
        // Integer digits, their value taken on the way (it wraps past 18 digits, where it is
        // not used): most numbers end here.
        var magnitude: UInt64 = 0
        let integerDigits: Int
        if source[position] == 0x30 {
            position += 1
            integerDigits = 1
            if position == source.count || !Self.continuesNumber(source[position]) { return (.signed(0), position) }
        } else {
            let first = position
            position = Self.readDigits(source, from: position, into: &magnitude)
            integerDigits = position - first
            if integerDigits <= 18, position == source.count || !Self.continuesNumber(source[position]) {
                let value = Int64(bitPattern: magnitude)
                return (.signed(negative ? -value : value), position)
            }
        }
        var isReal = false
        if position < source.count, source[position] == UInt8(ascii: ".") {
            position += 1
            // The fraction's digits continue the integer's value: all of them, point left
            // out, make the decimal's mantissa.
            var mantissa = magnitude
            let first = position
            position = Self.readDigits(source, from: position, into: &mantissa)
            let fractionDigits = position - first
            guard fractionDigits > 0 else { throw fail("invalid number: digits must follow '.'") }
            isReal = true
            if integerDigits + fractionDigits <= 19, position == source.count || !Self.isExponentMark(source[position]) {
                let value =
                    integerDigits + fractionDigits <= 15
                    ? Self.shortDecimal(mantissa: mantissa, fractionDigits: fractionDigits)
                    : Self.exactDecimal(mantissa: mantissa, fractionDigits: fractionDigits)
                return (.real(negative ? -value : value), position)
            }
        }
        if position < source.count, Self.isExponentMark(source[position]) {
            position += 1
            if position < source.count, source[position] == UInt8(ascii: "+") || source[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw fail("invalid number: digits must follow the exponent") }
            isReal = true
        }
        // Here: a real, or an integer of more than 18 digits (shorter ones returned above).
        let text = String(decoding: UnsafeBufferPointer(rebasing: source[start..<position]), as: UTF8.self)
        if isReal {
            guard let value = Double(text), value.isFinite else {
                throw CodecError(.invalidDocument, "real \(text.prefix(40)) is outside the range of a double", byteOffset: start)
            }
            return (.real(value), position)
        }
        if let value = Int64(text) { return (.signed(value), position) }
        if !negative, let value = UInt64(text) { return (.unsigned(value), position) }
        throw CodecError(.invalidDocument, "integer \(text.prefix(40)) is outside −2^63 … 2^64−1", byteOffset: start)
    }

    /// Reads the ASCII digits from `position` on into `value` (each one as `value * 10 +
    /// digit`, wrapping past 19 digits: callers count the digits and use the value only when
    /// it fits); returns where the digits end.
    ///
    /// Eight bytes at a time while eight remain: the digits that start the word are found
    /// and converted with a few multiplications, not a test and a multiplication per digit
    /// (most numbers of an archive's JSON are 4 to 12 digits long, read once when parsed and
    /// once when encoded). A byte is a digit when its high nibble is 3 and adding 6 keeps it
    /// so; no byte before the first non-digit carries into the next, so the first flagged
    /// byte is the first non-digit.
    @inline(__always)
    static func readDigits(_ source: UnsafeBufferPointer<UInt8>, from start: Int, into value: inout UInt64) -> Int {
        let base = source.baseAddress!
        var position = start
        while position &+ 8 <= source.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let flags =
                ((word & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
                | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
            // No flag (all eight digits): 64 trailing zeros, a count of 8.
            let count = flags.trailingZeroBitCount &>> 3
            guard count > 0 else { return position }
            // The digits moved to the word's top, as eight digits with leading zeros, then
            // paired, paired again and again: the value of the first byte's digit first.
            var digits = (word & 0x0F0F_0F0F_0F0F_0F0F) &<< UInt64(truncatingIfNeeded: (8 &- count) &* 8)
            digits = (digits &* 10 &+ (digits &>> 8)) & 0x00FF_00FF_00FF_00FF
            digits = (digits &* 100 &+ (digits &>> 16)) & 0x0000_FFFF_0000_FFFF
            digits = (digits &* 10_000 &+ (digits &>> 32)) & 0xFFFF_FFFF
            value = value &* powerOfTen(count) &+ digits
            position &+= count
            guard count == 8 else { return position }
        }
        while position < source.count {
            let digit = base[position] &- 0x30
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            position &+= 1
        }
        return position
    }

    /// 10^`count`, for `count` in 1 … 8 (a table of constants, not an array to look up).
    @inline(__always)
    private static func powerOfTen(_ count: Int) -> UInt64 {
        switch count {
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }

    /// Whether `byte` after an integer's digits makes it a real (a point or an exponent).
    @inline(__always)
    private static func continuesNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || isExponentMark(byte)
    }

    @inline(__always)
    private static func isExponentMark(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    /// Powers of ten a double holds exactly.
    private static let exactPowersOfTen: [Double] = (0...15).map { exponent in (0..<exponent).reduce(1.0) { value, _ in value * 10 } }

    /// The magnitude of a decimal without exponent whose digits, point left out, make
    /// `mantissa`, `fractionDigits` of them after the point, when it has at most 15 digits
    /// (the caller checks). Then the digits make an integer below 2^53 and the divisor a
    /// power of ten a double holds exactly, so one division, rounded once, gives the double
    /// nearest the decimal: what `Double(String)` gives, without building a string and
    /// calling `strtod` (a game save's ratings: once when parsed, once when encoded).
    @inline(__always)
    private static func shortDecimal(mantissa: UInt64, fractionDigits: Int) -> Double {
        Double(mantissa) / exactPowersOfTen[fractionDigits]
    }

    /// The double nearest `mantissa / 10^fractionDigits` (a tie to the even one), for any
    /// `mantissa` and `fractionDigits` in 1 … 19: a decimal of 16 to 19 digits without
    /// exponent, as a full-precision real is written (`0.7254901960784313`), which
    /// `shortDecimal` cannot take (its digits pass 2^53) and `Double(String)` converts in over a
    /// thousand instructions. Exact by integer arithmetic: the quotient of `mantissa · 2^shift`
    /// by the power of ten is taken to 54 or 55 bits (one 128-by-64-bit division), its top 53
    /// bits are the double's significand, the next bit and whether anything is left below it
    /// round it, and `2^-shift` scales it back. For a mantissa other than 0 the result is at
    /// least 10^-19 and below 2^64, so always a normal double.
    static func exactDecimal(mantissa: UInt64, fractionDigits: Int) -> Double {
        guard mantissa != 0 else { return 0 }
        let divisor = PowersOfTen.integers[fractionDigits]
        let mantissaBits = UInt64.bitWidth - mantissa.leadingZeroBitCount
        let divisorBits = UInt64.bitWidth - divisor.leadingZeroBitCount
        // mantissa · 2^shift / divisor lies in (2^53, 2^55): its floor has 54 or 55 bits.
        let shift = 54 + divisorBits - mantissaBits
        let quotient: UInt64
        let remainder: UInt64
        if shift >= 0 {
            // mantissa · 2^shift has 54 + divisorBits ≤ 118 bits; the quotient fits 64 bits.
            let high = shift > 64 ? mantissa << (shift - 64) : mantissa >> (64 - shift)
            let low = mantissa << shift
            (quotient, remainder) = divisor.dividingFullWidth((high: high, low: low))
        } else {
            // divisor · 2^-shift has mantissaBits − 54 ≤ 10 bits.
            (quotient, remainder) = mantissa.quotientAndRemainder(dividingBy: divisor << -shift)
        }
        let extra = quotient >> 54  // 1 for a quotient of 55 bits
        var significand = quotient >> (extra + 1)
        let roundBit = (quotient >> extra) & 1
        let sticky = remainder != 0 || quotient & extra != 0
        if roundBit == 1 && (sticky || significand & 1 == 1) { significand += 1 }
        return Double(sign: .plus, exponent: Int(extra) + 1 - shift, significand: Double(significand))
    }
}
