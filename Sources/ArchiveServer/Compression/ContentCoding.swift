import ASCIIText
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
        let codings = contentEncoding.split(separator: ",").map { $0.trimmingASCIIWhitespace().asciiLowercased() }
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
    ///
    /// Read over the header's bytes without building strings (every request carries one):
    /// members split at `,`, parameters at `;` (empty pieces skipped), names and parameters
    /// compared as ASCII without case, ASCII whitespace around them dropped (the grammar's OWS).
    static func forReply(acceptEncoding: String?) -> ContentCoding {
        guard var header = acceptEncoding, !header.isEmpty else { return .identity }
        // The weights named, the last naming of each winning (x-gzip is gzip).
        var gzip: Double?
        var deflate: Double?
        var identity: Double?
        var any: Double?
        header.withUTF8 { bytes in
            for member in bytes.split(separator: UInt8(ascii: ",")) {
                var pieces = member.split(separator: UInt8(ascii: ";")).makeIterator()
                guard let first = pieces.next() else { continue }
                let name = trimmed(first)
                guard !name.isEmpty else { continue }
                var weight = 1.0
                while let piece = pieces.next() {
                    let parameter = trimmed(piece)
                    guard parameter.count >= 2, parameter[parameter.startIndex] | 0x20 == UInt8(ascii: "q"),
                        parameter[parameter.startIndex + 1] == UInt8(ascii: "=")
                    else { continue }
                    // A weight that is not a number in 0...1 makes the member unusable.
                    let text = String(decoding: parameter.dropFirst(2), as: UTF8.self)
                    weight = Double(text).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
                }
                if equalsLowercased(name, "gzip") || equalsLowercased(name, "x-gzip") {
                    gzip = weight
                } else if equalsLowercased(name, "deflate") {
                    deflate = weight
                } else if equalsLowercased(name, "identity") {
                    identity = weight
                } else if equalsLowercased(name, "*") {
                    any = weight
                }
            }
        }
        var best = ContentCoding.identity
        var bestWeight = 0.0
        func consider(_ coding: ContentCoding, _ named: Double?) {
            let candidate = named ?? any ?? (coding == .identity ? Double.leastNonzeroMagnitude : 0)
            if candidate > bestWeight {
                best = coding
                bestWeight = candidate
            }
        }
        consider(.gzip, gzip)
        consider(.deflate, deflate)
        consider(.identity, identity)
        return best
    }

    /// `bytes` without the ASCII whitespace around them.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        guard let first = bytes.firstIndex(where: { !$0.isASCIIWhitespace }), let last = bytes.lastIndex(where: { !$0.isASCIIWhitespace }) else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// Whether `bytes` are `lowercase` (ASCII letters, digits and `-*`) in any case.
    private static func equalsLowercased(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, wanted in
                (wanted >= UInt8(ascii: "a") && wanted <= UInt8(ascii: "z") ? byte | 0x20 : byte) == wanted
            }
        }
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
