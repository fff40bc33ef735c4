import Logging

/// One structured line per answered request.
///
/// Conversions and unmatched requests log at `info`; the probes and `/metrics` at `debug`, because
/// orchestrators poll them every few seconds and they would drown the lines that matter.
struct AccessLog: Sendable {
    var logger: Logger

    func record(method: HTTPMethod, path: String, route: Route?, status: Int32, bytesIn: Int, bytesOut: Int, nanoseconds: UInt64) {
        let level: Logger.Level = (route == nil || route!.isConversion) ? .info : .debug
        guard logger.logLevel <= level else { return }
        let milliseconds = Double(nanoseconds / 1_000) / 1_000
        logger.log(level: level, "\(method.rawValue) \(path) \(status)", metadata: [
            "method": .string(method.rawValue),
            "path": .string(path),
            "status": .stringConvertible(status),
            "bytes_in": .stringConvertible(bytesIn),
            "bytes_out": .stringConvertible(bytesOut),
            "duration_ms": .stringConvertible(milliseconds),
        ])
    }
}
