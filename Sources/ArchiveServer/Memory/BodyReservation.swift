import HTTPCore

/// Admits request bodies against the memory budget for a connection guard (`BodyAdmission`):
/// a body is admitted from its head only if the whole of what it needs
/// (`ConversionCost.admission` of its announced length on its route) fits what is free now, and
/// refused 413 when it could not fit the budget even alone (a chunked body, as its chunks are
/// announced). What it needs is reserved only as its bytes arrive, a step ahead
/// (`admissionStep`), so a head that announces a large body and sends nothing holds nothing and
/// a slow body holds only what it has paid for. The handler takes the reservation over
/// (`takeOver`) when the request reaches it.
///
/// Loop thread only.
struct BodyReservation: BodyAdmission {
    /// A `Problem` (413 or 503 `memory-budget-full`), which the application answers.
    typealias Denial = AdmissionDenial

    let budget: MemoryBudget
    /// Bytes reserved for the body being received, grown as it arrives.
    private var reservation: Reservation?
    /// The route of the request being received, for `ConversionCost.admission`.
    private var route: Route?

    /// How far ahead of the bytes received a body's reservation is grown, so the budget's lock
    /// is taken once per step rather than once per read.
    static let admissionStep = 1 << 20

    init(budget: MemoryBudget) {
        self.budget = budget
    }

    /// Opens the (empty) reservation of a body of `announced` bytes, if its whole need fits
    /// what is free now (503 otherwise, or 413 when it could never fit).
    mutating func begin(_ head: RequestHead, announced: Int) -> AdmissionDenial? {
        route = nil
        let route = Route(path: head.path)
        let needed = ConversionCost.admission(route: route, bodyBytes: announced)
        guard needed <= budget.available, let reservation = budget.reserve(0) else {
            return AdmissionDenial(Problem.memoryBudget(needed: needed, capacity: budget.capacity, path: head.path))
        }
        self.reservation = reservation
        self.route = route
        return nil
    }

    /// Grows the reservation to what the `received` bytes need, a step ahead (but not past
    /// what `total` bytes need).
    mutating func received(_ received: Int, upTo total: Int, of head: RequestHead?) -> AdmissionDenial? {
        guard let reservation else { return nil }
        let needed = ConversionCost.admission(route: route, bodyBytes: received)
        guard needed > reservation.bytes else { return nil }
        let ahead = ConversionCost.admission(route: route, bodyBytes: min(total, received + Self.admissionStep))
        if reservation.grow(to: max(needed, ahead)) || reservation.grow(to: needed) { return nil }
        return AdmissionDenial(Problem.memoryBudget(needed: needed, capacity: reservation.capacity, path: head?.path ?? ""))
    }

    /// Refuses a chunked body once what its announced chunks need could not fit the budget even
    /// alone.
    func chunksAnnounced(_ announced: Int, of head: RequestHead) -> AdmissionDenial? {
        let needed = ConversionCost.admission(route: route, bodyBytes: announced)
        if needed > budget.capacity {
            return AdmissionDenial(Problem.memoryBudget(needed: needed, capacity: budget.capacity, path: head.path))
        }
        return nil
    }

    mutating func release() {
        reservation = nil
    }

    /// The reservation of the request that reached the handler, which holds it from now on.
    mutating func takeOver() -> (any HeldResources)? {
        defer { reservation = nil }
        return reservation
    }
}
