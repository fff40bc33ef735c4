import ArchiveCodec

/// What a conversion's nested payloads hold on top of what the conversion was admitted with
/// (the reservation's bytes when this is made): the text held so far (a nested decode's parts)
/// and, while a payload is read, its working memory, estimated as for a decode of the payload
/// alone (`ConversionCost.decodeWorking`). Reserved in the job's budget as they come; the first
/// refusal is remembered, so that the failure it causes is answered as the budget's.
final class PayloadReservation {
    private let reservation: Reservation?
    private let admitted: Int
    private(set) var refused = false

    init(_ reservation: Reservation?) {
        self.reservation = reservation
        admitted = reservation?.bytes ?? 0
    }

    /// Whether the budget grants `text` bytes of text held and `reading`'s working memory (nil:
    /// no payload being read) beside what was admitted; the reservation is set to that.
    func hold(text: Int, reading: [UInt8]?) -> Bool {
        guard let reservation else { return true }
        let working = reading.map { ConversionCost.decodeWorking(bodyBytes: $0.count, counts: ArchiveCounts(of: $0)) } ?? 0
        let needed = admitted + text + working
        reservation.shrink(to: needed)
        guard !reservation.grow(to: needed) else { return true }
        refused = true
        return false
    }

    /// The budget's answer to a failure a refusal of `hold` caused; nil when it refused nothing
    /// (the failure is the codec's own).
    func refusal(path: String) -> HTTPResponse? {
        guard refused, let reservation else { return nil }
        return Problem.memoryBudget(needed: reservation.bytes + 1, capacity: reservation.capacity, path: path).response()
    }
}
