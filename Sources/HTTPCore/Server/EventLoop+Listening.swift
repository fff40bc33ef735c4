import CLibevent
import PThreads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The listening side of a loop: binding its socket, and pausing accepts when descriptors run out.
extension EventLoop {
    /// Binds this loop's listening socket. With `reusePort` several loops bind the same port and the
    /// kernel spreads connections across them. Returns the port actually bound.
    ///
    /// `isFirst`: the first of the server's listeners. `SO_REUSEPORT` would let it join a port that
    /// another process (a forgotten server of an earlier build) already listens on, and share its
    /// traffic; so the first listener makes sure the address is free before it binds.
    package func listen(host: String, port: Int, reusePort: Bool, isFirst: Bool) throws(LoopError) -> Int {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &found)
        guard rc == 0, let first = found else {
            throw LoopError("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }

        var flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_REUSEABLE
        if reusePort { flags |= LEV_OPT_REUSEABLE_PORT }
        var lastError: Int32 = 0
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            if isFirst, reusePort, port != 0, Self.inUse(info.pointee) {
                throw Self.addressInUse(host: host, port: port)
            }
            if let listener = evconnlistener_new_bind(
                base, nil, nil, flags, 1024, info.pointee.ai_addr,
                Int32(info.pointee.ai_addrlen))
            {
                guard let bound = evhttp_bind_listener(http, listener) else {
                    evconnlistener_free(listener)
                    throw LoopError("evhttp_bind_listener failed")
                }
                boundSocket = bound
                evconnlistener_set_error_cb(listener) { listener, _ in
                    // libevent passes the listener's callback argument, which evhttp owns; find the loop by base.
                    guard let listener, let loop = EventLoop.registry.loop(for: evconnlistener_get_base(listener)) else { return }
                    loop.acceptFailed(errno)
                }
                EventLoop.registry.register(self)
                return try Self.localPort(of: evconnlistener_get_fd(listener))
            }
            lastError = errno
            candidate = info.pointee.ai_next
        }
        if lastError == EADDRINUSE { throw Self.addressInUse(host: host, port: port) }
        throw LoopError("cannot listen on \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    private static func addressInUse(host: String, port: Int) -> LoopError {
        LoopError("\(host):\(port) is already in use by another process", addressInUse: (host, port))
    }

    /// Whether a socket without `SO_REUSEPORT` fails to bind `info`'s address because something
    /// listens there (`SO_REUSEADDR` is set, so connections in TIME_WAIT do not count).
    private static func inUse(_ info: addrinfo) -> Bool {
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return bind(fd, info.ai_addr, info.ai_addrlen) != 0 && errno == EADDRINUSE
    }

    static func localPort(of fd: Int32) throws(LoopError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { throw LoopError("getsockname failed: \(String(cString: strerror(errno)))") }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            throw LoopError("unexpected address family \(storage.ss_family)")
        }
    }
    /// How long accepting pauses after `accept` failed: long enough that a listener out of
    /// descriptors does not spin (a hundred tries a second cost nothing), short enough that a
    /// client waiting in the backlog, a health probe among them, waits little more than this
    /// once descriptors are free again. At 100 ms, a /healthz probe arriving during a flood of
    /// connections past the descriptor limit took over 100 ms (scripts/attack/attack.py's
    /// slow-bodies row).
    static let acceptPauseMicroseconds = 10_000

    /// `accept` failed (typically EMFILE: out of file descriptors). The listening socket stays readable,
    /// so without a pause libevent would retry in a tight loop; stop accepting for a moment instead.
    /// Connections already open keep being served and waiting clients stay in the kernel backlog.
    func acceptFailed(_ error: Int32) {
        guard let boundSocket, acceptPauseTimer == nil else { return }
        let now = settings.clock()
        if now &- lastAcceptErrorLog > 1_000_000_000 {
            lastAcceptErrorLog = now
            settings.logger.error(
                "accept failed: \(String(cString: strerror(error))); pausing accepts for \(Self.acceptPauseMicroseconds / 1_000) ms",
                metadata: ["loop": .stringConvertible(index)])
        }
        evconnlistener_disable(evhttp_bound_socket_get_listener(boundSocket))
        guard
            let timer = event_new(
                base, -1, 0,
                { _, _, raw in
                    EventLoop.from(raw).resumeAccepting()
                }, unmanagedSelf)
        else { return resumeAccepting() }
        var pause = timeval(tv_sec: 0, tv_usec: Self.acceptPauseMicroseconds)
        acceptPauseTimer = timer
        if event_add(timer, &pause) != 0 { resumeAccepting() }
    }

    func resumeAccepting() {
        if let timer = acceptPauseTimer {
            event_free(timer)
            acceptPauseTimer = nil
        }
        if let boundSocket {
            evconnlistener_enable(evhttp_bound_socket_get_listener(boundSocket))
        }
    }
}

/// Maps event bases to their loops, for libevent callbacks whose argument is not ours.
final class LoopRegistry: @unchecked Sendable {
    private let mutex = PThreadMutex()
    private var loops: [OpaquePointer: EventLoop] = [:]

    func register(_ loop: EventLoop) { mutex.withLock { loops[loop.base] = loop } }
    func unregister(_ loop: EventLoop) { _ = mutex.withLock { loops.removeValue(forKey: loop.base) } }
    func loop(for base: OpaquePointer?) -> EventLoop? {
        guard let base else { return nil }
        return mutex.withLock { loops[base] }
    }
}

extension EventLoop {
    static let registry = LoopRegistry()
}
