/// Reading the mapping's typed values out of a `JSONDocument`: times, non-finite reals,
/// base64 data and UUID text. Each refuses a value of the wrong shape with an error at its
/// node.
extension JSONDocument {
    /// A real: a JSON number, or `{"$real": …}` text for NaN and the infinities.
    func nonFinite(_ index: Int) throws(CodecError) -> Double {
        let node = node(index)
        if node.kind == .real { return Double(bitPattern: node.bits) }
        guard node.kind == .string, let value = NonFiniteReal.value(stringValue(index)) else {
            throw invalid("$real takes \"NaN\", \"NaN:\" and 16 hex digits of a NaN's bits, \"Infinity\" or \"-Infinity\"", at: index)
        }
        return value
    }

    /// A time given as ISO 8601 text, or seconds since 2001-01-01 as a number.
    func time(_ index: Int) throws(CodecError) -> Double {
        let node = node(index)
        switch node.kind {
        case .string:
            guard let value = DateText.parse(string(index)) else {
                throw invalid("expected a time like 2001-01-01T00:00:00Z (optionally with up to 9 fraction digits)", at: index)
            }
            return value
        case .int: return Double(Int64(bitPattern: node.bits))
        case .uint: return Double(node.bits)
        case .real: return Double(bitPattern: node.bits)
        case .object:
            if let real = singleMember(index, named: "$real") { return try nonFinite(real.value) }
            throw invalid("expected a time as text or seconds since 2001", at: index)
        default: throw invalid("expected a time as text or seconds since 2001", at: index)
        }
    }

    /// The bytes of base64 text (`$data`, `$bytes`).
    func base64Bytes(_ index: Int) throws(CodecError) -> [UInt8] {
        guard node(index).kind == .string else { throw invalid("expected base64 text", at: index) }
        var bytes: [UInt8] = []
        let bad = string(index).withUnsafeBufferPointer { Base64.decode($0, into: &bytes) }
        if let bad { throw invalid("invalid base64 at character \(bad)", at: index) }
        return bytes
    }

    /// The 16 bytes of UUID text like E621E1F8-C36C-495A-93FC-0C247A3E6E5F.
    func uuidBytes(_ index: Int) throws(CodecError) -> [UInt8] {
        guard node(index).kind == .string, let bytes = Self.uuidBytes(string(index)) else {
            throw invalid("$uuid takes text like E621E1F8-C36C-495A-93FC-0C247A3E6E5F", at: index)
        }
        return bytes
    }

    static func uuidBytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
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
