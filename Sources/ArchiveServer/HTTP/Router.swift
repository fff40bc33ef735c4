/// The endpoints, by exact path. Everything else is 404; a known path with another method is 405.
enum Route: String, Sendable, CaseIterable {
    case decode
    case encode
    case healthz
    case readyz
    case metrics
    /// The API description (the repository's openapi.yaml, compiled in).
    case openapi

    init?(path: String) {
        switch path {
        case "/v1/decode": self = .decode
        case "/v1/encode": self = .encode
        case "/healthz": self = .healthz
        case "/readyz": self = .readyz
        case "/metrics": self = .metrics
        case "/openapi.yaml": self = .openapi
        default: return nil
        }
    }

    /// Label used in metrics for requests that matched no route.
    static let unmatchedLabel = "other"

    var allowedMethods: [HTTPMethod] {
        switch self {
        case .decode, .encode: [.post]
        case .healthz, .readyz, .metrics, .openapi: [.get, .head]
        }
    }

    /// Value of the `Allow` header sent with 405.
    var allowHeader: String { allowedMethods.map(\.rawValue).joined(separator: ", ") }

    /// Whether the request is converted on a worker; everything else is answered on the loop.
    var isConversion: Bool { self == .decode || self == .encode }
}

enum HTTPMethod: String, Sendable {
    case get = "GET", post = "POST", head = "HEAD", put = "PUT", delete = "DELETE"
    case options = "OPTIONS", trace = "TRACE", connect = "CONNECT", patch = "PATCH"
    case unknown = "UNKNOWN"
}

/// Query string parameters, percent-decoded. A repeated name keeps its last value.
struct QueryParameters: Sendable {
    private(set) var values: [String: String] = [:]

    init(_ query: String?) {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.percentDecode(parts[0])
            let value = parts.count > 1 ? Self.percentDecode(parts[1]) : ""
            values[name] = value
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// The names given, in no particular order.
    var names: Dictionary<String, String>.Keys { values.keys }

    /// Decodes `%XX` escapes and `+` as space; malformed escapes are kept literally.
    static func percentDecode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                      let high = iterator[iterator.startIndex].hexDigitValue,
                      let low = iterator[iterator.startIndex + 1].hexDigitValue {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Whether a Content-Type names JSON: `application/json`, `text/json`, or any `+json` structured
/// suffix (RFC 6839), parameters such as `charset` ignored.
func isJSONMediaType(_ contentType: String) -> Bool {
    let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        .trimmingCharacters().lowercased()
    return essence == "application/json" || essence == "text/json"
        || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
}

extension Substring {
    func trimmingCharacters() -> String { String(self).trimmingWhitespace() }
}
