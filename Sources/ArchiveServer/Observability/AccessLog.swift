import Logging

/// One structured line per answered request.
///
/// Conversions and unmatched requests log at `info`; the probes and `/metrics` at `debug`, because
/// orchestrators poll them every few seconds and they would drown the lines that matter.
struct AccessLog: Sendable {
    var logger: Logger

    /// `problem`: the problem's slug, for an error reply.
    func record(_ request: RequestSummary, status: Int32, bytesIn: Int, bytesOut: Int, nanoseconds: UInt64, problem: String?) {
        let level: Logger.Level = (request.route == nil || request.route!.isConversion) ? .info : .debug
        guard logger.logLevel <= level else { return }
        let milliseconds = Double(nanoseconds / 1_000) / 1_000
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue),
            "path": .string(request.path),
            "status": .stringConvertible(status),
            "bytes_in": .stringConvertible(bytesIn),
            "bytes_out": .stringConvertible(bytesOut),
            "duration_ms": .stringConvertible(milliseconds),
            "client": .string(request.client),
            "request_id": .string(request.requestID)
        ]
        if let query = request.query { metadata["query"] = .string(query) }
        if let problem { metadata["problem"] = .string(problem) }
        logger.log(level: level, "\(request.method.rawValue) \(request.path) \(status)", metadata: metadata)
    }
}
