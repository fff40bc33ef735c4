import ArchiveCodec
import CLibevent
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Request handling, on the loop thread: routing, the probes, handing conversions to the pool, replies.
extension EventLoop {
    func handle(_ request: OpaquePointer) {
        let start = monotonicNanoseconds()
        let uri = evhttp_request_get_evhttp_uri(request)
        let path = uri.flatMap { evhttp_uri_get_path($0) }.map { String(cString: $0) } ?? ""
        let query = uri.flatMap { evhttp_uri_get_query($0) }.map { String(cString: $0) }
        let sentID = evhttp_find_header(evhttp_request_get_input_headers(request), "X-Request-Id").map { String(cString: $0) }
        let connection = connectionGuard(for: request)
        let method = HTTPMethod(evhttp_request_get_command(request))
        let summary = RequestSummary(
            method: method, path: path, query: query, route: nil, client: connection?.peer ?? "-",
            requestID: RequestID.accepted(sentID) ?? requestIDs.next())
        var pending = PendingRequest(handle: RequestHandle(raw: request), summary: summary, startNanos: start)
        // The guard admitted the request (and reserved its body) before libevent read it.
        pending.reservation = connection?.dispatch()
        pending.closeAfterReply = connection?.currentHead?.closeRequested ?? false
        guard let route = Route(path: path) else {
            return send(Problem.notFound(path: path).response(), to: pending)
        }
        pending.summary.route = route
        guard route.allowedMethods.contains(method) else {
            let problem = Problem.methodNotAllowed(method: method.rawValue, path: path, allow: route.allowHeader)
            return send(problem.response(), to: pending)
        }
        switch route {
        case .healthz:
            send(.json(200, "{\"status\":\"ok\"}"), to: pending)
        case .readyz:
            send(readiness(), to: pending)
        case .metrics:
            let text = Array(context.renderMetrics().utf8)
            let coding = Self.replyCoding(for: request)
            send(
                Self.coded(
                    text, compressed: ReplyCompressor.compress(text, in: coding), in: coding,
                    contentType: "text/plain; version=0.0.4; charset=utf-8"), to: pending)
        case .openapi:
            send(Self.reply(with: .apiDescription, for: request), to: pending)
        case .page:
            // Route(path:) gave .page only for a path PageAssets serves.
            guard let asset = PageAssets.asset(at: path) else { return send(Problem.notFound(path: path).response(), to: pending) }
            send(Self.reply(with: asset, for: request), to: pending)
        case .decode, .encode:
            startConversion(route: route, request: request, uri: uri, pending: pending)
        }
    }

    private func readiness() -> HTTPResponse {
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

    private func startConversion(route: Route, request: OpaquePointer, uri: OpaquePointer?, pending: PendingRequest) {
        var pending = pending
        let path = pending.summary.path
        // A request that began arriving before the drain is served; later ones are turned away.
        if draining, connectionGuard(for: request)?.arrivedBeforeDrain != true {
            return send(Problem.draining(path: path).response(), to: pending)
        }
        let requestHeaders = evhttp_request_get_input_headers(request)
        let contentType = evhttp_find_header(requestHeaders, "Content-Type").map { String(cString: $0) }
        if let contentType, route == .encode ? !MediaType.isJSON(contentType) : MediaType.essence(contentType) == "multipart/form-data" {
            let mistake = CommonMistake.find(route: route, contentType: contentType, body: Self.bodyStart(of: request))
            return send(Problem.unsupportedMediaType(contentType, path: path, fix: mistake?.fix(on: route)).response(), to: pending)
        }
        let conversion: ConversionRequest
        do {
            conversion = try ConversionRequest(route: route, query: QueryParameters(pending.summary.query), path: path)
        } catch {
            return send(error.response(), to: pending)
        }
        var headers = ConversionHeaders(contentType: contentType)
        do throws(ContentCoding.Unsupported) {
            headers.bodyCoding = try ContentCoding.ofRequest(
                contentEncoding: evhttp_find_header(requestHeaders, "Content-Encoding").map { String(cString: $0) })
        } catch {
            return send(Problem.unsupportedContentEncoding(error.value, path: path).response(), to: pending)
        }
        headers.replyCoding = Self.replyCoding(for: request)
        guard let input = evhttp_request_get_input_buffer(request), let body = RequestBody(taking: input) else {
            return send(Problem.emptyBody(path: path).response(), to: pending)
        }
        // Its size was admitted against --max-body-size by the connection guard.
        pending.bytesIn = body.count

        let context = self.context
        let handedOver = body
        let accepted = context.pool.submit { [pending, headers] in
            context.hooks.beforeConversion?()
            let response = Conversion.run(
                conversion, body: handedOver, headers: headers, limits: context.limits,
                path: pending.summary.path, reservation: pending.reservation)
            // The body and the parsed input are gone: only the reply stays reserved.
            pending.reservation?.shrink(to: response.bodyCount)
            self.post(.completed(pending, response))
            #if canImport(Glibc)
            if MemoryTrim.isDue(afterBodyOf: handedOver.count, budget: context.budget) { malloc_trim(0) }
            #endif
        }
        if accepted {
            conversionsInFlight += 1
            context.metrics.conversionQueued()
        } else {
            send(Problem.overloaded(path: path).response(), to: pending)
        }
    }

    /// The first bytes of `request`'s body, copied (the body stays where it is): enough to
    /// recognise what was sent.
    private static func bodyStart(of request: OpaquePointer) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(request) else { return [] }
        let count = min(evbuffer_get_length(input), 4_096)
        return [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            initialized = max(0, evbuffer_copyout(input, bytes.baseAddress, count))
        }
    }

    /// The coding `request` accepts for its reply (`Accept-Encoding`).
    private static func replyCoding(for request: OpaquePointer) -> ContentCoding {
        ContentCoding.forReply(
            acceptEncoding: evhttp_find_header(evhttp_request_get_input_headers(request), "Accept-Encoding")
                .map { String(cString: $0) })
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
    private static func reply(with asset: StaticAsset, for request: OpaquePointer) -> HTTPResponse {
        let coding = replyCoding(for: request)
        var response = coded(asset.plain, compressed: asset.compressed(in: coding), in: coding, contentType: asset.contentType)
        response.headers.append(contentsOf: asset.headers)
        return response
    }

    /// Sends `response` and records it. After this call the request may already be freed by libevent.
    func send(_ response: HTTPResponse, to pending: PendingRequest, finishesConversion: Bool = false) {
        let request = pending.handle.raw
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Content-Type", response.contentType)
        evhttp_add_header(headers, "X-Request-Id", pending.summary.requestID)
        evhttp_add_header(headers, HTTPResponse.noSniff.name, HTTPResponse.noSniff.value)
        for header in response.headers {
            evhttp_add_header(headers, header.name, header.value)
        }
        // libevent closes after a reply that says so; it reads only a request whose first
        // Connection header is exactly "close" as asking for that.
        if draining || pending.closeAfterReply {
            evhttp_add_header(headers, "Connection", "close")
        }
        // libevent writes no Content-Length for HEAD and CONNECT replies: every reply says its length.
        if pending.summary.method == .head || pending.summary.method == .connect {
            evhttp_add_header(headers, "Content-Length", String(response.bodyCount))
        }
        // libevent sends whatever is in the output buffer, even for HEAD: send only the length.
        if pending.summary.method != .head, response.bodyCount > 0, let output = evhttp_request_get_output_buffer(request) {
            let added: Bool
            if let buffered = response.buffered {
                added = buffered.move(into: output)
            } else {
                added = response.body.withUnsafeBytes { evbuffer_add(output, $0.baseAddress, $0.count) } == 0
            }
            if !added {
                context.logger.error("out of memory while queueing a \(response.bodyCount)-byte reply")
            }
        }
        // A request whose client already left has no connection; libevent frees it on send and never
        // reports completion. Otherwise the reply (and its share of the budget) is held until it is
        // written (`replyFlushed`) or its connection is dropped (`ConnectionGuard.detach`).
        if evhttp_request_get_connection(request) != nil, let connection = connectionGuard(for: request) {
            repliesUnflushed += 1
            connection.replySent(bytes: response.bodyCount, reservation: pending.reservation)
            evhttp_request_set_on_complete_cb(
                request,
                { request, raw in
                    EventLoop.from(raw).replyFlushed(request)
                }, unmanagedSelf)
        }
        evhttp_send_reply(request, response.status, nil, nil)
        context.record(
            response, for: pending.summary, bytesIn: pending.bytesIn, startNanos: pending.startNanos,
            finishesConversion: finishesConversion)
    }

    private func replyFlushed(_ request: OpaquePointer?) {
        if let request, let connection = connectionGuard(for: request), connection.replyPending {
            connection.replyFlushed()
            repliesUnflushed -= 1
        }
        if draining { checkDrained() }
    }
}
extension HTTPMethod {
    init(_ command: evhttp_cmd_type) {
        switch command {
        case EVHTTP_REQ_GET: self = .get
        case EVHTTP_REQ_POST: self = .post
        case EVHTTP_REQ_HEAD: self = .head
        case EVHTTP_REQ_PUT: self = .put
        case EVHTTP_REQ_DELETE: self = .delete
        case EVHTTP_REQ_OPTIONS: self = .options
        case EVHTTP_REQ_TRACE: self = .trace
        case EVHTTP_REQ_CONNECT: self = .connect
        case EVHTTP_REQ_PATCH: self = .patch
        default: self = .unknown
        }
    }
}
