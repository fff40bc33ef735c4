import HTTPCore

/// The refusals the HTTP core decides, in the service's words: each a problem document, written
/// by the connection's guard and recorded like every other reply.
extension ArchiveApplication {
    /// Bodies are admitted against the memory budget (`BodyReservation`).
    func makeAdmission() -> any BodyAdmission<AdmissionDenial> {
        BodyReservation(budget: context.budget)
    }

    func answer(
        _ refusal: ConnectionRefusal, head: RequestHead?, requestID: String, peer: String, write: (HTTPReply) -> Void
    ) {
        var problem = Self.problem(for: refusal, head: head)
        if problem.instance == nil, let head { problem.instance = head.path }
        problem.headers.append(.init(name: "X-Request-Id", value: requestID))
        let response = problem.response()
        write(response.reply)
        let path = head?.path ?? problem.instance ?? ""
        let summary = RequestSummary(
            method: head?.method ?? .unknown, path: path, query: head?.query, route: Route(path: path),
            client: peer, requestID: requestID)
        context.record(response, for: summary, bytesIn: 0)
    }

    /// The problem document that words `refusal`.
    static func problem(for refusal: ConnectionRefusal, head: RequestHead?) -> Problem {
        let path = head?.path ?? ""
        switch refusal {
        case .connectionLimit(let limit): return Problem.connectionLimit(limit: limit)
        case .draining: return Problem.draining(path: path)
        case .guarded(.headTooLarge(let limit)): return Problem.headTooLarge(limit: limit)
        case .guarded(.badHead(let error, let path)): return Problem(error, path: path)
        case .guarded(.bodyTooLarge(let size, let limit)): return Problem.bodyTooLarge(size: size, limit: limit, path: path)
        case .guarded(.badChunk(let detail)): return Problem.badRequest(detail, path: path)
        case .guarded(.headerTimeout(let seconds)): return Problem.headerTimeout(seconds: seconds)
        case .guarded(.bodyTimeout): return Problem.bodyTimeout(path: path)
        case .guarded(.denied(let denial)):
            // The only admission is `makeAdmission`'s, which denies with a problem document.
            guard let problem = denial.reason as? Problem else { preconditionFailure("a denial that is not a Problem: \(denial.reason)") }
            return problem
        }
    }
}
