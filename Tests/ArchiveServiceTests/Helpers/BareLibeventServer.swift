import CLibevent
import Foundation

/// libevent's HTTP server as it is, with no connection guard in front: the other side of the
/// framing differential. It answers every request 200 and records what libevent made of it
/// (the target and how many body bytes it read), so a test can ask where libevent thinks a
/// request ends and compare that with `RequestHead`.
final class BareLibeventServer: @unchecked Sendable {
    struct Seen: Equatable {
        var target: String
        var bodyBytes: Int
    }

    private(set) var port = 0
    private let base: OpaquePointer
    private let http: OpaquePointer
    private let lock = NSLock()
    private var seen: [Seen] = []
    private var thread: Thread?

    init() throws {
        _ = evthread_use_pthreads()
        guard let base = event_base_new() else { throw HTTPClientError(description: "event_base_new failed") }
        guard let http = evhttp_new(base) else { throw HTTPClientError(description: "evhttp_new failed") }
        self.base = base
        self.http = http
        // Every method libevent knows, so that none is refused before the callback.
        evhttp_set_allowed_methods(
            http,
            UInt16(
                EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue
                    | EVHTTP_REQ_PUT.rawValue | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue
                    | EVHTTP_REQ_TRACE.rawValue | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue))
        guard let bound = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0) else {
            throw HTTPClientError(description: "evhttp_bind_socket_with_handle failed")
        }
        let fd = evhttp_bound_socket_get_fd(bound)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        evhttp_set_gencb(
            http,
            { request, raw in
                guard let request, let raw else { return }
                let server = Unmanaged<BareLibeventServer>.fromOpaque(raw).takeUnretainedValue()
                let target = evhttp_request_get_uri(request).map { String(cString: $0) } ?? ""
                let body = evhttp_request_get_input_buffer(request).map { evbuffer_get_length($0) } ?? 0
                server.record(Seen(target: target, bodyBytes: body))
                evhttp_send_reply(request, 200, "OK", nil)
            }, Unmanaged.passUnretained(self).toOpaque())
        nonisolated(unsafe) let loopBase = base
        let thread = Thread { _ = event_base_dispatch(loopBase) }
        thread.start()
        self.thread = thread
    }

    private func record(_ request: Seen) {
        lock.lock()
        seen.append(request)
        lock.unlock()
    }

    /// Sends `bytes` on a new connection and returns the requests libevent read from them, once
    /// no new one has arrived for a moment (libevent answers each at once).
    func requests(readFrom bytes: [UInt8]) throws -> [Seen] {
        lock.lock()
        seen.removeAll()
        lock.unlock()
        let fd = try TestHTTPClient.connect(port: port, timeoutSeconds: 2)
        defer { close(fd) }
        _ = TestHTTPClient.sendAll(fd, bytes)
        var last = -1
        var quietSince = Date()
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline {
            lock.lock()
            let count = seen.count
            lock.unlock()
            if count != last {
                last = count
                quietSince = Date()
            } else if Date().timeIntervalSince(quietSince) > 0.15 {
                break
            }
            usleep(10_000)
        }
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    func stop() {
        event_base_loopbreak(base)
        while thread?.isFinished == false { usleep(1_000) }
        evhttp_free(http)
        event_base_free(base)
    }
}
