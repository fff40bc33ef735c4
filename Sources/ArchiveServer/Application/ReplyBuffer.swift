import HTTPCore

/// A reply body built in an `EventBuffer` while the codec writes it, piece by piece, on a
/// worker. The loop thread then moves its contents into the request's output buffer without
/// copying, so a large reply exists once in memory instead of twice (a Swift array, then
/// libevent's copy of it). With a content coding the pieces are compressed
/// as they come (`ReplyCompressor`), so only the compressed reply is ever held.
///
/// Thread contract: the buffer has no lock. The worker that creates it is its only user until
/// it hands the finished reply to the loop (through the completion queue, whose mutex orders
/// the two), and the loop is its only user after that.
final class ReplyBuffer: @unchecked Sendable {
    /// The bytes kept, which the reply carries (`HTTPReply.buffered`).
    let events: EventBuffer
    /// Bytes appended so far.
    private(set) var count = 0
    /// Set when libevent could not take a piece (out of memory); the reply is then unusable.
    private(set) var failed = false
    /// Set when the memory budget could not take a piece: the reply is then unusable and
    /// nothing more is kept.
    private(set) var overBudget = false
    /// Bytes the reply had reached when the budget refused it.
    private(set) var refusedAt = 0
    private let reservation: Reservation?
    /// Bytes reserved ahead (`reserveAhead`) that no kept piece has used yet.
    private var prepaid = 0
    private let compressor: ReplyCompressor?
    /// The compressor is a streamed reply's, shared by its lines (`init(reservation:sharing:)`).
    private let sharesCompressor: Bool
    /// With a shared compressor: input bytes reserved ahead and not yet fed to it. Input past
    /// them is refused before the compressor sees it: output it made and the budget then
    /// refused would leave a hole in the stream every later line depends on.
    private var inputAllowance = 0
    /// The coding the reply is in, once `finish()` has run.
    private(set) var coding = ContentCoding.identity

    /// `reservation`: grown by every piece before the piece is kept, and by zlib's state when
    /// compression starts. `coding`: the coding the client accepts (`ContentCoding.forReply`).
    init?(reservation: Reservation?, coding: ContentCoding = .identity) {
        guard let events = EventBuffer() else { return nil }
        self.events = events
        self.reservation = reservation
        compressor = coding == .identity ? nil : ReplyCompressor(coding: coding)
        sharesCompressor = false
    }

    /// A piece of a streamed, coded reply (a line, `StreamedLines`): what is appended passes
    /// through `shared`, the reply's one compressor (already started, its state reserved by the
    /// reply), and `finish` flushes it, so the piece holds all of its input compressed.
    /// `reserveAhead` reserves the most its input can compress to (`ReplyCompressor.bound`), so
    /// the compressor is never fed input whose output the budget then refuses.
    init?(reservation: Reservation?, sharing shared: ReplyCompressor) {
        guard let events = EventBuffer() else { return nil }
        self.events = events
        self.reservation = reservation
        compressor = shared
        sharesCompressor = true
        coding = shared.coding
    }

    func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let compressor else { return keep(piece) }
        guard !failed, !overBudget else { return }
        if sharesCompressor {
            guard piece.count <= inputAllowance else {
                overBudget = true
                refusedAt = count + ReplyCompressor.bound(piece.count)
                return
            }
            inputAllowance -= piece.count
        }
        compressor.write(piece, starting: reserveCompressorState, emit: keep)
        if compressor.failed, !overBudget { failed = true }
    }

    /// Reserves `bytes` for pieces still to come, so that a reply made of several pieces that
    /// belong together (a line of a form's reply) is either kept whole or refused before its
    /// first piece: false (nothing reserved, nothing changed) when the budget cannot take them.
    /// A coded reply reserves its compressed pieces as they come, whose size is not known
    /// ahead, and answers true; a piece of a streamed coded reply reserves the most `bytes` can
    /// compress to (`ReplyCompressor.bound`) and is then fed no more input than was reserved.
    func reserveAhead(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        if sharesCompressor {
            let bound = ReplyCompressor.bound(bytes)
            guard reservation?.grow(by: bound) ?? true else { return false }
            if reservation != nil { prepaid += bound }
            inputAllowance += bytes
            return true
        }
        guard compressor == nil, let reservation else { return true }
        guard reservation.grow(by: bytes) else { return false }
        prepaid += bytes
        return true
    }

    /// Appends the first `length` bytes of `other` (another reply's buffer, whose reservation
    /// the caller lets go after this). Uncoded, they are moved without copying (reserved as
    /// every kept piece is); coded, they pass through the compressor.
    func append(first length: Int, of other: EventBuffer) {
        let length = min(length, other.count)
        guard compressor == nil else { return other.forEachPiece(upTo: length, append) }
        guard !failed, !overBudget, length > 0 else { return }
        guard reserve(length) else { return }
        if other.moveFirst(length, into: events) {
            count += length
        } else {
            failed = true
        }
    }

    /// Reserves a piece of `length` bytes about to be kept (from what was reserved ahead first);
    /// when the budget refuses, the reply is over budget and nothing more is kept.
    private func reserve(_ length: Int) -> Bool {
        let fromPrepaid = min(prepaid, length)
        prepaid -= fromPrepaid
        if let reservation, !reservation.grow(by: length - fromPrepaid) {
            overBudget = true
            refusedAt = count + length
            events.removeAll()
            return false
        }
        return true
    }

    private func reserveCompressorState() -> Bool {
        guard let reservation, !reservation.grow(by: ZlibStream.deflateStateBytes) else { return true }
        overBudget = true
        refusedAt = count + ZlibStream.deflateStateBytes
        return false
    }

    /// Ends the reply: what the compressor still holds is kept. Call once, after the last piece.
    /// A piece of a streamed reply flushes the shared compressor instead, and gives back what
    /// it reserved ahead and did not use.
    func finish() {
        guard let compressor, !failed, !overBudget else { return }
        if sharesCompressor {
            compressor.flush(emit: keep)
            if compressor.failed { failed = true }
            if let reservation, prepaid > 0 { reservation.shrink(to: reservation.bytes - prepaid) }
            prepaid = 0
            return
        }
        coding = compressor.finish(emit: keep)
        if compressor.failed { failed = true }
    }

    /// Ends a streamed reply's shared compressor into this piece (its trailer); reserve its
    /// bytes ahead first. Once, after the last line.
    func finishSharedStream() {
        guard let compressor, sharesCompressor, !failed, !overBudget else { return }
        _ = compressor.finish(emit: keep)
        if compressor.failed { failed = true }
    }

    private func keep(_ piece: UnsafeBufferPointer<UInt8>) {
        guard !failed, !overBudget, piece.baseAddress != nil, reserve(piece.count) else { return }
        if events.append(piece) {
            count += piece.count
        } else {
            failed = true
        }
    }
}
