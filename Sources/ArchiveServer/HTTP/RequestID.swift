#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Request ids, sent back in `X-Request-Id` on every reply and written in every access line, so
/// that a client's report and the server's log meet. A client's own id is kept when it is a
/// usable token; otherwise one is made here.
enum RequestID {
    /// Longest id taken from a client: longer ones are replaced, not cut (a cut id would match
    /// nothing the client logged).
    static let maximumLength = 128

    /// `value` when it is 1–128 visible ASCII characters (no spaces, quotes or backslashes,
    /// which log lines would have to escape), else nil.
    static func accepted(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maximumLength,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return value
    }
}

/// Makes ids unique within a process and, by a random prefix, across the replicas of a
/// service: `<12 hex digits of the process>-<loop>-<count>`. One per event loop, used only on
/// its thread (no lock, no system call per id).
struct RequestIDGenerator {
    private static let processPrefix: String = {
        var random = SystemRandomNumberGenerator()
        let bits = random.next() & 0xFFFF_FFFF_FFFF
        let hex = String(bits, radix: 16)
        return String(repeating: "0", count: 12 - hex.count) + hex
    }()
    private let prefix: String
    private var count: UInt64 = 0

    init(loop: Int) { prefix = "\(Self.processPrefix)-\(loop)-" }

    mutating func next() -> String {
        count &+= 1
        return prefix + String(count, radix: 16)
    }
}
