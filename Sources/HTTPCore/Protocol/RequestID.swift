#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Request ids, sent back in `X-Request-Id` on every reply and written in every access line, so
/// that a client's report and the server's log meet. A client's own id is kept when it is a
/// short token of safe characters; otherwise one is made here, so that nothing a client sends
/// is echoed into a reply or a log line that a browser, a terminal or a log viewer would read as
/// markup or escapes.
package enum RequestID {
    /// Longest id taken from a client: enough for a UUID, a W3C trace id with its span, or a
    /// base64 digest. Longer ones are replaced, not cut (a cut id would match nothing the client
    /// logged).
    package static let maximumLength = 64

    /// `value` when it is 1–64 characters, each an ASCII letter, digit or one of `-_.:+/=@`
    /// (the alphabets of UUIDs, trace ids, hex and base64), else nil.
    package static func accepted(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maximumLength, value.utf8.allSatisfy(isTokenByte) else { return nil }
        return value
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "/"),
            UInt8(ascii: "="), UInt8(ascii: "@"):
            true
        default: false
        }
    }
}
