import ArchiveCodec
import HTTPCore

/// The service on top of the HTTP core: routing, the probes, handing conversions to the
/// worker pool, and the words of every refusal (problem documents); every reply is recorded in
/// the metrics and the access log (`ServerContext.record`).
///
/// One instance serves every loop; its methods run on the calling loop's thread.
final class ArchiveApplication: HTTPApplication {
    let context: ServerContext

    init(context: ServerContext) {
        self.context = context
    }

    /// The core's settings for this service's loops: its guard limits and connection table,
    /// `X-Content-Type-Options: nosniff` on every reply.
    var loopSettings: LoopSettings {
        let configuration = context.configuration
        return LoopSettings(
            guardLimits: GuardLimits(
                timeout: configuration.timeout, headerTimeout: configuration.headerTimeout, maxBodySize: configuration.maxBodySize),
            connections: context.connections, commonHeaders: [HTTPResponse.noSniff], clock: monotonicNanoseconds,
            logger: context.logger)
    }

    func handle(_ request: IncomingRequest, on loop: EventLoop) {
        let start = monotonicNanoseconds()
        let path = request.path
        let method = request.method
        let summary = RequestSummary(
            method: method, path: path, query: request.query, route: nil, client: request.peer, requestID: request.requestID)
        var pending = PendingRequest(handle: request.reply, summary: summary, startNanos: start)
        // The guard admitted the request (and reserved its body) before libevent read it.
        pending.reservation = request.held as? Reservation
        guard let route = Route(path: path) else {
            return send(Problem.notFound(path: path).response(), to: pending, on: loop)
        }
        pending.summary.route = route
        guard route.allowedMethods.contains(method) else {
            let problem = Problem.methodNotAllowed(method: method.rawValue, path: path, allow: route.allowHeader)
            return send(problem.response(), to: pending, on: loop)
        }
        switch route {
        case .healthz:
            send(.json(200, "{\"status\":\"ok\"}"), to: pending, on: loop)
        case .readyz:
            send(readiness(draining: loop.draining), to: pending, on: loop)
        case .metrics:
            let text = Array(context.renderMetrics().utf8)
            let coding = Self.replyCoding(for: request)
            send(
                Self.coded(
                    text, compressed: ReplyCompressor.compress(text, in: coding), in: coding,
                    contentType: "text/plain; version=0.0.4; charset=utf-8"), to: pending, on: loop)
        case .openapi:
            send(Self.reply(with: .apiDescription, for: request), to: pending, on: loop)
        case .page:
            // Route(path:) gave .page only for a path PageAssets serves.
            guard let asset = PageAssets.asset(at: path) else { return send(Problem.notFound(path: path).response(), to: pending, on: loop) }
            send(Self.reply(with: asset, for: request), to: pending, on: loop)
        case .decode, .encode:
            startConversion(route: route, request: request, pending: pending, on: loop)
        }
    }

    private func readiness(draining: Bool) -> HTTPResponse {
        if draining || context.isDraining {
            return Problem.notReady(reason: "The server is shutting down.").response()
        }
        let pool = context.pool.snapshot
        guard pool.hasCapacity else {
            return Problem.notReady(reason: "All \(pool.threads) workers are busy and \(pool.queued) requests are queued (limit \(pool.queueLimit)).").response()
        }
        if let held = pool.allBusyFor, Double(held) / 1e9 >= context.configuration.stuckWorkerSeconds {
            return Problem.notReady(
                reason:
                    "All \(pool.threads) workers have been on their conversions for \(Int(Double(held) / 1e9)) s or more (at most \(Self.secondsText(context.configuration.conversionTimeout)) s each, --conversion-timeout)."
            ).response()
        }
        let memory = context.budget.snapshot
        let headroom = min(memory.capacity / 4, Self.readinessHeadroom)
        guard memory.capacity - memory.reserved >= headroom else {
            return Problem.notReady(
                reason:
                    "The memory budget is held: \(memory.reserved >> 20) of \(memory.capacity >> 20) MiB reserved by requests in progress, less than \(headroom >> 20) MiB free; conversions get 503 memory-budget-full until they finish."
            ).response()
        }
        return .json(200, "{\"status\":\"ready\",\"workersBusy\":\(pool.busy),\"queued\":\(pool.queued)}")
    }

    private static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// Below this much free budget (or a quarter of a smaller budget) the service is not ready:
    /// what a decode of a 1 MiB archive reserves, so a budget held by a few requests in
    /// progress (or heads announcing large bodies) turns traffic away from this instance.
    static let readinessHeadroom = ConversionCost.admission(route: .decode, bodyBytes: 1 << 20)

    private func startConversion(route: Route, request: IncomingRequest, pending: PendingRequest, on loop: EventLoop) {
        var pending = pending
        let path = pending.summary.path
        // A request that began arriving before the drain is served; later ones are turned away.
        if loop.draining, !request.arrivedBeforeDrain {
            return send(Problem.draining(path: path).response(), to: pending, on: loop)
        }
        let contentType = request.header("Content-Type")
        if let contentType, route == .encode, !MediaType.isJSON(contentType) {
            let mistake = CommonMistake.find(route: route, contentType: contentType, body: request.bodyStart(limit: 4_096))
            return send(Problem.unsupportedMediaType(contentType, path: path, fix: mistake?.fix(on: route)).response(), to: pending, on: loop)
        }
        let conversion: ConversionRequest
        do {
            conversion = try ConversionRequest(route: route, query: QueryParameters(pending.summary.query), path: path)
        } catch {
            return send(error.response(), to: pending, on: loop)
        }
        // A form (curl -F): each part decoded on its own (`FormDecode`); its boundary is read here,
        // so a Content-Type without a usable one costs no worker time.
        var boundary: [UInt8]?
        if route == .decode, let contentType, MediaType.essence(contentType) == "multipart/form-data" {
            do throws(MultipartFailure) {
                boundary = try MultipartForm.boundary(contentType: contentType)
            } catch {
                return send(Problem.malformedMultipart(error, path: path).response(), to: pending, on: loop)
            }
            if let refusal = FormDecode.refusal(for: conversion, path: path) {
                return send(refusal.response(), to: pending, on: loop)
            }
        }
        var headers = ConversionHeaders(contentType: contentType)
        do throws(ContentCoding.Unsupported) {
            headers.bodyCoding = try ContentCoding.ofRequest(contentEncoding: request.header("Content-Encoding"))
        } catch {
            return send(Problem.unsupportedContentEncoding(error.value, path: path).response(), to: pending, on: loop)
        }
        headers.replyCoding = Self.replyCoding(for: request)
        guard let body = request.takeBody() else {
            return send(Problem.emptyBody(path: path).response(), to: pending, on: loop)
        }
        // Its size was admitted against --max-body-size by the connection guard.
        pending.bytesIn = body.count

        let context = self.context
        let handedOver = body
        // A form's lines are streamed to a client that reads a chunked reply (HTTP/1.1); an
        // HTTP/1.0 client gets them in one reply with its length, as every other reply.
        let stream = boundary != nil && request.reply.readsChunkedReplies ? ReplyStream(handle: request.reply, on: loop) : nil
        let accepted = context.pool.submit { [pending, headers, boundary] in
            context.hooks.beforeConversion?()
            let response =
                if let boundary {
                    FormDecode.run(
                        conversion, body: handedOver, boundary: boundary, headers: headers, limits: context.limits,
                        path: pending.summary.path, reservation: pending.reservation, stream: stream)
                } else {
                    Conversion.run(
                        conversion, body: handedOver, headers: headers, limits: context.limits,
                        path: pending.summary.path, reservation: pending.reservation)
                }
            // The body and the parsed input are gone: only the reply stays reserved (a streamed
            // reply's lines hold reservations of their own until written).
            pending.reservation?.shrink(to: response?.bodyCount ?? 0)
            if let response {
                loop.post(.finished { loop in self.send(response, to: pending, on: loop, finishesConversion: true) })
            } else if let stream {
                loop.post(.finished { loop in self.endStream(stream, of: pending, on: loop) })
            }
            MemoryTrim.trim(afterBodyOf: handedOver.count, budget: context.budget)
        }
        if accepted {
            loop.startWork()
            context.metrics.conversionQueued()
        } else {
            send(Problem.overloaded(path: path).response(), to: pending, on: loop)
        }
    }

    /// The coding `request` accepts for its reply (`Accept-Encoding`).
    private static func replyCoding(for request: IncomingRequest) -> ContentCoding {
        ContentCoding.forReply(acceptEncoding: request.header("Accept-Encoding"))
    }

    /// A 200 made on the loop: `compressed` (the body in `coding`) when there is one, else the
    /// plain body. Only the loop's own small bodies, short enough to compress without holding
    /// up the loop: the metrics, compressed per scrape, and the static assets, compressed
    /// once. Conversions compress on their worker.
    private static func coded(
        _ plain: [UInt8], compressed: [UInt8]?, in coding: ContentCoding,
        contentType: String
    ) -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: contentType, body: compressed ?? plain)
        response.setCoding(compressed == nil ? .identity : coding)
        return response
    }

    /// `asset` in the coding `request` accepts, with the asset's own headers.
    private static func reply(with asset: StaticAsset, for request: IncomingRequest) -> HTTPResponse {
        let coding = replyCoding(for: request)
        var response = coded(asset.plain, compressed: asset.compressed(in: coding), in: coding, contentType: asset.contentType)
        response.headers.append(contentsOf: asset.headers)
        return response
    }

    /// Ends a streamed reply (its last chunk) and records it, with the body bytes sent.
    private func endStream(_ stream: ReplyStream, of pending: PendingRequest, on loop: EventLoop) {
        let sent = loop.endStream(stream)
        let response = HTTPResponse(status: 200, contentType: "application/x-ndjson", body: [])
        context.record(
            response, for: pending.summary, bytesIn: pending.bytesIn, bytesOut: sent, startNanos: pending.startNanos,
            finishesConversion: true)
    }

    /// Sends `response` and records it. After this call the request may already be freed by libevent.
    func send(_ response: HTTPResponse, to pending: PendingRequest, on loop: EventLoop, finishesConversion: Bool = false) {
        loop.send(response.reply, to: pending.handle, holding: pending.reservation)
        context.record(
            response, for: pending.summary, bytesIn: pending.bytesIn, startNanos: pending.startNanos,
            finishesConversion: finishesConversion)
    }
}
