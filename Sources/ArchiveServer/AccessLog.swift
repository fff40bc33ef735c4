import Logging

/// One structured line per answered request.
///
/// Conversions and unmatched requests log at `info`; the probes and `/metrics` at `debug`, because
/// orchestrators poll them every few seconds and they would drown the lines that matter.
struct AccessLog: Sendable {
    var logger: Logger

    /// What one access line says of a request.
    struct Entry {
        var method: HTTPMethod
        var path: String
        /// The query string as sent, when there is one.
        var query: String?
        var route: Route?
        var status: Int32
        var bytesIn: Int
        var bytesOut: Int
        var nanoseconds: UInt64
        /// The peer's address and port.
        var client: String
        var requestID: String
        /// The problem's slug, for an error reply.
        var problem: String?
    }

    func record(_ entry: Entry) {
        let level: Logger.Level = (entry.route == nil || entry.route!.isConversion) ? .info : .debug
        guard logger.logLevel <= level else { return }
        let milliseconds = Double(entry.nanoseconds / 1_000) / 1_000
        var metadata: Logger.Metadata = [
            "method": .string(entry.method.rawValue),
            "path": .string(entry.path),
            "status": .stringConvertible(entry.status),
            "bytes_in": .stringConvertible(entry.bytesIn),
            "bytes_out": .stringConvertible(entry.bytesOut),
            "duration_ms": .stringConvertible(milliseconds),
            "client": .string(entry.client),
            "request_id": .string(entry.requestID),
        ]
        if let query = entry.query { metadata["query"] = .string(query) }
        if let problem = entry.problem { metadata["problem"] = .string(problem) }
        logger.log(level: level, "\(entry.method.rawValue) \(entry.path) \(entry.status)", metadata: metadata)
    }
}
