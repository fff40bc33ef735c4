extension BinaryPlistView {
    /// The text of string object `ref` (ASCII or big-endian UTF-16; an unpaired surrogate
    /// reads as U+FFFD), or nil when it is not a string.
    func text(of ref: Int) -> String? {
        let header = header(of: ref)
        switch header.kind {
        case .asciiString:
            return String(decoding: payload(header), as: UTF8.self)
        case .utf16String:
            let bytes = payload(header)
            return String(decoding: (0..<header.count).lazy.map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }, as: UTF16.self)
        default:
            return nil
        }
    }
}
