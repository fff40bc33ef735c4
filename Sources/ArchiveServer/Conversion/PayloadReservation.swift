import ArchiveCodec

/// What a conversion's nested payloads hold on top of what the conversion was admitted with
/// (the reservation's bytes when this is made): the text held so far (a nested decode's parts)
/// and, while a payload is read, its working memory, estimated as for a decode of the payload
/// alone (`ConversionCost.decodeWorking`). Reserved in the job's budget as they come; the first
/// refusal is remembered, so that the failure it causes is answered as the budget's.
///
/// A nested summary reads a payload inside the payload it is reading, each level held until
/// its inner ones are done (`holdLevel`): the working memory of every open level is reserved
/// at once, not only the innermost's.
final class PayloadReservation {
    private let reservation: Reservation?
    private let admitted: Int
    private(set) var refused = false
    /// The working memory of each payload a nested summary has open, outermost first.
    private var openLevels: [Int] = []

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

    /// For a nested summary: with a payload's bytes, whether the budget grants its working
    /// memory beside every level still open (which it then holds); with nil, lets the innermost
    /// open level go.
    func holdLevel(_ reading: [UInt8]?) -> Bool {
        guard let reservation else { return true }
        guard let reading else {
            _ = openLevels.popLast()
            reservation.shrink(to: admitted + openLevels.reduce(0, +))
            return true
        }
        let working = ConversionCost.decodeWorking(bodyBytes: reading.count, counts: ArchiveCounts(of: reading))
        let needed = admitted + openLevels.reduce(0, +) + working
        guard reservation.grow(to: needed) else {
            refused = true
            return false
        }
        openLevels.append(working)
        return true
    }

    /// The budget's answer to a failure a refusal of `hold` caused; nil when it refused nothing
    /// (the failure is the codec's own).
    func refusal(path: String) -> HTTPResponse? {
        refusalProblem(path: path)?.response()
    }

    /// `refusal` as a problem, for a caller that words it further.
    func refusalProblem(path: String) -> Problem? {
        guard refused, let reservation else { return nil }
        return Problem.memoryBudget(needed: reservation.bytes + 1, capacity: reservation.capacity, path: path)
    }
}
