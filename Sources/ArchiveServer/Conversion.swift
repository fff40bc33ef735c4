import ArchiveCodec

/// What a conversion request asks for, parsed from its query string on the loop before it is queued,
/// so a bad parameter costs no worker time.
enum ConversionRequest: Sendable {
    case decode(view: ArchiveView, pretty: Bool)
    case encode(format: PlistFormat)

    init(route: Route, query: QueryParameters, path: String) throws(Problem) {
        switch route {
        case .decode:
            let view: ArchiveView
            switch query["view"]?.lowercased() {
            case nil, "readable": view = .readable
            case "raw": view = .raw
            case let other?: throw Problem.invalidQuery("view must be readable or raw, not \(other)", path: path)
            }
            self = .decode(view: view, pretty: try Self.flag(query, "pretty", path: path))
        case .encode:
            switch query["format"]?.lowercased() {
            case nil, "binary", "bplist": self = .encode(format: .binary)
            case "xml": self = .encode(format: .xml)
            case let other?: throw Problem.invalidQuery("format must be binary or xml, not \(other)", path: path)
            }
        case .healthz, .readyz, .metrics:
            preconditionFailure("\(route) is not a conversion")
        }
    }

    private static func flag(_ query: QueryParameters, _ name: String, path: String) throws(Problem) -> Bool {
        switch query[name]?.lowercased() {
        case nil, "0", "false", "no": return false
        case "", "1", "true", "yes": return true
        case let other?: throw Problem.invalidQuery("\(name) must be 1 or 0 (or true/false), not \(other)", path: path)
        }
    }
}

/// The depth a worker's stack admits, from the codec's `StackBudget` for the configured stack
/// size. Only decoding recurses: the encoder takes a document of any depth the parser accepts.
struct DepthLimits: Sendable {
    /// Deepest readable JSON the decoder's writer may produce (`KeyedArchive.depth(of:)`).
    var decode: Int
}

/// The work done on a worker thread. Depth is always measured (without recursion) before anything
/// recursive runs, so a worker never goes deeper than its stack admits.
enum Conversion {
    /// Deepest archive decoded with `?pretty=1` (see `KeyedArchive.maximumPrettyDepth`).
    static let maxPrettyDepth = KeyedArchive.maximumPrettyDepth

    static func run(_ request: ConversionRequest, body: RequestBody, limits: DepthLimits, path: String) -> HTTPResponse {
        do {
            switch request {
            case let .decode(view, pretty):
                let archive = try KeyedArchive(parsing: body.take())
                let depth = archive.depth(of: view)
                guard depth <= limits.decode else {
                    return Problem.tooDeep(depth: depth, limit: limits.decode, what: "archive", path: path).response()
                }
                guard !pretty || depth <= maxPrettyDepth else {
                    return Problem.tooDeepToIndent(depth: depth, limit: maxPrettyDepth, path: path).response()
                }
                return HTTPResponse(status: 200, contentType: "application/json",
                                    body: try archive.json(view: view, pretty: pretty))
            case let .encode(format):
                // The document keeps what it needs of the text: the body goes before the
                // archive is built (a third less memory at the peak of a large encode).
                let document = try JSONDocument(parsing: body.take())
                let archive = try document.archive(format: format)
                let contentType = format == .xml ? "application/xml" : "application/x-bplist"
                return HTTPResponse(status: 200, contentType: contentType, body: archive)
            }
        } catch {
            return Problem(error, path: path).response()
        }
    }
}

/// A request body handed to a worker once: `take()` moves the bytes out, so the worker's
/// conversion holds the only reference and can drop them as soon as it has parsed them.
final class RequestBody: @unchecked Sendable {
    private var bytes: [UInt8]?
    /// Size of the body as received.
    let count: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        count = bytes.count
    }

    func take() -> [UInt8] {
        defer { bytes = nil }
        return bytes ?? []
    }
}
