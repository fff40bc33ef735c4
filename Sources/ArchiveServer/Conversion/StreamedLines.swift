import HTTPCore

/// A reply of lines (`application/x-ndjson`) sent line by line as each is made (`ReplyStream`,
/// chunked), so that a request never holds more than the lines the client has not read yet: a
/// form's decode (`FormDecode`) writes each part's line here as soon as it is made.
///
/// Each line is built in a `ReplyBuffer` of its own with a reservation of its own (`line()`),
/// reserved before its first byte is kept, and handed to the stream with that reservation
/// (`send`): its bytes stay reserved in the budget until the socket has taken them. The stream
/// lets at most `ReplyStream.queueLimit` bytes wait unwritten before `send` waits, so a slow
/// reader holds the budget to that and one line.
///
/// With a content coding, one compressor (`ReplyCompressor`, started at once: the coding is
/// announced in the head, before any line is known) runs across the lines, its state reserved
/// in the request's reservation, and is flushed after each line so that every line reaches the
/// client whole; `end` writes the coding's trailer.
///
/// Thread contract: the one worker making the reply.
final class StreamedLines {
    private let stream: ReplyStream
    /// The request's reservation: holds the compressor's state; each line's reservation is a
    /// companion of it.
    private let reservation: Reservation?
    private let compressor: ReplyCompressor?

    /// Lines for `stream` in `coding` (the client's, `ContentCoding.forReply`). A coding whose
    /// compressor state the budget or zlib cannot take is dropped: the lines go uncoded.
    init(stream: ReplyStream, coding: ContentCoding, reservation: Reservation?) {
        self.stream = stream
        self.reservation = reservation
        var compressor: ReplyCompressor?
        if coding != .identity, reservation?.grow(by: ZlibStream.deflateStateBytes) ?? true {
            let made = ReplyCompressor(coding: coding)
            if made.startNow() {
                compressor = made
            } else {
                reservation?.shrink(to: (reservation?.bytes ?? 0) - ZlibStream.deflateStateBytes)
            }
        }
        self.compressor = compressor
    }

    /// The coding the lines are in.
    var coding: ContentCoding { compressor?.coding ?? .identity }

    /// Sends the head: 200, `contentType`, and the coding (`HTTPResponse.setCoding`'s headers).
    func start(contentType: String) {
        var head = HTTPResponse(status: 200, contentType: contentType, body: [])
        head.setCoding(coding)
        stream.start(status: 200, contentType: contentType, headers: head.headers, holding: nil)
    }

    /// The client went away: no line will reach it.
    var isCancelled: Bool { stream.isCancelled }

    /// A buffer for the next line, with its own reservation; nil when neither can be had (the
    /// budget could not even start an empty reservation, or libevent had no memory).
    func line() -> (buffer: ReplyBuffer, reservation: Reservation?)? {
        var lineReservation: Reservation?
        if let reservation {
            guard let companion = reservation.companion() else { return nil }
            lineReservation = companion
        }
        let buffer =
            if let compressor {
                ReplyBuffer(reservation: lineReservation, sharing: compressor)
            } else {
                ReplyBuffer(reservation: lineReservation)
            }
        return buffer.map { ($0, lineReservation) }
    }

    /// Sends `line` (from `line()`, written): waits while the client is behind
    /// (`ReplyStream.write`). A line over budget or out of memory is not sent. False when the
    /// client went away.
    @discardableResult
    func send(_ line: (buffer: ReplyBuffer, reservation: Reservation?)) -> Bool {
        line.buffer.finish()
        guard !line.buffer.failed, !line.buffer.overBudget else { return !stream.isCancelled }
        return stream.write(line.buffer.events, holding: line.reservation)
    }

    /// Ends the coding (its trailer, reserved as a line); the caller then ends the stream
    /// (`EventLoop.endStream`, from the work's `LoopMessage.finished`).
    func end() {
        guard compressor != nil, !stream.isCancelled, let trailer = line() else { return }
        guard trailer.buffer.reserveAhead(1) else { return }
        trailer.buffer.finishSharedStream()
        guard !trailer.buffer.failed, !trailer.buffer.overBudget else { return }
        stream.write(trailer.buffer.events, holding: trailer.reservation)
    }
}
