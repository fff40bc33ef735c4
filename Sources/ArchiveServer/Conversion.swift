import ArchiveCodec

/// What a conversion request asks for, parsed from its query string on the loop before it is queued,
/// so a bad parameter costs no worker time.
enum ConversionRequest: Sendable {
    case decode(DecodeOptions)
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
            var options = DecodeOptions(view: view, pretty: try Self.flag(query, "pretty", path: path))
            options.exactIntegers = try Self.flag(query, "exactIntegers", path: path)
            if let text = query["maxDepth"] {
                guard let bound = Int(text), bound >= 1 else {
                    throw Problem.invalidQuery("maxDepth must be a whole number of levels, at least 1, not \(text)", path: path)
                }
                options.maxDepth = bound
            }
            if view == .raw, options.maxDepth != nil || options.exactIntegers {
                throw Problem.invalidQuery("maxDepth and exactIntegers shape the readable view; leave them out with view=raw", path: path)
            }
            self = .decode(options)
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

/// What a decode request asks for.
struct DecodeOptions: Sendable {
    var view: ArchiveView
    var pretty: Bool
    /// `?maxDepth=N`: the JSON never nests deeper (see `KeyedArchive.plan`).
    var maxDepth: Int?
    /// `?exactIntegers=1`: integers beyond ±(2^53 − 1) as `{"$integer": "…"}`.
    var exactIntegers = false

    init(view: ArchiveView, pretty: Bool) {
        self.view = view
        self.pretty = pretty
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

    /// Bodies from this size on have their reply written into a `ReplyBuffer` as it is made
    /// (one copy of a large reply in memory, not two). Smaller ones are built as arrays: the
    /// codec's streaming forms set up buffers of a megabyte, too much for a small reply.
    static let bufferedReplyThreshold = 1 << 20

    static func run(_ request: ConversionRequest, body: RequestBody, limits: DepthLimits, path: String) -> HTTPResponse {
        do {
            switch request {
            case let .decode(options):
                let (view, pretty) = (options.view, options.pretty)
                let archive = try KeyedArchive(parsing: body.take())
                let plan = try archive.plan(view: view, pretty: pretty, maxDepth: options.maxDepth, exactIntegers: options.exactIntegers)
                let depth = plan.depth
                guard depth <= limits.decode else {
                    return Problem.tooDeep(depth: depth, limit: limits.decode, bounded: options.maxDepth != nil, path: path).response()
                }
                guard !pretty || depth <= maxPrettyDepth else {
                    return Problem.tooDeepToIndent(depth: depth, limit: maxPrettyDepth, path: path).response()
                }
                if body.count >= bufferedReplyThreshold, let reply = ReplyBuffer() {
                    // A refusal for size found part way leaves a partial buffer: dropped with it.
                    try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: .serial) { reply.append($0) }
                    return try buffered(reply, contentType: "application/json", path: path)
                }
                return HTTPResponse(status: 200, contentType: "application/json",
                                    body: try archive.json(view: view, pretty: pretty, plan: plan))
            case let .encode(format):
                // The document holds the body's bytes; the worker's own reference goes.
                let document = try JSONDocument(parsing: body.take())
                let contentType = format == .xml ? "application/xml" : "application/x-bplist"
                if format == .binary, body.count >= bufferedReplyThreshold, let reply = ReplyBuffer() {
                    try document.writeArchive { reply.append($0) }
                    return try buffered(reply, contentType: contentType, path: path)
                }
                return HTTPResponse(status: 200, contentType: contentType, body: try document.archive(format: format))
            }
        } catch {
            return Problem(error, path: path).response()
        }
    }

    private static func buffered(_ reply: ReplyBuffer, contentType: String, path: String) throws(CodecError) -> HTTPResponse {
        guard !reply.failed else {
            throw CodecError(.limitExceeded, "out of memory while buffering a \(reply.count)-byte reply")
        }
        return HTTPResponse(status: 200, contentType: contentType, buffered: reply)
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
