import ArchiveCodec
import HTTPCore

/// The content codings the service reads in request bodies (`Content-Encoding`) and writes in
/// replies (`Accept-Encoding`): gzip and deflate (RFC 9110 §8.4.1), both from zlib.
enum ContentCoding: String, Sendable, CaseIterable {
    case identity
    case gzip
    case deflate

    /// The value of `Accept-Encoding` sent with a 415 for a coding the service cannot read.
    static let acceptedList = "gzip, deflate"

    /// Why a request's `Content-Encoding` cannot be read.
    struct Unsupported: Error, Equatable {
        /// The header's value, as sent.
        var value: String
    }

    /// The coding of a request body from its `Content-Encoding` (nil or empty: identity).
    /// `x-gzip` is gzip (RFC 9110 §8.4.1.3); `identity` entries are ignored. One coding at
    /// most: a body encoded twice (`gzip, gzip`) is refused rather than unwrapped in layers,
    /// since no client sends one.
    static func ofRequest(contentEncoding: String?) throws(Unsupported) -> ContentCoding {
        guard let contentEncoding else { return .identity }
        let codings = contentEncoding.split(separator: ",").map { $0.trimmingCharacters().asciiLowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard let only = codings.first else { return .identity }
        guard codings.count == 1 else { throw Unsupported(value: contentEncoding) }
        switch only {
        case "gzip", "x-gzip": return .gzip
        case "deflate": return .deflate
        default: throw Unsupported(value: contentEncoding)
        }
    }

    /// The coding to write a reply in, from the request's `Accept-Encoding` (RFC 9110 §12.5.3):
    /// the acceptable coding with the highest weight, gzip before deflate before identity on a
    /// tie. `*` stands for every coding not named; a weight of 0 rules a coding out. Identity,
    /// when neither named nor covered by `*`, is acceptable but comes last: a client that names
    /// a coding at any weight wants it. No header, or nothing acceptable but identity: identity
    /// (the service never answers 406 for this).
    static func forReply(acceptEncoding: String?) -> ContentCoding {
        guard let acceptEncoding, !acceptEncoding.isEmpty else { return .identity }
        var weights: [String: Double] = [:]
        for member in acceptEncoding.split(separator: ",") {
            let parts = member.split(separator: ";").map { $0.trimmingCharacters().asciiLowercased() }
            guard let name = parts.first, !name.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                // A weight that is not a number in 0...1 makes the member unusable.
                weight = Double(parameter.dropFirst(2)).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
            }
            weights[name == "x-gzip" ? "gzip" : name] = weight
        }
        func weight(of coding: ContentCoding) -> Double {
            if let named = weights[coding.rawValue] { return named }
            if let any = weights["*"] { return any }
            return coding == .identity ? Double.leastNonzeroMagnitude : 0
        }
        var best = ContentCoding.identity
        var bestWeight = 0.0
        for coding in [ContentCoding.gzip, .deflate, .identity] {
            let candidate = weight(of: coding)
            if candidate > bestWeight {
                best = coding
                bestWeight = candidate
            }
        }
        return best
    }

    /// The coding `bytes` look to be in, whatever the request said (`InputKind`): gzip, or a
    /// zlib stream, which `deflate` names; nil for anything else.
    static func sniff(_ bytes: [UInt8]) -> ContentCoding? {
        switch InputKind(of: bytes) {
        case .gzip: .gzip
        case .zlib: .deflate
        default: nil
        }
    }

    /// A zlib header (RFC 1950 §2.2): compression method 8, a window of at most 32 KiB, and a
    /// check that makes the first two bytes a multiple of 31.
    static func hasZlibHeader(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        return bytes[0] & 0x0F == 8 && bytes[0] >> 4 <= 7 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
    }

    /// zlib's `windowBits` for this coding: gzip's wrapper, or zlib's (RFC 1950), which is what
    /// HTTP's `deflate` names. `raw`: a bare deflate stream (RFC 1951), which some clients send
    /// as `deflate` although the name means the zlib wrapper.
    func windowBits(raw: Bool = false) -> Int32 {
        switch self {
        case .gzip: 15 + 16
        case .deflate: raw ? -15 : 15
        case .identity: preconditionFailure("identity has no zlib stream")
        }
    }
}
