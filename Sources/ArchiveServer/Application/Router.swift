import HTTPCore

/// The endpoints, by exact path. Everything else is 404; a known path with another method is 405.
enum Route: String, Sendable, CaseIterable {
    case decode
    case encode
    case healthz
    case readyz
    case metrics
    /// The API description (the repository's openapi.yaml, compiled in).
    case openapi
    /// The page at `/` and its script and style sheet (`PageAssets`).
    case page

    init?(path: String) {
        // The exact paths first, a few comparisons, before the page's files are hashed for:
        // no page file has an endpoint's path (they are `/` and `/ui/…`).
        if let route = Self.allCases.first(where: { $0.path == path }) {
            self = route
        } else if PageAssets.paths.contains(path) {
            self = .page
        } else {
            return nil
        }
    }

    /// The route's exact path (for `.page`, the page's own; its files are at `PageAssets.paths`).
    var path: String {
        switch self {
        case .decode: "/v1/decode"
        case .encode: "/v1/encode"
        case .healthz: "/healthz"
        case .readyz: "/readyz"
        case .metrics: "/metrics"
        case .openapi: "/openapi.yaml"
        case .page: "/"
        }
    }

    /// Every endpoint as `METHOD /path`, for the 404's detail.
    static let endpointList = allCases.map { "\($0.allowedMethods[0].rawValue) \($0.path)\($0 == .page ? " (the page)" : "")" }
        .joined(separator: ", ")

    /// Label used in metrics for requests that matched no route.
    static let unmatchedLabel = "other"

    var allowedMethods: [HTTPMethod] {
        switch self {
        case .decode, .encode: [.post]
        case .healthz, .readyz, .metrics, .openapi, .page: [.get, .head]
        }
    }

    /// Value of the `Allow` header sent with 405.
    var allowHeader: String { allowedMethods.map(\.rawValue).joined(separator: ", ") }

    /// Whether the request is converted on a worker; everything else is answered on the loop.
    var isConversion: Bool { self == .decode || self == .encode }
}
