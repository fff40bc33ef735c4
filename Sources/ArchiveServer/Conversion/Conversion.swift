import ArchiveCodec

/// The work done on a worker thread. Depth is always measured (without recursion) before anything
/// recursive runs, so a worker never goes deeper than its stack admits.
enum Conversion {
    /// Runs one conversion. Every reply is written into a `ReplyBuffer` as it is made, so it is
    /// in memory once, and reserved in the budget piece by piece (`reservation`): a small archive
    /// can stand for a reply of many megabytes, and the budget must see it grow, not after.
    /// A coded body is inflated first (`BodyInflation`); a successful reply is written in
    /// `headers.replyCoding` (`ReplyBuffer`).
    static func run(_ request: ConversionRequest, body: RequestBody, headers: ConversionHeaders, limits: ConversionLimits,
                    path: String, reservation: Reservation?) -> HTTPResponse {
        var bytes = body.take()
        if headers.bodyCoding != .identity {
            do throws(BodyInflation.Failure) {
                bytes = try BodyInflation.inflate(bytes, coding: headers.bodyCoding, limit: limits.bodyBytes) { total in
                    reservation?.grow(to: total) ?? true
                }
                // The compressed body is gone: the inflated one is what is held now.
                reservation?.shrink(to: bytes.count)
            } catch {
                switch error {
                case let .tooLarge(limit):
                    return Problem.inflatesTooLarge(compressed: body.count, coding: headers.bodyCoding, limit: limit, path: path).response()
                case let .overBudget(needed):
                    return Problem.memoryBudget(needed: needed, capacity: reservation?.capacity ?? needed, path: path).response()
                case let .malformed(what):
                    return Problem.malformedContentEncoding(headers.bodyCoding, what, path: path).response()
                case .outOfMemory:
                    return Problem(outOfMemory, path: path).response()
                }
            }
        }
        let contentType = headers.contentType
        let replyCoding = headers.replyCoding
        do throws(CodecError) {
            switch request {
            case let .decode(options):
                let (view, pretty) = (options.view, options.pretty)
                // The counts of objects and entries, not the size of the bytes, say what the
                // decode's tables will hold: one byte of reference can stand for an entry.
                let needed = ConversionCost.decodeWorking(bodyBytes: bytes.count, census: ArchiveCensus(of: bytes))
                if let refusal = reserve(needed, in: reservation, path: path) { return refusal }
                let archive = try KeyedArchive(parsing: bytes)
                let plan = try archive.plan(view: view, pretty: pretty, maxDepth: options.maxDepth, exactIntegers: options.exactIntegers)
                if let refusal = limits.decode.refusal(depth: plan.depth, pretty: pretty) {
                    return Problem.refused(refusal, bounded: options.maxDepth != nil, path: path).response()
                }
                guard let reply = ReplyBuffer(reservation: reservation, coding: replyCoding) else { throw outOfMemory }
                // A refusal for size found part way leaves a partial buffer: dropped with it.
                try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: .serial) { reply.append($0) }
                // Indented text ends with a newline; compact text gets one here, so that a
                // terminal's next prompt (or a second document) starts on a line of its own.
                if !pretty { Self.newline.withUnsafeBufferPointer { reply.append($0) } }
                return try buffered(reply, contentType: "application/json", path: path, reservation: reservation)
            case let .encode(format):
                // The document shares the body's bytes (no copy).
                let document = try JSONDocument(parsing: bytes)
                // The count of values, not the size of the text, says what encoding will hold.
                let needed = ConversionCost.encodeWorking(bodyBytes: bytes.count, values: document.valueCount)
                if let refusal = reserve(needed, in: reservation, path: path) { return refusal }
                let contentType = format == .xml ? "application/xml" : "application/x-bplist"
                if format == .binary {
                    guard let reply = ReplyBuffer(reservation: reservation, coding: replyCoding) else { throw outOfMemory }
                    try document.writeArchive { reply.append($0) }
                    return try buffered(reply, contentType: contentType, path: path, reservation: reservation, headers: [archiveAttachment])
                }
                // The XML writer builds its text whole: it may grow only as far as the budget
                // has room now, and gives back what it did not use once the text exists.
                let cap = document.maximumArchiveSize
                let granted = reservation?.grow(upTo: cap) ?? cap
                do throws(CodecError) {
                    let text = try document.archive(format: format, limit: granted)
                    reservation?.shrink(to: (reservation?.bytes ?? 0) - granted + text.count)
                    if replyCoding != .identity {
                        guard let reply = ReplyBuffer(reservation: reservation, coding: replyCoding) else { throw outOfMemory }
                        text.withUnsafeBufferPointer { reply.append($0) }
                        return try buffered(reply, contentType: contentType, path: path, reservation: reservation, headers: [archiveAttachment])
                    }
                    var response = HTTPResponse(status: 200, contentType: contentType, headers: [archiveAttachment], body: text)
                    response.setCoding(.identity)
                    return response
                } catch let error where error.kind == .limitExceeded && granted < cap {
                    if let reservation {
                        return Problem.memoryBudget(needed: reservation.bytes + 1, capacity: reservation.capacity, path: path).response()
                    }
                    throw error
                }
            }
        } catch {
            var problem = Problem(error, path: path)
            if error.kind != .limitExceeded, error.kind != .depthBoundTooSmall,
               let mistake = CommonMistake.find(route: request.route, contentType: contentType, body: bytes) {
                problem.detail = "\(mistake.fix(on: request.route)) (\(problem.detail))"
            }
            return problem.response()
        }
    }

    /// Grows `reservation` to `needed` bytes when it holds fewer; the refusal to answer when the
    /// budget cannot grant them (nil: reserved, or no budget).
    private static func reserve(_ needed: Int, in reservation: Reservation?, path: String) -> HTTPResponse? {
        guard let reservation, !reservation.grow(to: needed) else { return nil }
        return Problem.memoryBudget(needed: needed, capacity: reservation.capacity, path: path).response()
    }

    /// An encoded archive is a file: `curl -OJ` saves it under this name, browsers download it.
    static let archiveAttachment = HTTPResponse.Header(name: "Content-Disposition", value: "attachment; filename=\"archive.plist\"")

    private static let newline: [UInt8] = [UInt8(ascii: "\n")]

    private static let outOfMemory = CodecError(.limitExceeded, "out of memory while setting up the reply")

    /// The finished reply in `reply`, or the refusal its budget or memory made.
    private static func buffered(_ reply: ReplyBuffer, contentType: String, path: String, reservation: Reservation?,
                                 headers: [HTTPResponse.Header] = []) throws(CodecError) -> HTTPResponse {
        reply.finish()
        if reply.overBudget, let reservation {
            return Problem.memoryBudget(needed: reservation.bytes + reply.refusedAt - reply.count,
                                        capacity: reservation.capacity, path: path).response()
        }
        guard !reply.failed else {
            throw CodecError(.limitExceeded, "out of memory while buffering a \(reply.count)-byte reply")
        }
        var response = HTTPResponse(status: 200, contentType: contentType, buffered: reply)
        response.headers = headers
        response.setCoding(reply.coding)
        return response
    }
}
