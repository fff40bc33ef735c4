import ArchiveCodec

/// What the service records of every reply, refusals from the connection guard included: one
/// call counts it in the metrics and writes its access line, so the two never disagree.
extension ServerContext {
    /// `startNanos`: when the request arrived (`monotonicNanoseconds`); nil for answers that
    /// took no time to decide (the guard's refusals). `finishesConversion`: the reply is to a
    /// request counted by `Metrics.conversionQueued()`. `bytesOut`: the body bytes sent, for a
    /// reply whose body is not in `response` (a streamed one, recorded once at its end).
    func record(
        _ response: HTTPResponse, for request: RequestSummary, bytesIn: Int, bytesOut: Int? = nil, startNanos: UInt64? = nil,
        finishesConversion: Bool = false
    ) {
        let elapsed = startNanos.map { monotonicNanoseconds() &- $0 } ?? 0
        let bytesOut = bytesOut ?? response.bodyCount
        metrics.record(
            route: request.route?.rawValue ?? Route.unmatchedLabel, status: response.status,
            seconds: Double(elapsed) / 1e9, bytesIn: bytesIn, bytesOut: bytesOut,
            rejection: response.rejection, finishesConversion: finishesConversion, salvagedBreaks: response.salvagedBreaks)
        accessLog.record(
            request, status: response.status, bytesIn: bytesIn, bytesOut: bytesOut,
            nanoseconds: elapsed, problem: response.problem)
    }
}
