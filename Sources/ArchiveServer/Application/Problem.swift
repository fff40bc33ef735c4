import ArchiveCodec
import HTTPCore

/// An RFC 9457 problem document (`application/problem+json`): the body of every 4xx and 5xx reply,
/// written as `ProblemDocument` writes it (`archive-tool decode --ndjson` words failures alike).
///
/// `type` is `urn:archive-service:problem:<slug>`; the slugs are listed in docs/service.md and are
/// stable, so clients can switch on them. The extension members say where the input is wrong
/// (`offset`, `uid`, `jsonPath`) or by how much it is too deep (`depth`, `limit`), when known.
struct Problem: Sendable, Error {
    var slug: String
    var title: String
    var status: Int32
    var detail: String
    var instance: String? = nil
    var offset: Int? = nil
    var uid: Int? = nil
    var jsonPath: String? = nil
    var depth: Int? = nil
    /// The size or nesting that broke a codec limit (with `limit`), when the codec says.
    var found: Int? = nil
    var limit: Int? = nil
    var headers: [HTTPResponse.Header] = []
    /// Why a request was refused without being worked on, as counted in the rejection metrics.
    var rejection: RejectionReason? = nil

    /// Sent with every 503: the condition (a full queue, budget or connection table, a drain)
    /// passes within moments.
    static let retryShortly: [HTTPResponse.Header] = [.init(name: "Retry-After", value: "1")]

    var type: String { ProblemDocument.typePrefix + slug }

    func response() -> HTTPResponse {
        let document = ProblemDocument(
            slug: slug, title: title, status: status, detail: detail, instance: instance, offset: offset, uid: uid, jsonPath: jsonPath, depth: depth, found: found,
            limit: limit)
        let text = document.json + "\n"
        var response = HTTPResponse(status: status, contentType: "application/problem+json", headers: headers, body: Array(text.utf8))
        response.rejection = rejection
        response.problem = slug
        return response
    }
}

extension Problem {
    static func notFound(path: String) -> Problem {
        Problem(
            slug: "not-found", title: "Not Found", status: 404,
            detail: "No resource at \(path). Endpoints: \(Route.endpointList).",
            instance: path)
    }

    static func methodNotAllowed(method: String, path: String, allow: String) -> Problem {
        Problem(
            slug: "method-not-allowed", title: "Method Not Allowed", status: 405,
            detail: method == HTTPMethod.unknown.rawValue
                ? "\(path) does not support this method; allowed: \(allow)."
                : "\(path) does not support \(method); allowed: \(allow).",
            instance: path,
            headers: [.init(name: "Allow", value: allow)])
    }

    static func badFraming(_ detail: String, path: String) -> Problem {
        Problem(slug: "bad-framing", title: "Request framing is ambiguous", status: 400, detail: detail, instance: path)
    }

    /// A head the connection guard cannot accept (`RequestHead.parse`).
    init(_ refusal: RequestHead.Refusal, path: String) {
        switch refusal.kind {
        case .malformed:
            self = .badRequest(refusal.detail, path: path)
        case .ambiguousFraming:
            self = .badFraming(refusal.detail, path: path)
            rejection = .badRequest
        case .unsupportedCoding:
            self.init(
                slug: "not-implemented", title: "Not Implemented", status: 501, detail: refusal.detail,
                instance: path.isEmpty ? nil : path, rejection: .badRequest)
        case .expectationFailed:
            self.init(
                slug: "expectation-failed", title: "Expectation Failed", status: 417, detail: refusal.detail,
                instance: path.isEmpty ? nil : path, rejection: .badRequest)
        case .lengthTooLarge:
            self.init(
                slug: "body-too-large", title: "Request body too large", status: 413, detail: refusal.detail,
                instance: path.isEmpty ? nil : path, rejection: .bodyTooLarge)
        }
    }

    static func badRequest(_ detail: String, path: String) -> Problem {
        Problem(
            slug: "bad-request", title: "Bad Request", status: 400, detail: detail,
            instance: path.isEmpty ? nil : path, rejection: .badRequest)
    }

    static func headTooLarge(limit: Int) -> Problem {
        Problem(
            slug: "headers-too-large", title: "Request Header Fields Too Large", status: 431,
            detail: "The request line and headers take more than \(limit) bytes.", limit: limit, rejection: .badRequest)
    }

    static func headerTimeout(seconds: Int) -> Problem {
        Problem(
            slug: "header-timeout", title: "Request Timeout", status: 408,
            detail: "The request line and headers did not arrive within \(seconds) seconds.", rejection: .headerTimeout)
    }

    static func bodyTimeout(path: String) -> Problem {
        Problem(
            slug: "body-timeout", title: "Request Timeout", status: 408,
            detail: "The request body did not arrive in time (the timeout plus its length at \(GuardLimits.minimumTransferRate / 1024) KiB/s).",
            instance: path.isEmpty ? nil : path, rejection: .bodyTimeout)
    }

    /// The request would need `needed` bytes of the server's memory budget: 503 while other
    /// requests hold it, 413 when it is larger than the whole budget.
    static func memoryBudget(needed: Int, capacity: Int, path: String) -> Problem {
        if needed > capacity {
            return Problem(
                slug: "too-large-for-memory", title: "Request body too large", status: 413,
                detail: "Converting this body needs about \(needed) bytes of memory; this server's budget (--memory-budget) is \(capacity).",
                instance: path, found: needed, limit: capacity, rejection: .memoryBudget)
        }
        return Problem(
            slug: "memory-budget-full", title: "Service Unavailable", status: 503,
            detail: "The requests in progress hold the server's memory budget; this one needs about \(needed) bytes. Retry shortly.",
            instance: path, found: needed, limit: capacity,
            headers: retryShortly, rejection: .memoryBudget)
    }

    static func connectionLimit(limit: Int) -> Problem {
        Problem(
            slug: "connection-limit", title: "Service Unavailable", status: 503,
            detail: "The server holds its limit of \(limit) connections, all busy; retry shortly.", limit: limit,
            headers: retryShortly, rejection: .connectionLimit)
    }

    static func emptyBody(path: String) -> Problem {
        Problem(
            slug: "empty-body", title: "Empty request body", status: 400,
            detail: "The request has no body; send the document to convert.", instance: path)
    }

    static func invalidQuery(_ detail: String, path: String) -> Problem {
        Problem(slug: "invalid-query", title: "Invalid query parameter", status: 400, detail: detail, instance: path)
    }

    /// `/v1/decode?path=` with a path that leads to no value of the decoded document.
    static func pathNotFound(_ detail: String, path: String) -> Problem {
        Problem(slug: "path-not-found", title: "No value at that path", status: 422, detail: detail, instance: path)
    }

    static func bodyTooLarge(size: Int, limit: Int, path: String) -> Problem {
        Problem(
            slug: "body-too-large", title: "Request body too large", status: 413,
            detail: "The body has \(size) bytes; the limit is \(limit) (--max-body-size).", instance: path,
            found: size, limit: limit, rejection: .bodyTooLarge)
    }

    /// A `multipart/form-data` body that is not framed as its Content-Type says (`MultipartForm`),
    /// naming the part where it went wrong.
    static func malformedMultipart(_ failure: MultipartFailure, path: String) -> Problem {
        let opening = failure.part == 0 ? "The multipart/form-data Content-Type cannot be used: \(failure.reason)" : "The multipart/form-data body breaks at \(failure)"
        return Problem(
            slug: "malformed-multipart", title: "Malformed multipart/form-data body", status: 400,
            detail: "\(opening). Send each file as curl -F file=@a.plist does.", instance: path, rejection: .badRequest)
    }

    /// A form with more parts than `--max-parts`.
    static func tooManyParts(_ failure: MultipartFailure, limit: Int, path: String) -> Problem {
        Problem(
            slug: "too-many-parts", title: "Too many parts", status: 413,
            detail: "Part \(failure.part) is past the most parts one decode may send, \(limit) (--max-parts). Send the rest in another request.",
            instance: path, found: failure.part, limit: limit, rejection: .bodyTooLarge)
    }

    /// A part larger than `--max-part-size`.
    static func partTooLarge(_ part: MultipartPart, limit: Int, path: String) -> Problem {
        Problem(
            slug: "part-too-large", title: "Part too large", status: 413,
            detail: "Part \(part.number) (\(part.label)) has \(part.content.count) bytes; the limit for one part is \(limit) (--max-part-size).",
            instance: path, found: part.content.count, limit: limit, rejection: .bodyTooLarge)
    }

    /// A coded body that inflates past `--max-body-size` (a compression bomb, or simply too
    /// much): refused at the first byte past the limit.
    static func inflatesTooLarge(compressed: Int, coding: ContentCoding, limit: Int, path: String) -> Problem {
        Problem(
            slug: "body-too-large", title: "Request body too large", status: 413,
            detail: "The \(coding.rawValue) body of \(compressed) bytes inflates past the limit of \(limit) bytes (--max-body-size), which counts inflated bytes.",
            instance: path, limit: limit, rejection: .bodyTooLarge)
    }

    /// A body that does not inflate as its `Content-Encoding` says.
    static func malformedContentEncoding(_ coding: ContentCoding, _ what: String, path: String) -> Problem {
        Problem(
            slug: "malformed-content-encoding", title: "Body does not match its Content-Encoding", status: 400,
            detail:
                "The body is not valid \(coding.rawValue) data: \(what). If it is not compressed, send it without Content-Encoding; otherwise compress it whole, e.g. gzip -c save.plist | curl --data-binary @- -H 'Content-Encoding: gzip' ...",
            instance: path)
    }

    /// A `Content-Encoding` the service cannot read; `Accept-Encoding` names the ones it can
    /// (RFC 9110 §15.5.16).
    static func unsupportedContentEncoding(_ value: String, path: String) -> Problem {
        Problem(
            slug: "unsupported-content-encoding", title: "Unsupported Content-Encoding", status: 415,
            detail: "Content-Encoding \(value) is not supported: send the body as it is, or compressed with one of gzip or deflate.",
            instance: path, headers: [.init(name: "Accept-Encoding", value: ContentCoding.acceptedList)])
    }

    /// `fix`: what to send instead, when the body shows a `CommonMistake`.
    static func unsupportedMediaType(_ contentType: String, path: String, fix: String?) -> Problem {
        let takes =
            path == "/v1/encode"
            ? "\(path) takes a JSON document: send it with -H 'Content-Type: application/json' (or another +json type), not \(contentType)."
            : "\(path) takes the archive's bytes as the body, not \(contentType)."
        return Problem(
            slug: "unsupported-media-type", title: "Unsupported Media Type", status: 415,
            detail: fix.map { "\($0) (Content-Type was \(contentType).)" } ?? takes, instance: path)
    }

    /// The readable JSON would nest deeper than the workers' stack admits. `bounded`: the
    /// request already named a `maxDepth` (above the limit).
    /// The 413 for a decode the policy refuses (`DecodePolicy`), its fix in query parameters;
    /// `bounded` when the request already asked for a `maxDepth` deeper than the stack admits.
    static func refused(_ refusal: DecodePolicy.Refusal, bounded: Bool, plain: Bool = false, path: String) -> Problem {
        switch refusal {
        case .tooDeep(let depth, let limit):
            let fix =
                plain
                ? "The plain view takes no maxDepth (a larger --stack-size raises the limit); the readable view with ?maxDepth=\(refusal.suggestedMaxDepth) writes it with its deepest objects in a top-level $table."
                : bounded
                    ? "Ask for maxDepth=\(refusal.suggestedMaxDepth) (at most \(limit) here) instead."
                    : "Add ?maxDepth=\(refusal.suggestedMaxDepth) (any value up to \(limit) fits) to receive it with its deepest objects in a top-level $table, referenced from where they stand; a larger --stack-size also raises the limit."
            return Problem(
                slug: "too-deep", title: "Nesting too deep", status: 413,
                detail: "The archive's JSON nests \(depth) levels deep; this server's worker stack admits at most \(limit). \(fix)",
                instance: path, depth: depth, limit: limit, rejection: .tooDeep)
        case .tooDeepToIndent(let depth, let limit):
            return Problem(
                slug: "too-deep-to-indent", title: "Nesting too deep to indent", status: 413,
                detail:
                    "The archive nests \(depth) levels deep; indented output (pretty=1) is limited to \(limit) levels because its size grows with the square of the depth. Ask for compact JSON instead.",
                instance: path, depth: depth, limit: limit, rejection: .tooDeep)
        }
    }

    /// A summary refused for depth where the decode of its readable view would be
    /// (`view=summary` takes no `maxDepth`: the fix is a decode's).
    static func overloaded(path: String) -> Problem {
        Problem(
            slug: "overloaded", title: "Service Unavailable", status: 503,
            detail: "All workers are busy and the queue is full; retry shortly.", instance: path,
            headers: retryShortly, rejection: .queueFull)
    }

    /// A conversion stopped at `--conversion-timeout`. 503, since the cause may be the load of
    /// the moment (the time is the worker's, shared with other work); `Retry-After` is the
    /// limit itself, so that a client retrying an input that always takes this long does not
    /// come back at once.
    static func conversionTimeout(seconds: Double, path: String) -> Problem {
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return Problem(
            slug: "conversion-timeout", title: "Conversion timed out", status: 503,
            detail:
                "The conversion ran longer than this server allows (\(shown) s, --conversion-timeout) and was stopped. The raw view (?view=raw), the summary (?view=summary) or no nested payloads may take less; archive-tool converts without a time limit.",
            instance: path, headers: [.init(name: "Retry-After", value: String(Int(seconds.rounded(.up))))],
            rejection: .conversionTimeout)
    }

    static func draining(path: String) -> Problem {
        Problem(
            slug: "shutting-down", title: "Service Unavailable", status: 503,
            detail: "The server is shutting down and takes no new work.", instance: path,
            headers: retryShortly, rejection: .draining)
    }

    static func notReady(reason: String) -> Problem {
        Problem(
            slug: "not-ready", title: "Service Unavailable", status: 503, detail: reason, instance: "/readyz",
            headers: retryShortly)
    }

    /// Maps a codec failure: unreadable input is 400; input that parses but is not a valid archive or
    /// archive document is 422; input beyond one of the codec's own size or nesting limits is 413.
    init(_ error: CodecError, path: String) {
        let document = ProblemDocument(error, remedy: Self.remedy(error.remedy), instance: path)
        self.init(
            slug: document.slug, title: document.title, status: ProblemDocument.type(of: error.kind).status, detail: document.detail, instance: path,
            offset: document.offset, uid: document.uid, jsonPath: document.jsonPath, found: document.found,
            limit: document.limit, rejection: error.kind == .limitExceeded ? .limitExceeded : nil)
    }

    /// The codec's remedy in this service's knobs, appended to its message.
    static func remedy(_ remedy: CodecError.Remedy?) -> String {
        switch remedy {
        case nil: ""
        case .rawView: " (the raw view, ?view=raw, shows it as it is)"
        case .nestingBound(let bound): "; maxDepth=\(bound) fits"
        case .dropBroken: " (encode with ?dropBroken=1 writes the archive without it)"
        }
    }
}
