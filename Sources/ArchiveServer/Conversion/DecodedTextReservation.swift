/// What an answer made from the decoded JSON holds beside its plan and its reply
/// (`Archive.decodedDocument`'s `hold`, for the plain view and the value at a path): the
/// decoded text as that grows, then the text with its parsed index and the walk's state. Each ask sets the job's reservation to what was reserved when this was
/// made plus the ask (the text is held until the reply is written, so the asks only grow but
/// for the last, which replaces a growth estimate with the count). The first refusal is
/// remembered with what it asked for, so that the failure it causes is answered as the budget's,
/// with that need.
final class DecodedTextReservation {
    private let reservation: Reservation?
    private let admitted: Int
    private(set) var refusedNeed: Int?

    init(_ reservation: Reservation?) {
        self.reservation = reservation
        admitted = reservation?.bytes ?? 0
    }

    /// Whether the budget grants `bytes` held beside what was reserved at the start.
    func hold(_ bytes: Int) -> Bool {
        guard let reservation else { return true }
        let needed = admitted + bytes
        reservation.shrink(to: needed)
        guard !reservation.grow(to: needed) else { return true }
        refusedNeed = needed
        return false
    }

    /// The budget's answer to a failure a refusal of `hold` caused; nil when it refused nothing.
    func refusal(path: String) -> HTTPResponse? {
        guard let refusedNeed, let reservation else { return nil }
        return Problem.memoryBudget(needed: refusedNeed, capacity: reservation.capacity, path: path).response()
    }
}
