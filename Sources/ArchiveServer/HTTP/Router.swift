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
