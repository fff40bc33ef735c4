import ArchiveCodec
import HTTPCore

/// The work done on a worker thread, as four steps: **inflate** a coded body, **admit** the
/// working memory the conversion's input says it needs, **convert**, and **reply** from a buffer
/// reserved in the budget as it fills. Depth is always measured (without recursion) before
/// anything recursive runs, so a worker never goes deeper than its stack admits.
enum Conversion {
    /// What one conversion works with: the request's limits, where to charge its memory, and the
    /// path its problems name.
    struct Job {
        let headers: ConversionHeaders
        let limits: ConversionLimits
        let path: String
        /// nil: no memory budget.
        let reservation: Reservation?
    }

    /// Runs one conversion. Every reply is written into a `ReplyBuffer` as it is made, so it is
    /// in memory once, and reserved in the budget piece by piece (`reservation`): a small archive
    /// can stand for a reply of many megabytes, and the budget must see it grow, not after.
    static func run(
        _ request: ConversionRequest, body: RequestBody, headers: ConversionHeaders, limits: ConversionLimits,
        path: String, reservation: Reservation?
    ) -> HTTPResponse {
        let job = Job(headers: headers, limits: limits, path: path, reservation: reservation)
        // Every loop of the codec (and the inflation here) polls this deadline.
        return ConversionDeadline.run(seconds: limits.seconds) {
            var bytes = body.take()
            if let refusal = inflate(&bytes, compressedCount: body.count, job) { return refusal }
            return convert(bytes, request, job)
        }
    }

    /// Converts `bytes` (inflated) as `request` asks, admitted, planned and replied as `run`
    /// says; a codec failure is answered with its problem. Runs under the caller's deadline.
    static func convert(_ bytes: [UInt8], _ request: ConversionRequest, _ job: Job) -> HTTPResponse {
        do throws(CodecError) {
            switch request {
            case .decode(let options): return try decode(bytes, options, job)
            case .summary(let options): return try summarize(bytes, options, job)
            case .plain(let options): return try decodePlain(bytes, options, job)
            case .encode(let format, let dropBroken): return try encode(bytes, format, dropBroken: dropBroken, job)
            }
        } catch {
            return problem(error, request: request, body: bytes, job).response()
        }
    }

    // MARK: Inflate

    /// Replaces a coded body (`headers.bodyCoding`) with its inflated bytes, under
    /// `--max-body-size` and the budget; the refusal to answer when it cannot (nil: inflated, or
    /// not coded).
    static func inflate(_ bytes: inout [UInt8], compressedCount: Int, _ job: Job) -> HTTPResponse? {
        let coding = job.headers.bodyCoding
        guard coding != .identity else { return nil }
        do throws(BodyInflation.Failure) {
            bytes = try BodyInflation.inflate(bytes, coding: coding, limit: job.limits.bodyBytes) { total in
                job.reservation?.grow(to: total) ?? true
            }
            // The compressed body is gone: the inflated one is what is held now.
            job.reservation?.shrink(to: bytes.count)
            return nil
        } catch {
            switch error {
            case .tooLarge(let limit):
                return Problem.inflatesTooLarge(compressed: compressedCount, coding: coding, limit: limit, path: job.path).response()
            case .overBudget(let needed):
                return Problem.memoryBudget(needed: needed, capacity: job.reservation?.capacity ?? needed, path: job.path).response()
            case .malformed(let what):
                return Problem.malformedContentEncoding(coding, what, path: job.path).response()
            case .outOfMemory:
                return Problem(outOfMemory, path: job.path).response()
            case .timedOut:
                return Problem.conversionTimeout(seconds: job.limits.seconds, path: job.path).response()
            }
        }
    }

    // MARK: Admit

    /// Grows the job's reservation to `needed` bytes when it holds fewer; the refusal to answer
    /// when the budget cannot grant them (nil: reserved, or no budget).
    private static func admit(_ needed: Int, _ job: Job) -> HTTPResponse? {
        admission(needed, job)?.response()
    }

    /// `admit`'s refusal as a problem, for a caller that words it further.
    private static func admission(_ needed: Int, _ job: Job) -> Problem? {
        guard let reservation = job.reservation, !reservation.grow(to: needed) else { return nil }
        return Problem.memoryBudget(needed: needed, capacity: reservation.capacity, path: job.path)
    }

    // MARK: Convert

    /// A property list to JSON: admitted by the archive's counts, planned (and refused when the
    /// stack cannot hold its depth), then written straight into the reply.
    private static func decode(_ bytes: [UInt8], _ options: DecodeOptions, _ job: Job) throws(CodecError) -> HTTPResponse {
        let (view, pretty) = (options.view, options.pretty)
        // The counts of objects and entries, not the size of the bytes, say what the decode's
        // tables will hold: one byte of reference can stand for an entry. A salvage may read a
        // repaired copy too, and holds its marks.
        let counts = ArchiveCounts(of: bytes)
        let working =
            options.salvage
            ? ConversionCost.salvageWorking(bodyBytes: bytes.count, counts: counts) : ConversionCost.decodeWorking(bodyBytes: bytes.count, counts: counts)
        if let refusal = admit(working, job) { return refusal }
        let archive = try Archive(parsing: bytes, view: view, salvaging: options.salvage)
        if let valuePath = options.path, view == .readable, !options.nested, options.maxDepth == nil,
            let answer = try answerBeforePlacement(at: valuePath, of: archive, options, job)
        {
            return salvaged(answer, breaks: archive.breaks)
        }
        // A nested expansion holds its parts' text until written, and each payload's tables while
        // it is read: reserved as they come, as a decode of the payload alone would be.
        let payloads = PayloadReservation(job.reservation)
        let plan: WritePlan
        do throws(CodecError) {
            plan = try archive.plan(
                view: view, pretty: pretty, maxDepth: options.maxDepth, numbers: options.numbers, nested: options.nested ? job.limits.decode : nil,
                depthLimit: job.limits.decode.nestingLimit(pretty: pretty), hold: payloads.hold)
        } catch {
            guard let refusal = payloads.refusal(path: job.path) else { throw error }
            return refusal
        }
        if let refusal = job.limits.decode.refusal(depth: plan.depth, pretty: pretty) {
            return Problem.refused(refusal, bounded: options.maxDepth != nil, path: job.path).response()
        }
        if let valuePath = options.path {
            return salvaged(try answerValue(at: valuePath, of: archive, options, plan: plan, job), breaks: archive.breaks)
        }
        let reply = try replyBuffer(job)
        // A refusal for size found part way leaves a partial buffer: dropped with it.
        try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: .serial) { reply.append($0) }
        // Indented text ends with a newline; compact text gets one here, so that a terminal's
        // next prompt (or a second document) starts on a line of its own.
        if !pretty { newline.withUnsafeBufferPointer { reply.append($0) } }
        return salvaged(try buffered(reply, contentType: "application/json", job), breaks: archive.breaks)
    }

    /// The header a salvaged decode's reply carries: how many places it marked `$broken`, so
    /// that a client never takes the JSON for a whole file's.
    static let salvagedHeader = "Archive-Salvaged"

    /// `response` saying, when it is a 200 of a salvaged decode, how many places were marked.
    private static func salvaged(_ response: HTTPResponse, breaks: Int) -> HTTPResponse {
        guard breaks > 0, response.status == 200 else { return response }
        var response = response
        response.headers.append(HTTPResponse.Header(name: salvagedHeader, value: String(breaks)))
        response.salvagedBreaks = breaks
        return response
    }

    /// `?path=` answered before the archive is planned, where the codec finds the value so
    /// (`Archive.valueDocumentBeforePlacement`: no placement of the whole document, nothing
    /// written deeper than the stack allows), held in the budget as it grows; nil when it
    /// gives up (what it held given back), and the decode plans as for any path.
    private static func answerBeforePlacement(at path: ReadablePath, of archive: Archive, _ options: DecodeOptions, _ job: Job) throws(CodecError) -> HTTPResponse? {
        let held = DecodedTextReservation(job.reservation)
        let reply = try pathReply(held, options, job) { () throws(CodecError) in
            try archive.valueDocumentBeforePlacement(
                at: path, numbers: options.numbers, depthLimit: job.limits.decode.nestingLimit(pretty: options.pretty), hold: held.hold
            ).map { ($0, ReadablePath(steps: [])) }
        }
        if reply == nil { _ = held.hold(0) }
        return reply
    }

    /// `?path=`: the value alone where the codec can write it so (`Archive.readableValueDocument`,
    /// the bodies on the way and the answer held in the budget as they grow); else the decode's
    /// text is made whole and indexed (`Archive.decodedDocument`, held in the budget as it
    /// grows and before it is parsed, as the plain view's is). Only the value at `path` is
    /// answered; a path that leads nowhere is `422 path-not-found`, naming how far it got.
    private static func answerValue(at path: ReadablePath, of archive: Archive, _ options: DecodeOptions, plan: WritePlan, _ job: Job) throws(CodecError) -> HTTPResponse {
        let held = DecodedTextReservation(job.reservation)
        let reply = try pathReply(held, options, job) { () throws(CodecError) -> (JSONDocument, ReadablePath)? in
            if options.view == .readable, let value = try archive.readableValueDocument(at: path, plan: plan, hold: held.hold) {
                return (value, ReadablePath(steps: []))
            }
            return (try wholeDocument(of: archive, view: options.view, plan: plan, held), path)
        }
        // The whole document always answers.
        return reply!
    }

    /// The reply to `?path=` from the document `find` makes and the path left to follow in
    /// it (its text held in `held`: a refusal of the budget is answered as one), or nil when
    /// `find` finds none.
    private static func pathReply(
        _ held: DecodedTextReservation, _ options: DecodeOptions, _ job: Job, finding find: () throws(CodecError) -> (JSONDocument, ReadablePath)?
    ) throws(CodecError) -> HTTPResponse? {
        let found: (document: JSONDocument, rest: ReadablePath)?
        do throws(CodecError) {
            found = try find()
        } catch {
            guard let refusal = held.refusal(path: job.path) else { throw error }
            return refusal
        }
        guard let found else { return nil }
        return try pathAnswer(try replyBuffer(job), job) { sink throws(JSONDocument.PathFailure) in
            try found.document.writeValue(at: found.rest, pretty: options.pretty, to: sink)
        }
    }

    /// The decode's text made whole and indexed, for a path to be followed in it: held in the
    /// budget as it grows and before it is parsed, with the index, the identities a `$ref` on
    /// the way asks for and the walk's stack bounded as the plain view's are.
    private static func wholeDocument(of archive: Archive, view: ArchiveView, plan: WritePlan, _ held: DecodedTextReservation) throws(CodecError) -> JSONDocument {
        try archive.decodedDocument(view: view, plan: plan, hold: held.hold) { text in
            PlainView.workingBytes(losslessText: text, depth: plan.depth)
        }
    }

    /// The reply to `?path=`: what `write` writes into `reply`, or `422 path-not-found` naming
    /// how far the path got; a refusal on the way (a bound of the walk's, the deadline, the
    /// output limit) is thrown as the conversion's.
    private static func pathAnswer(
        _ reply: ReplyBuffer, _ job: Job, writing write: (@escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(JSONDocument.PathFailure) -> Void
    ) throws(CodecError) -> HTTPResponse {
        do throws(JSONDocument.PathFailure) {
            try write { reply.append($0) }
        } catch {
            if let refusal = error.refusal { throw refusal }
            return Problem.pathNotFound(error.description, path: job.path).response()
        }
        return try buffered(reply, contentType: "application/json", job)
    }

    /// A document's plain view: admitted and planned as a decode of the lossless view (which it
    /// is made from, compact), refused for depth as that decode is (its writer recurses; the
    /// plain view never nests deeper). The lossless text, its parsed index and the walk's state
    /// are reserved before they are held (`Archive.writePlainJSON`'s `hold`), the reply as it
    /// is written. With `path`, the plain view of the value there alone (`422 path-not-found`
    /// when it leads nowhere), made from the whole lossless document held the same way.
    private static func decodePlain(_ bytes: [UInt8], _ options: PlainOptions, _ job: Job) throws(CodecError) -> HTTPResponse {
        if let refusal = admit(ConversionCost.decodeWorking(bodyBytes: bytes.count, counts: ArchiveCounts(of: bytes)), job) {
            return refusal
        }
        let archive = try Archive(parsing: bytes)
        let payloads = PayloadReservation(job.reservation)
        let plan: WritePlan
        do throws(CodecError) {
            plan = try archive.plainViewPlan(
                nested: options.nested ? job.limits.decode : nil, depthLimit: job.limits.decode.nestingLimit(pretty: options.pretty), hold: payloads.hold)
        } catch {
            guard let refusal = payloads.refusal(path: job.path) else { throw error }
            return refusal
        }
        if let refusal = job.limits.decode.refusal(depth: plan.depth, pretty: options.pretty) {
            return Problem.refused(refusal, bounded: false, plain: true, path: job.path).response()
        }
        let reply = try replyBuffer(job)
        // The lossless text and its index, held on top of what is reserved so far (the plan's
        // payload text, the reply's coder).
        let held = DecodedTextReservation(job.reservation)
        do throws(CodecError) {
            guard let valuePath = options.path else {
                try archive.writePlainJSON(pretty: options.pretty, plan: plan, hold: held.hold) { reply.append($0) }
                if !options.pretty { newline.withUnsafeBufferPointer { reply.append($0) } }
                return try buffered(reply, contentType: "application/json", job)
            }
            // The whole lossless document: the value's references outside itself are written in it.
            let document = try wholeDocument(of: archive, view: .readable, plan: plan, held)
            let limit = KeyedArchive.maximumOutputSize(forInputSize: archive.inputSize)
            return try pathAnswer(reply, job) { sink throws(JSONDocument.PathFailure) in
                try document.writePlainValue(at: valuePath, pretty: options.pretty, limit: limit, to: sink)
            }
        } catch {
            guard let refusal = held.refusal(path: job.path) else { throw error }
            return refusal
        }
    }

    /// A document's summary: admitted as a decode is (it reads the archive the same way and
    /// places its readable view as the depth probe does), each payload's working memory held
    /// while it is read. No depth limit: the summary does not recurse and its reply does not
    /// nest, so an archive too deep to decode in one piece is summarised (its
    /// `nesting.readable` says how deep it is).
    private static func summarize(_ bytes: [UInt8], _ options: SummaryOptions, _ job: Job) throws(CodecError) -> HTTPResponse {
        let summary: ArchiveSummary
        switch try Self.summary(of: bytes, options, job) {
        case .summary(let made): summary = made
        case .refused(let refusal): return refusal.response()
        }
        let reply = try replyBuffer(job)
        summary.json(pretty: options.pretty).withUnsafeBufferPointer { reply.append($0) }
        if !options.pretty { newline.withUnsafeBufferPointer { reply.append($0) } }
        return try buffered(reply, contentType: "application/json", job)
    }

    /// A document's summary, or the budget's refusal.
    enum SummaryOutcome {
        case summary(ArchiveSummary)
        case refused(Problem)
    }

    /// The summary of one document, admitted and held as `summarize` says; the working memory
    /// stays reserved in the job until the caller shrinks it.
    static func summary(of bytes: [UInt8], _ options: SummaryOptions, _ job: Job) throws(CodecError) -> SummaryOutcome {
        if let refusal = admission(ConversionCost.decodeWorking(bodyBytes: bytes.count, counts: ArchiveCounts(of: bytes)), job) {
            return .refused(refusal)
        }
        let archive = try Archive(parsing: bytes)
        let payloads = PayloadReservation(job.reservation)
        do throws(CodecError) {
            return .summary(try archive.summary(nested: options.nested) { payloads.holdLevel($0) })
        } catch {
            guard let refusal = payloads.refusalProblem(path: job.path) else { throw error }
            return .refused(refusal)
        }
    }

    /// JSON to a property list: admitted by the document's count of values, then written as it
    /// is encoded (binary) or built whole within what the budget can grant now (XML).
    private static func encode(_ bytes: [UInt8], _ format: PlistFormat, dropBroken: Bool, _ job: Job) throws(CodecError) -> HTTPResponse {
        // The document shares the body's bytes (no copy); without its `$broken` marks it is a
        // copy no larger than the body.
        var document = try JSONDocument(parsing: bytes)
        if dropBroken { document = try document.droppingBroken() }
        // The count of values, not the size of the text, says what encoding will hold.
        let working = ConversionCost.encodeWorking(bodyBytes: bytes.count, document: document)
        if let refusal = admit(working, job) {
            return refusal
        }
        if document.isTypedStream {
            // A typedstream has one byte form, whatever plist format was asked for.
            let reply = try replyBuffer(job)
            try document.writeArchive { reply.append($0) }
            return try buffered(reply, contentType: "application/octet-stream", job, headers: [typedStreamAttachment])
        }
        guard format == .binary else { return try encodeXML(document, job) }
        let reply = try replyBuffer(job)
        try document.writeArchive { reply.append($0) }
        return try buffered(reply, contentType: contentType(of: format), job, headers: [archiveAttachment])
    }

    /// The XML writer builds its text whole: it may grow only as far as the budget has room
    /// now, and gives back what it did not use once the text exists.
    private static func encodeXML(_ document: JSONDocument, _ job: Job) throws(CodecError) -> HTTPResponse {
        let cap = document.maximumArchiveSize
        let reservation = job.reservation
        let granted = reservation?.grow(upTo: cap) ?? cap
        do throws(CodecError) {
            let text = try document.archive(format: .xml, limit: granted)
            reservation?.shrink(to: (reservation?.bytes ?? 0) - granted + text.count)
            guard job.headers.replyCoding == .identity else {
                let reply = try replyBuffer(job)
                text.withUnsafeBufferPointer { reply.append($0) }
                return try buffered(reply, contentType: contentType(of: .xml), job, headers: [archiveAttachment])
            }
            var response = HTTPResponse(status: 200, contentType: contentType(of: .xml), headers: [archiveAttachment], body: text)
            response.setCoding(.identity)
            return response
        } catch let error where error.kind == .limitExceeded && granted < cap {
            // Past what the budget could grant: the budget's refusal, not the codec's limit.
            guard let reservation else { throw error }
            return Problem.memoryBudget(needed: reservation.bytes + 1, capacity: reservation.capacity, path: job.path).response()
        }
    }

    // MARK: Reply

    /// An encoded archive is a file: `curl -OJ` saves it under this name, browsers download it.
    static let archiveAttachment = HTTPResponse.Header(name: "Content-Disposition", value: "attachment; filename=\"archive.plist\"")
    static let typedStreamAttachment = HTTPResponse.Header(name: "Content-Disposition", value: "attachment; filename=\"archive.typedstream\"")

    private static func contentType(of format: PlistFormat) -> String {
        format == .xml ? "application/xml" : "application/x-bplist"
    }

    private static let newline: [UInt8] = [UInt8(ascii: "\n")]

    private static let outOfMemory = CodecError(.limitExceeded, "out of memory while setting up the reply")

    /// A buffer for the reply, charged to the job's reservation and coded as the client asked.
    static func replyBuffer(_ job: Job) throws(CodecError) -> ReplyBuffer {
        guard let reply = ReplyBuffer(reservation: job.reservation, coding: job.headers.replyCoding) else { throw outOfMemory }
        return reply
    }

    /// The finished reply in `reply`, or the refusal its budget or memory made.
    static func buffered(
        _ reply: ReplyBuffer, contentType: String, _ job: Job,
        headers: [HTTPResponse.Header] = []
    ) throws(CodecError) -> HTTPResponse {
        reply.finish()
        if reply.overBudget, let reservation = job.reservation {
            return Problem.memoryBudget(
                needed: reservation.bytes + reply.refusedAt - reply.count,
                capacity: reservation.capacity, path: job.path
            ).response()
        }
        guard !reply.failed else {
            throw CodecError(.limitExceeded, "out of memory while buffering a \(reply.count)-byte reply")
        }
        var response = HTTPResponse(status: 200, contentType: contentType, buffered: reply)
        response.headers = headers
        response.setCoding(reply.coding)
        return response
    }

    /// The problem for a codec failure; for input that is not what the route takes, the fix for
    /// the mistake it shows (`CommonMistake`) comes first.
    static func problem(_ error: CodecError, request: ConversionRequest, body: [UInt8], _ job: Job) -> Problem {
        if error.kind == .timedOut { return .conversionTimeout(seconds: job.limits.seconds, path: job.path) }
        var problem = Problem(error, path: job.path)
        if error.kind != .limitExceeded, error.kind != .depthBoundTooSmall,
            let mistake = CommonMistake.find(route: request.route, contentType: job.headers.contentType, body: body)
        {
            problem.detail = "\(mistake.fix(on: request.route)) (\(problem.detail))"
        }
        return problem
    }
}
