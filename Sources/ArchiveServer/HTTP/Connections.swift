import CLibevent
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections of a loop: a `ConnectionGuard` under each one (installed through
/// `evhttp_set_bevcb`), the connection limit, and refusals lingering after their answer.
extension EventLoop {
    /// Refused sockets kept open at once per loop, so the client can read the answer; beyond
    /// this a refused socket is closed as soon as its answer is written.
    static let maximumLingering = 32
    /// How long a refused socket stays open for its client, and how much it may still send.
    static let lingerNanos: UInt64 = 2_000_000_000
    static let lingerBytes = 1 << 20

    /// Makes evhttp build every connection on a guarded bufferevent.
    func installConnectionGuards() {
        evhttp_set_bevcb(http, { base, raw in
            EventLoop.from(raw).newConnection(base)
        }, unmanagedSelf)
    }

    /// evhttp accepted a socket (not yet attached: libevent sets the descriptor after this).
    private func newConnection(_ base: OpaquePointer?) -> OpaquePointer? {
        guard let underlying = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        nextConnectionSerial += 1
        let connection = ConnectionGuard(loop: self, serial: nextConnectionSerial, underlying: underlying)
        let retained = Unmanaged.passRetained(connection).toOpaque()
        guard let filter = bufferevent_filter_new(underlying, { source, destination, _, _, raw in
            Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().filterInput(source: source!, destination: destination!)
        }, { source, _, _, _, raw in
            Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().filterOutput(source: source!)
        }, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue), { raw in
            let connection = Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeRetainedValue()
            connection.loop.connectionClosed(connection)
        }, retained) else {
            Unmanaged<ConnectionGuard>.fromOpaque(retained).release()
            bufferevent_free(underlying)
            return nil
        }
        guard connection.attach(filter: filter) else {
            bufferevent_free(filter)
            return nil
        }
        guards[filter] = connection
        if context.connections.opened() { makeRoom(for: connection) }
        return filter
    }

    private func connectionClosed(_ connection: ConnectionGuard) {
        if let filter = connection.filter { guards.removeValue(forKey: filter) }
        connection.detach()
        context.connections.closed()
    }

    /// Over the connection limit: closes this loop's oldest connection that holds no request
    /// (idle ones silently, ones part way through a head with 503), or, when every connection is
    /// busy, refuses the new one.
    private func makeRoom(for newcomer: ConnectionGuard) {
        var victim: ConnectionGuard?
        for (_, candidate) in guards where candidate !== newcomer && candidate.eviction != nil {
            if victim == nil || candidate.serial < victim!.serial { victim = candidate }
        }
        let limit = context.connections.limit
        if let victim, let eviction = victim.eviction {
            switch eviction {
            case .idle: victim.cut()
            case .partialHead: victim.refuse(Problem.connectionLimit(limit: limit), head: nil)
            }
            return
        }
        // The descriptor is attached after this hook returns: answer from the loop.
        later { [weak newcomer] in newcomer?.refuse(Problem.connectionLimit(limit: limit), head: nil) }
    }

    /// The guard of the connection `request` arrived on.
    func connectionGuard(for request: OpaquePointer) -> ConnectionGuard? {
        guard let connection = evhttp_request_get_connection(request),
              let filter = evhttp_connection_get_bufferevent(connection) else { return nil }
        return guards[filter]
    }

    /// A reply was dropped with its connection before it was written.
    func replyAbandoned() {
        repliesUnflushed -= 1
        if draining { checkDrained() }
    }

    // MARK: Lingering refusals

    /// Keeps a refused socket open on a duplicate descriptor after libevent closes its own:
    /// reads and drops what the client still sends, for `lingerNanos` or `lingerBytes`, so a
    /// client still uploading sees the answer rather than a reset.
    func linger(_ fd: Int32) {
        guard lingering.count < Self.maximumLingering else { return }
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return }
        guard let event = event_new(base, copy, Int16(EV_READ | EV_PERSIST), { fd, _, raw in
            EventLoop.from(raw).lingerRead(fd)
        }, unmanagedSelf) else {
            close(copy)
            return
        }
        var interval = timeval(tv_sec: Int(Self.lingerNanos / 1_000_000_000), tv_usec: 0)
        event_add(event, &interval)
        lingering[copy] = Lingering(event: event, deadline: monotonicNanoseconds() + Self.lingerNanos)
    }

    private func lingerRead(_ fd: Int32) {
        guard var entry = lingering[fd] else { return }
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        let count = read(fd, &scratch, scratch.count)
        if count > 0 { entry.bytes += count }
        let finished = count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR)
            || entry.bytes >= Self.lingerBytes || monotonicNanoseconds() >= entry.deadline
        // A timeout (no data for the whole interval) also lands here, with read failing EAGAIN.
        if finished || count < 0 && errno == EAGAIN {
            endLingering(fd)
        } else {
            lingering[fd] = entry
        }
    }

    func endLingering(_ fd: Int32) {
        guard let entry = lingering.removeValue(forKey: fd) else { return }
        event_free(entry.event)
        close(fd)
    }

    func endAllLingering() {
        for fd in Array(lingering.keys) { endLingering(fd) }
    }

    // MARK: Deferred work

    /// Runs `action` on this loop's thread soon, outside the libevent callback now running.
    func later(_ action: @escaping () -> Void) {
        laterActions.append(action)
        event_active(wakeEvent, EV_READ, 0)
    }

    func runLaterActions() {
        while !laterActions.isEmpty {
            let actions = laterActions
            laterActions.removeAll()
            for action in actions { action() }
        }
    }

    // MARK: Records

    /// Counts a reply in the metrics and writes its access line.
    func record(_ response: HTTPResponse, for request: RequestSummary, bytesIn: Int, startNanos: UInt64? = nil,
                finishesConversion: Bool = false) {
        let elapsed = startNanos.map { monotonicNanoseconds() &- $0 } ?? 0
        context.metrics.record(route: request.route?.rawValue ?? Route.unmatchedLabel, status: response.status,
                               seconds: Double(elapsed) / 1e9, bytesIn: bytesIn, bytesOut: response.bodyCount,
                               rejection: response.rejection, finishesConversion: finishesConversion)
        context.accessLog.record(request, status: response.status, bytesIn: bytesIn, bytesOut: response.bodyCount,
                                 nanoseconds: elapsed, problem: response.problem)
    }

    /// `address:port` of the peer of socket `fd` (`[address]:port` for IPv6); "-" if unknown.
    static func peerName(of fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard rc == 0 else { return "-" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard named == 0 else { return "-" }
        /// The text before the terminating NUL that getnameinfo writes.
        func text(_ characters: [CChar]) -> String {
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let address = text(host), port = text(service)
        return address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}

/// A refused socket's duplicate descriptor, read and dropped until its deadline.
struct Lingering {
    let event: OpaquePointer
    let deadline: UInt64
    var bytes = 0
}
