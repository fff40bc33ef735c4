/// Reading the mapping's typed values out of a `JSONDocument`: times, non-finite reals,
/// base64 data and UUID text. Each refuses a value of the wrong shape with an error at that
/// value.
extension JSONDocument {
    /// A real: a JSON real, or what `{"$real": …}` holds: `"NaN"`, `"NaN:"` and 16 hex digits
    /// of a NaN's bits, `"Infinity"`, `"-Infinity"`, or a JSON number's text (`"1.0"`, `"-0.0"`,
    /// as `exactNumbers` writes the reals that tools would turn into integers).
    func wrappedReal(_ value: Value) throws(CodecError) -> Double {
        if kind(value) == .number, case .real(let real) = number(value) { return real }
        guard kind(value) == .string, let real = withString(value, { Self.realText($0) }) else {
            throw invalid(
                "$real takes a number's text (\"1.0\", \"-0.0\"), \"NaN\", \"NaN:\" and 16 hex digits of a NaN's bits, \"Infinity\" or \"-Infinity\"", at: value)
        }
        return real
    }

    /// The real `text` spells: `NonFiniteReal` text, or one whole JSON number.
    static func realText(_ text: some Collection<UInt8>) -> Double? {
        let bytes = Array(text)
        if let nonFinite = NonFiniteReal.value(String(decoding: bytes, as: UTF8.self)) { return nonFinite }
        guard let first = bytes.first, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Double? in
            guard let (number, end) = try? JSONNumber.read(buffer, at: 0), end == buffer.count else { return nil }
            switch number {
            case .real(let real): return real
            case .signed(let integer): return integer == 0 && first == UInt8(ascii: "-") ? -0.0 : Double(exactly: integer)
            case .unsigned(let integer): return Double(exactly: integer)
            }
        }
    }

    /// The integer of `{"$integer": "…"}` text: decimal digits with an optional `-`, within
    /// −2^63 … 2^64 − 1 (what a plist integer holds).
    func exactInteger(_ value: Value) throws(CodecError) -> PlistInteger {
        guard kind(value) == .string else { throw invalid("$integer takes an integer as decimal text, such as \"-9223372036854775808\"", at: value) }
        let text = stringValue(value)
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw invalid("$integer takes an integer as decimal text, such as \"-9223372036854775808\"", at: value)
        }
        if let signed = Int64(text) { return PlistInteger(signed: signed) }
        if let unsigned = UInt64(text) { return PlistInteger(unsigned: unsigned) }
        throw invalid("$integer \(TextExcerpt.quote(text)) is outside the integers a plist holds (-2^63 … 2^64 - 1)", at: value)
    }

    /// A time given as ISO 8601 text, or seconds since 2001-01-01 as a number.
    func time(_ value: Value) throws(CodecError) -> Double {
        switch kind(value) {
        case .string:
            guard let time = withString(value, { DateText.parse($0) }) else {
                throw invalid("expected a time like 2001-01-01T00:00:00Z (optionally with up to 9 fraction digits)", at: value)
            }
            return time
        case .number:
            switch number(value) {
            case .signed(let seconds): return Double(seconds)
            case .unsigned(let seconds): return Double(seconds)
            case .real(let seconds): return seconds
            }
        case .object:
            if let real = singleMember(value, named: MappingKeys.real) { return try wrappedReal(real.value) }
            throw invalid("expected a time as text or seconds since 2001", at: value)
        default: throw invalid("expected a time as text or seconds since 2001", at: value)
        }
    }

    /// The bytes of base64 text (`$data`, `$bytes`).
    func base64Bytes(_ value: Value) throws(CodecError) -> [UInt8] {
        guard kind(value) == .string else { throw invalid("expected base64 text", at: value) }
        let (bytes, bad) = withString(value) { Base64.decode($0) }
        if let bad { throw invalid("invalid base64 at character \(bad)", at: value) }
        return bytes
    }

    /// Calls `body` with the bytes `base64Bytes` reads (refusing what it refuses, with the same
    /// errors), decoded into a buffer of this call's instead of an array: a game save's
    /// thousands of short `$bytes` each paid more for an array's allocation than for their
    /// decoding. Up to a kilobyte goes on the stack (whatever the thread's stack, as in
    /// `withString`), more on the heap.
    func withBase64Bytes<Result>(
        _ value: Value, _ body: (UnsafeBufferPointer<UInt8>) throws(CodecError) -> Result
    ) throws(CodecError) -> Result {
        guard kind(value) == .string else { throw invalid("expected base64 text", at: value) }
        // The closures hold `body` and `bad` only: one that held the document copied it (a
        // retain and a release of each of its arrays) at every call.
        var bad: Int?
        let result = try withString(value) { (text) throws(CodecError) -> Result? in
            let capacity = text.count / 4 * 3
            func decoded(into room: UnsafeMutablePointer<UInt8>) throws(CodecError) -> Result? {
                let (count, refused) = Base64.decode(text, to: room)
                bad = refused
                return refused == nil ? try body(UnsafeBufferPointer(start: room, count: count)) : nil
            }
            guard capacity > 1024 else {
                return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { (room) throws(CodecError) -> Result? in
                    try decoded(into: room.baseAddress!)
                }
            }
            let room = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            defer { room.deallocate() }
            return try decoded(into: room)
        }
        guard let result else { throw invalid("invalid base64 at character \(bad ?? 0)", at: value) }
        return result
    }

    /// The 16 bytes of UUID text like E621E1F8-C36C-495A-93FC-0C247A3E6E5F.
    func uuidBytes(_ value: Value) throws(CodecError) -> [UInt8] {
        guard kind(value) == .string, let bytes = withString(value, { Self.uuidBytes($0) }) else {
            throw invalid("$uuid takes text like E621E1F8-C36C-495A-93FC-0C247A3E6E5F", at: value)
        }
        return bytes
    }

    static func uuidBytes(_ text: some Collection<UInt8>) -> [UInt8]? {
        let chars = Array(text)
        guard chars.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        func hexValue(_ char: UInt8) -> UInt8? {
            switch char {
            case 0x30...0x39: return char - 0x30
            case 0x41...0x46: return char - 0x41 + 10
            case 0x61...0x66: return char - 0x61 + 10
            default: return nil
            }
        }
        while index < 36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard chars[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                continue
            }
            guard let high = hexValue(chars[index]), let low = hexValue(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
