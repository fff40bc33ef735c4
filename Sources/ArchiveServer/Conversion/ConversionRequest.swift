import ASCIIText
import ArchiveCodec
import HTTPCore

/// What a conversion request asks for, parsed from its query string on the loop before it is queued,
/// so a bad parameter costs no worker time.
enum ConversionRequest: Sendable {
    case decode(DecodeOptions)
    /// `/v1/decode?view=summary`: what the document holds (`ArchiveSummary`) instead of its JSON.
    case summary(SummaryOptions)
    /// `/v1/decode?view=plain`: the plain view (`PlainView`), one way.
    case plain(PlainOptions)
    /// `dropBroken`: `?dropBroken=1`, a salvaged decode's `$broken` marks left out with what
    /// holds them (`JSONDocument.droppingBroken`) rather than refused.
    case encode(format: PlistFormat, dropBroken: Bool)

    init(route: Route, query: QueryParameters, path: String) throws(Problem) {
        let known = Self.knownParameters(of: route)
        if let unknown = query.names.sorted().first(where: { !known.contains($0) }) {
            let other: Route = route == .decode ? .encode : .decode
            let elsewhere = Self.knownParameters(of: other).contains(unknown) ? " (\(unknown) is a parameter of /v1/\(other.rawValue))" : ""
            throw Problem.invalidQuery("unknown query parameter \(unknown)\(elsewhere); \(path) takes \(known.joined(separator: ", "))", path: path)
        }
        switch route {
        case .decode:
            let view: ArchiveView
            if try Self.flag(query, "salvage", path: path), let other = query["view"], !["readable", "raw"].contains(other.asciiLowercased()) {
                throw Problem.invalidQuery("salvage marks what it could not read in the readable or raw view's JSON, not with view=\(other): leave one of them out", path: path)
            }
            switch query["view"]?.asciiLowercased() {
            case nil, "readable": view = .readable
            case "raw": view = .raw
            case "summary":
                if query["path"] != nil {
                    throw Problem.invalidQuery("path picks a value of the decoded JSON; view=summary counts the whole document: leave one of them out", path: path)
                }
                self = .summary(try Self.summaryOptions(query, path: path))
                return
            case "plain":
                self = .plain(try Self.plainOptions(query, path: path))
                return
            case let other?: throw Problem.invalidQuery("view must be readable, raw, plain or summary, not \(other)", path: path)
            }
            var options = DecodeOptions(view: view, pretty: try Self.flag(query, "pretty", path: path))
            options.exactIntegers = try Self.flag(query, "exactIntegers", path: path)
            options.exactNumbers = try Self.flag(query, "exactNumbers", path: path)
            options.nested = try Self.flag(query, "nested", path: path)
            options.salvage = try Self.flag(query, "salvage", path: path)
            if options.salvage, options.nested {
                throw Problem.invalidQuery("salvage reads the document itself, not its nested payloads: leave nested out with it", path: path)
            }
            if let text = query["maxDepth"] {
                options.maxDepth = try Self.depthBound(text, path: path)
            }
            if view == .raw, options.maxDepth != nil || options.exactIntegers || options.exactNumbers || options.nested {
                throw Problem.invalidQuery("maxDepth, exactIntegers, exactNumbers and nested shape the readable view; leave them out with view=raw", path: path)
            }
            options.path = try Self.valuePath(query, path: path)
            self = .decode(options)
        case .encode:
            let format: PlistFormat
            switch query["format"]?.asciiLowercased() {
            case nil, "binary", "bplist": format = .binary
            case "xml": format = .xml
            case let other?: throw Problem.invalidQuery("format must be binary or xml, not \(other)", path: path)
            }
            self = .encode(format: format, dropBroken: try Self.explicitFlag(query, "dropBroken", path: path))
        case .healthz, .readyz, .metrics, .openapi, .page:
            preconditionFailure("\(route) is not a conversion")
        }
    }

    /// `view=summary`: `pretty` and `nested` (which counts inside the payloads too); the
    /// parameters that shape the readable view are refused, as with `view=raw`.
    private static func summaryOptions(_ query: QueryParameters, path: String) throws(Problem) -> SummaryOptions {
        if try asksReadableShape(query, path: path) {
            throw Problem.invalidQuery(
                "maxDepth, exactIntegers and exactNumbers shape the readable view; leave them out with view=summary (nested=1 counts inside nested payloads too)", path: path)
        }
        return SummaryOptions(pretty: try flag(query, "pretty", path: path), nested: try flag(query, "nested", path: path))
    }

    /// `?path=`: the value the answer is, parsed.
    private static func valuePath(_ query: QueryParameters, path: String) throws(Problem) -> ReadablePath? {
        guard let text = query["path"] else { return nil }
        do {
            return try ReadablePath(parsing: text)
        } catch {
            throw Problem.invalidQuery("path: \(error.description)", path: path)
        }
    }

    /// `view=plain`: `pretty`, `nested` and `path`; the parameters that shape the lossless view are
    /// refused (the plain view writes numbers as numbers and has no `$table`).
    private static func plainOptions(_ query: QueryParameters, path: String) throws(Problem) -> PlainOptions {
        if try asksReadableShape(query, path: path) {
            throw Problem.invalidQuery(
                "maxDepth, exactIntegers and exactNumbers shape the lossless view; leave them out with view=plain (nested=1 writes nested payloads as their plain view too)", path: path)
        }
        var options = PlainOptions(pretty: try flag(query, "pretty", path: path), nested: try flag(query, "nested", path: path))
        options.path = try valuePath(query, path: path)
        return options
    }

    /// Whether `maxDepth`, `exactIntegers` or `exactNumbers` ask to shape the lossless view
    /// (a bad value of one is refused as such first): the views that have no such shape refuse
    /// them.
    private static func asksReadableShape(_ query: QueryParameters, path: String) throws(Problem) -> Bool {
        var shaped = try flag(query, "exactIntegers", path: path)
        shaped = try flag(query, "exactNumbers", path: path) || shaped
        if let text = query["maxDepth"] {
            _ = try depthBound(text, path: path)
            shaped = true
        }
        return shaped
    }

    var route: Route {
        switch self {
        case .decode, .summary, .plain: .decode
        case .encode: .encode
        }
    }

    /// The query parameters each conversion knows; any other name is refused, so that a typo
    /// or a parameter of the other endpoint is not silently ignored.
    static func knownParameters(of route: Route) -> [String] {
        switch route {
        case .decode: ["view", "pretty", "maxDepth", "exactIntegers", "exactNumbers", "nested", "path", "salvage"]
        case .encode: ["format", "dropBroken"]
        case .healthz, .readyz, .metrics, .openapi, .page: []
        }
    }

    /// `maxDepth`: a whole number of levels from 1. A bound past any depth an archive can have
    /// is the same as none, but a number too large to hold is named as such, not as "not a number".
    private static func depthBound(_ text: String, path: String) throws(Problem) -> Int {
        let unsigned = text.utf8.first == UInt8(ascii: "+") || text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !unsigned.isEmpty, unsigned.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            throw Problem.invalidQuery("maxDepth must be a whole number of levels, at least 1, not \(text)", path: path)
        }
        guard let bound = Int(text) else {
            throw Problem.invalidQuery("maxDepth \(text) is out of range: it must be from 1 to \(Int.max) levels", path: path)
        }
        guard bound >= 1 else {
            throw Problem.invalidQuery("maxDepth must be at least 1 level, not \(text)", path: path)
        }
        return bound
    }

    /// A flag that leaves data out when on (`dropBroken`): only `1` turns it on and `0` off, as
    /// openapi.yaml states; a spelling the other flags take (`true`, `yes`, empty) is refused
    /// rather than read as either.
    private static func explicitFlag(_ query: QueryParameters, _ name: String, path: String) throws(Problem) -> Bool {
        switch query[name] {
        case nil, "0": return false
        case "1": return true
        case let other?: throw Problem.invalidQuery("\(name) must be 1 (on) or 0 (off), not \(other)", path: path)
        }
    }

    private static func flag(_ query: QueryParameters, _ name: String, path: String) throws(Problem) -> Bool {
        switch query[name]?.asciiLowercased() {
        case nil, "0", "false", "no": return false
        case "", "1", "true", "yes": return true
        case let other?: throw Problem.invalidQuery("\(name) must be 1, true or yes (on), or 0, false or no (off), not \(other)", path: path)
        }
    }
}
