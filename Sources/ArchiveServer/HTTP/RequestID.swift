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
