/// What an input is, told from its first bytes alone: enough for a front end to say "this is
/// JSON, use encode" or "this is gzip, say so" when a conversion fails, without parsing it.
/// Only ever asked after a failure, so a conversion that succeeds is never second-guessed.
public enum InputKind: Equatable, Sendable {
    /// `bplist0…`: a binary property list.
    case binaryPropertyList
    /// An XML declaration or a `<plist` / `<!DOCTYPE plist` opening.
    case xmlPropertyList
    /// An NSArchiver typedstream's header (`streamtyped` or `typedstream` after its version).
    case typedStream
    /// A JSON object or array, possibly behind whitespace.
    case json
    /// JSON behind a UTF-8 byte order mark, which JSON does not allow.
    case jsonWithByteOrderMark
    /// A gzip member (RFC 1952).
    case gzip
    /// A zlib stream (RFC 1950), what HTTP calls deflate, with the 32 KiB window every zlib
    /// writer uses (78 xx). Smaller windows are left out: text starting `Hj` or `hb` has a valid
    /// header of one, and a guess is only worth making where it is rarely wrong.
    case zlib
    case unknown

    public init(of bytes: some Collection<UInt8>) {
        // The first 64 bytes, copied to the stack: asked of every data value a nested decode
        // meets, where an array per value was most of the cost.
        self = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            var count = 0
            for byte in bytes.prefix(64) {
                buffer[count] = byte
                count += 1
            }
            return InputKind(head: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    private init(head: UnsafeBufferPointer<UInt8>) {
        func starts(with prefix: StaticString) -> Bool {
            head.count >= prefix.utf8CodeUnitCount && ByteStringTable.bytesEqual(head.baseAddress!, prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        }
        if head.count >= 2, head[0] == 0x1F, head[1] == 0x8B {
            self = .gzip
        } else if head.count >= 2, head[0] == 0x78, (UInt16(head[0]) << 8 | UInt16(head[1])) % 31 == 0 {
            self = .zlib
        } else if starts(with: "bplist0") {
            self = .binaryPropertyList
        } else if TypedStreamDocument.starts(head) {
            self = .typedStream
        } else if head.count >= 3, head[0] == 0xEF, head[1] == 0xBB, head[2] == 0xBF {
            let rest = InputKind(head: UnsafeBufferPointer(rebasing: head[3...]))
            self = rest == .json ? .jsonWithByteOrderMark : rest
        } else if let first = head.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["): self = .json
            case UInt8(ascii: "<"): self = .xmlPropertyList
            default: self = .unknown
            }
        } else {
            self = .unknown
        }
    }
}
