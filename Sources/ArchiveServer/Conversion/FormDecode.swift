import ArchiveCodec
import HTTPCore

/// `POST /v1/decode` with a `multipart/form-data` body (`curl -F file=@a.plist -F
/// file=@b.plist`): every part decoded on its own, in order, on one worker, with the request's
/// query options.
///
/// The reply is `application/x-ndjson`, one line per part as `archive-tool decode --ndjson`
/// writes them: `{"file": NAME, "document": …}`, or `{"file": NAME, "error": PROBLEM}` with the
/// problem document a decode of that part alone would be answered with; NAME is the part's
/// file name, else its field name. A part that fails is its line; the others still decode.
/// `?view=summary` answers one summary of all the parts instead (`ArchiveSummary.merged`, each
/// largest value naming its part), as `archive-tool summary` merges several files; a part that
/// cannot be summarised fails the request, its problem naming the part, so that no summary
/// silently leaves a file out.
///
/// The whole body is checked before any part is decoded: a body that is not framed as its
/// Content-Type says is `400 malformed-multipart`, more parts than `--max-parts` or a part
/// larger than `--max-part-size` is `413`, each naming the part.
///
/// Memory: the request was admitted as a decode of its body (`ConversionCost.admission`), which
/// covers the body and the table of its parts (a part takes at least 40 bytes of the body, its
/// entry less than 100 bytes beside the names its headers hold). Once the parts are known the
/// request holds only the body, the table and its reply; each part's copy and working memory
/// are admitted in a reservation of their own (`Reservation.companion`), as a decode of that
/// part alone would be, and let go once its line is written. A part the budget cannot take is
/// its own error line (`memory-budget-full` or `too-large-for-memory`). Each line is reserved
/// before its first byte is kept (`ReplyBuffer.reserveAhead`), so a line is whole or absent.
///
/// One `--conversion-timeout` bounds the whole request: once it has passed, every part not yet
/// decoded is a `conversion-timeout` line.
///
/// To a client that reads a chunked reply (HTTP/1.1) the lines are streamed (`StreamedLines`):
/// each is sent as soon as it is made and stays reserved only until the socket has taken it; the
/// decode stops at the next part once the client went away. Otherwise (HTTP/1.0, and the merged
/// summary) the reply is built whole and sent at the end.
enum FormDecode {
    /// The refusal of options a form's reply cannot take: `pretty` writes a document over many
    /// lines, and a form's reply is one line per part (as `archive-tool decode --ndjson`
    /// refuses `--pretty`). The merged summary is one document and takes it. `salvage` is
    /// said of one document in its reply's header (`Archive-Salvaged`), which a form's lines
    /// have no place for.
    static func refusal(for request: ConversionRequest, path: String) -> Problem? {
        if case .decode(let options) = request, options.salvage {
            return .invalidQuery(
                "salvage says what it marked in the reply's Archive-Salvaged header, which a multipart/form-data decode's lines have no place for: send the document alone",
                path: path)
        }
        let pretty: Bool
        switch request {
        case .decode(let options): pretty = options.pretty
        case .plain(let options): pretty = options.pretty
        case .summary, .encode: pretty = false
        }
        guard pretty else { return nil }
        return .invalidQuery(
            "pretty writes a document over many lines; a multipart/form-data decode answers one JSON line per part (application/x-ndjson): leave pretty out",
            path: path)
    }

    /// Decodes every part of `body`, a form framed by `boundary` (`MultipartForm.boundary`).
    /// With a `stream` (the client reads a chunked reply), the lines are sent as they are made
    /// (`StreamedLines`) and the answer is nil: the caller ends the stream. A refusal of the
    /// whole body, and the merged summary, are answered whole, the stream left unstarted.
    static func run(
        _ request: ConversionRequest, body: RequestBody, boundary: [UInt8], headers: ConversionHeaders, limits: ConversionLimits,
        path: String, reservation: Reservation?, stream: ReplyStream? = nil
    ) -> HTTPResponse? {
        let job = Conversion.Job(headers: headers, limits: limits, path: path, reservation: reservation)
        return ConversionDeadline.run(seconds: limits.seconds) { () -> HTTPResponse? in
            var bytes = body.take()
            if let refusal = Conversion.inflate(&bytes, compressedCount: body.count, job) { return refusal }
            let parts: [MultipartPart]
            do throws(MultipartFailure) {
                parts = try MultipartForm.parts(of: bytes, boundary: boundary, maximumParts: limits.parts)
            } catch {
                let problem: Problem =
                    error.kind == .tooManyParts
                    ? .tooManyParts(error, limit: limits.parts, path: path) : .malformedMultipart(error, path: path)
                return problem.response()
            }
            if let large = parts.first(where: { $0.content.count > limits.partBytes }) {
                return Problem.partTooLarge(large, limit: limits.partBytes, path: path).response()
            }
            // The body and the parts' table stay; the rest of the admission is given back, each
            // part being admitted on its own.
            reservation?.shrink(to: bytes.count + tableBytes(parts))
            if case .summary(let options) = request {
                return summarize(parts, of: bytes, options, job)
            }
            guard let stream else { return decodeLines(parts, of: bytes, request, job) }
            let lines = StreamedLines(stream: stream, coding: headers.replyCoding, reservation: reservation)
            lines.start(contentType: contentType)
            streamLines(parts, of: bytes, request, job, into: lines)
            return nil
        }
    }

    private static let contentType = "application/x-ndjson"

    /// Bytes the table of `parts` holds: its entries and the names they keep.
    private static func tableBytes(_ parts: [MultipartPart]) -> Int {
        parts.reduce(parts.count * MemoryLayout<MultipartPart>.stride) { $0 + $1.name.utf8.count + ($1.filename?.utf8.count ?? 0) }
    }

    /// The job a part is converted in: a reservation of its own in the request's budget, its
    /// reply uncoded (the form's reply is coded as a whole) and no Content-Type (the form's
    /// says nothing of the part, so no `CommonMistake` is read from it).
    private static func partJob(_ job: Conversion.Job) -> Conversion.Job? {
        var reservation: Reservation?
        if let formReservation = job.reservation {
            guard let companion = formReservation.companion() else { return nil }
            reservation = companion
        }
        return Conversion.Job(headers: ConversionHeaders(contentType: nil), limits: job.limits, path: job.path, reservation: reservation)
    }

    /// The part's bytes, copied out of the form's body once they are reserved in `job`; nil
    /// when the budget cannot take them.
    private static func content(of part: MultipartPart, in body: [UInt8], _ job: Conversion.Job) -> [UInt8]? {
        guard job.reservation?.grow(to: part.content.count) ?? true else { return nil }
        return Array(body[part.content])
    }

    // MARK: Lines

    /// Every part's line, in one reply sent when the last is made.
    private static func decodeLines(_ parts: [MultipartPart], of body: [UInt8], _ request: ConversionRequest, _ job: Conversion.Job) -> HTTPResponse {
        let reply: ReplyBuffer
        do throws(CodecError) {
            reply = try Conversion.replyBuffer(job)
        } catch {
            return Problem(error, path: job.path).response()
        }
        for part in parts {
            writeLine(for: part, of: body, request, job, into: reply)
        }
        do throws(CodecError) {
            return try Conversion.buffered(reply, contentType: contentType, job)
        } catch {
            return Problem(error, path: job.path).response()
        }
    }

    /// Every part's line, each sent once made; stops at the next part once the client went
    /// away. A line that cannot even be begun (no memory for its buffer) is left out, as a line
    /// the budget refuses whole is.
    private static func streamLines(
        _ parts: [MultipartPart], of body: [UInt8], _ request: ConversionRequest, _ job: Conversion.Job, into lines: StreamedLines
    ) {
        for part in parts {
            if lines.isCancelled { return }
            guard let line = lines.line() else { continue }
            writeLine(for: part, of: body, request, job, into: line.buffer)
            guard lines.send(line) else { return }
        }
        lines.end()
    }

    /// Decodes `part` and writes its line into `reply`: whole, or (when the budget cannot take
    /// even its error line) not at all.
    private static func writeLine(
        for part: MultipartPart, of body: [UInt8], _ request: ConversionRequest, _ job: Conversion.Job, into reply: ReplyBuffer
    ) {
        let head = Array("{\"file\":\(JSONString.quoted(part.label)),".utf8)
        // The part's reservation holds its document until the document is in the reply.
        let (answer, held) = answer(for: part, of: body, request, job)
        withExtendedLifetime(held) {
            guard answer.status == 200, let document = answer.reply.buffered else {
                return append(errorLine(head: head, problem: answer), to: reply)
            }
            // The part's working memory is gone; its document stays reserved there until the
            // reply has reserved it too.
            held?.shrink(to: document.count)
            // A compact document ends with a newline: the line's own comes after the `}`.
            let length = document.lastByte == UInt8(ascii: "\n") ? document.count - 1 : document.count
            guard reply.reserveAhead(head.count + documentKey.count + length + lineEnd.count) else {
                // The reply cannot hold this document: the line says so instead.
                let needed = (job.reservation?.bytes ?? 0) + head.count + length
                let refusal = Problem.memoryBudget(needed: needed, capacity: job.reservation?.capacity ?? needed, path: job.path)
                return append(errorLine(head: head, problem: refusal.response()), to: reply)
            }
            append(head + documentKey, to: reply)
            reply.append(first: length, of: document)
            append(lineEnd, to: reply)
        }
    }

    /// A decode of `part` alone, as `request` asks, in a job of its own, and the reservation
    /// that holds what the answer keeps (nil: no budget).
    private static func answer(
        for part: MultipartPart, of body: [UInt8], _ request: ConversionRequest, _ job: Conversion.Job
    ) -> (HTTPResponse, Reservation?) {
        if ConversionDeadline.hasPassed { return (Problem.conversionTimeout(seconds: job.limits.seconds, path: job.path).response(), nil) }
        guard let partJob = partJob(job), let bytes = content(of: part, in: body, partJob) else {
            let refusal = Problem.memoryBudget(needed: part.content.count, capacity: job.reservation?.capacity ?? part.content.count, path: job.path)
            return (refusal.response(), nil)
        }
        return (Conversion.convert(bytes, request, partJob), partJob.reservation)
    }

    private static let documentKey = Array("\"document\":".utf8)
    private static let errorKey = Array("\"error\":".utf8)
    private static let lineEnd = Array("}\n".utf8)

    /// `{"file": …, "error": PROBLEM}` and its newline, from a problem reply (whose body ends
    /// with a newline).
    private static func errorLine(head: [UInt8], problem: HTTPResponse) -> [UInt8] {
        var document = problem.body
        if document.last == UInt8(ascii: "\n") { document.removeLast() }
        return head + errorKey + document + lineEnd
    }

    /// Keeps `bytes` in `reply` as one piece: whole, or (when the budget cannot take it) the
    /// reply is over budget and answered as such. An error line is reserved ahead, so that a
    /// streamed line's compressor is never fed what the budget then refuses.
    private static func append(_ bytes: [UInt8], to reply: ReplyBuffer) {
        _ = reply.reserveAhead(bytes.count)
        bytes.withUnsafeBufferPointer { reply.append($0) }
    }

    // MARK: Summary

    /// One summary of every part, or the first part's failure, naming the part.
    private static func summarize(_ parts: [MultipartPart], of body: [UInt8], _ options: SummaryOptions, _ job: Conversion.Job) -> HTTPResponse {
        var merged: ArchiveSummary?
        let request = ConversionRequest.summary(options)
        for part in parts {
            if ConversionDeadline.hasPassed { return Problem.conversionTimeout(seconds: job.limits.seconds, path: job.path).response() }
            guard let partJob = partJob(job), let bytes = content(of: part, in: body, partJob) else {
                return Problem.memoryBudget(needed: part.content.count, capacity: job.reservation?.capacity ?? part.content.count, path: job.path).response()
            }
            let summary: ArchiveSummary
            do throws(CodecError) {
                switch try Conversion.summary(of: bytes, options, partJob) {
                case .summary(let made): summary = made
                case .refused(let refusal): return naming(part, refusal).response()
                }
            } catch {
                return naming(part, Conversion.problem(error, request: request, body: bytes, partJob)).response()
            }
            let named = summary.attributed(to: part.label)
            merged = merged.map { $0.merged(with: named) } ?? named
        }
        // MultipartForm returns at least one part.
        guard let merged else { return Problem.malformedMultipart(MultipartFailure(part: 1, reason: "the form has no part"), path: job.path).response() }
        let reply: ReplyBuffer
        do throws(CodecError) {
            reply = try Conversion.replyBuffer(job)
            merged.json(pretty: options.pretty).withUnsafeBufferPointer { reply.append($0) }
            if !options.pretty { append([UInt8(ascii: "\n")], to: reply) }
            return try Conversion.buffered(reply, contentType: "application/json", job)
        } catch {
            return Problem(error, path: job.path).response()
        }
    }

    /// `problem` with its detail beginning with the part it is about.
    private static func naming(_ part: MultipartPart, _ problem: Problem) -> Problem {
        var problem = problem
        problem.detail = "Part \(part.number) (\(part.label)): \(problem.detail)"
        return problem
    }
}
