enum RejectionReason: String, Sendable, CaseIterable {
    case tooDeep = "too_deep"
    case limitExceeded = "limit_exceeded"
    case bodyTooLarge = "body_too_large"
    case queueFull = "queue_full"
    case draining = "draining"
    case memoryBudget = "memory_budget"
    case badRequest = "bad_request"
    case headerTimeout = "header_timeout"
    case bodyTimeout = "body_timeout"
    case connectionLimit = "connection_limit"
    /// A conversion stopped at `--conversion-timeout` (worked on, then refused).
    case conversionTimeout = "conversion_timeout"
}
