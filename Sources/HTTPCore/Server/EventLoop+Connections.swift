import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections of a loop: a `ConnectionGuard` under each one (installed through
/// `evhttp_set_bevcb`) and the connection limit.
extension EventLoop {
    /// Makes evhttp build every connection on a guarded bufferevent.
    func installConnectionGuards() {
        evhttp_set_bevcb(
            http,
            { base, raw in
                EventLoop.from(raw).newConnection(base)
            }, unmanagedSelf)
    }

    /// evhttp accepted a socket (not yet attached: libevent sets the descriptor after this).
    private func newConnection(_ base: OpaquePointer?) -> OpaquePointer? {
        guard let underlying = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        nextConnectionSerial += 1
        let connection = ConnectionGuard(loop: self, serial: nextConnectionSerial, underlying: underlying)
        let retained = Unmanaged.passRetained(connection).toOpaque()
        guard
            let filter = bufferevent_filter_new(
                underlying,
                { source, destination, _, _, raw in
                    Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().filterInput(source: source!, destination: destination!)
                },
                { source, _, _, _, raw in
                    Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeUnretainedValue().filterOutput(source: source!)
                }, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue),
                { raw in
                    let connection = Unmanaged<ConnectionGuard>.fromOpaque(raw!).takeRetainedValue()
                    connection.loop.connectionClosed(connection)
                }, retained)
        else {
            Unmanaged<ConnectionGuard>.fromOpaque(retained).release()
            bufferevent_free(underlying)
            return nil
        }
        // Counted from here: freeing the filter, on any path, counts it closed (`connectionClosed`).
        let overLimit = settings.connections.opened()
        guard connection.attach(filter: filter) else {
            bufferevent_free(filter)
            return nil
        }
        guards[filter] = connection
        if overLimit { makeRoom(for: connection) }
        return filter
    }

    private func connectionClosed(_ connection: ConnectionGuard) {
        if let filter = connection.filter { guards.removeValue(forKey: filter) }
        connection.detach()
        settings.connections.closed()
    }

    /// Over the connection limit: closes one of this loop's connections that holds a
    /// connection while sending least (`Eviction`: idle ones silently, then
    /// ones part way through a head, then those whose body arrives slowest, refused
    /// `.connectionLimit`; the
    /// oldest first within a kind), or, when every connection has a request with the server,
    /// refuses the new one.
    private func makeRoom(for newcomer: ConnectionGuard) {
        var victim: (connection: ConnectionGuard, eviction: Eviction)?
        for (_, candidate) in guards where candidate !== newcomer {
            guard let eviction = candidate.eviction else { continue }
            if let current = victim, current.eviction.rank < eviction.rank || (current.eviction.rank == eviction.rank && current.connection.serial < candidate.serial) {
                continue
            }
            victim = (candidate, eviction)
        }
        let limit = settings.connections.limit
        if let (connection, eviction) = victim {
            switch eviction {
            case .idle: connection.cut()
            case .partialHead, .body: connection.refuse(.connectionLimit(limit: limit), head: connection.currentHead)
            }
            return
        }
        // The descriptor is attached after this hook returns: answer from the loop.
        later { [weak newcomer] in newcomer?.refuse(.connectionLimit(limit: limit), head: nil) }
    }

    /// The guard of the connection `request` arrived on.
    func connectionGuard(for request: OpaquePointer) -> ConnectionGuard? {
        guard let connection = evhttp_request_get_connection(request),
            let filter = evhttp_connection_get_bufferevent(connection)
        else { return nil }
        return guards[filter]
    }

    /// A reply was dropped with its connection before it was written.
    func replyAbandoned() {
        repliesUnflushed -= 1
        if draining { checkDrained() }
    }
}
