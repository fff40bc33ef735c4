import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The libevent side of a guarded connection: the socket's bufferevent (`underlying`), the
/// filter over it that evhttp reads and writes through, the connection's one timer, and the
/// filter's output side.
///
/// Input: `filterInput` runs a guard's decisions over the bytes read from the socket, moving
/// what they let through to the parser; the socket is not read past `GuardLimits.heldBytesLimit`
/// bytes held. Output bypasses the bufferevent under the filter: the filter's output callback
/// writes libevent's reply straight to the socket (`filterOutput`), so libevent counts a reply
/// as sent only once the kernel holds all of it. (Through the socket bufferevent, libevent 2.1
/// would call a reply done while its tail still sat in that bufferevent, and free it unsent when
/// the connection closes after the reply; it would also never start a reply whose bytes were
/// queued while writing was disabled, which is how evhttp queues every reply.)
///
/// The timer is the connection's only one: libevent's own (reset by every byte) are not set.
/// Loop thread only; its events are freed by `detach`, when libevent frees the filter.
package final class GuardedSocket {
    private let base: OpaquePointer
    package let underlying: OpaquePointer
    package private(set) var filter: OpaquePointer?
    private var timer: OpaquePointer?
    /// Activated when libevent queues output, to write it from the loop.
    private var flushEvent: OpaquePointer?
    /// Waits for the socket to take more, while a reply is only partly written.
    private var writableEvent: OpaquePointer?
    /// Called when the timer fires.
    private let timerFired: () -> Void
    /// Called when writing to the socket failed: the connection is to be cut off.
    private let writeFailed: () -> Void
    /// Whether the connection still writes output (not refused or cut off).
    private let isOpen: () -> Bool

    /// A connection on `underlying`, a socket bufferevent of the loop's `base`.
    package init(
        base: OpaquePointer, underlying: OpaquePointer, timerFired: @escaping () -> Void,
        writeFailed: @escaping () -> Void, isOpen: @escaping () -> Bool
    ) {
        self.base = base
        self.underlying = underlying
        self.timerFired = timerFired
        self.writeFailed = writeFailed
        self.isOpen = isOpen
    }

    /// Completes set-up once the filter exists. False if its events cannot be made.
    package func attach(filter: OpaquePointer) -> Bool {
        self.filter = filter
        let me = Unmanaged.passUnretained(self).toOpaque()
        timer = event_new(
            base, -1, 0,
            { _, _, raw in
                Unmanaged<GuardedSocket>.fromOpaque(raw!).takeUnretainedValue().timerFired()
            }, me)
        flushEvent = event_new(
            base, -1, 0,
            { _, _, raw in
                Unmanaged<GuardedSocket>.fromOpaque(raw!).takeUnretainedValue().flushOutput()
            }, me)
        bufferevent_setwatermark(underlying, Int16(EV_READ), 0, GuardLimits.heldBytesLimit)
        evbuffer_add_cb(
            bufferevent_get_output(filter),
            { _, info, raw in
                guard let info, info.pointee.n_added > 0 else { return }
                Unmanaged<GuardedSocket>.fromOpaque(raw!).takeUnretainedValue().outputQueued()
            }, me)
        return timer != nil && flushEvent != nil
    }

    /// libevent is freeing the connection (the filter's context is being freed).
    package func detach() {
        for event in [timer, flushEvent, writableEvent] {
            if let event { event_free(event) }
        }
        timer = nil
        flushEvent = nil
        writableEvent = nil
        filter = nil
    }

    // MARK: Input

    /// The filter's input side: asks `decide` for the next step over `source` (the socket's
    /// input: the bytes waiting, and a view of the first n of them) until it decides nothing
    /// more, moves what it passes to `destination` (libevent's) and drops what it drops, and
    /// hands every other action to `perform`. Returns whether anything was consumed.
    package func filterInput<Denial>(
        source: OpaquePointer, destination: OpaquePointer,
        decide: (Int, (Int) -> UnsafeRawBufferPointer) -> [GuardAction<Denial>],
        perform: (GuardAction<Denial>) -> Void
    ) -> bufferevent_filter_result {
        var progressed = false
        while true {
            let actions = decide(evbuffer_get_length(source)) { count in
                UnsafeRawBufferPointer(start: evbuffer_pullup(source, count), count: count)
            }
            if actions.isEmpty { break }
            for action in actions {
                switch action {
                case .pass(let count):
                    evbuffer_remove_buffer(source, destination, count)
                    progressed = true
                case .drop(let count):
                    evbuffer_drain(source, count)
                    progressed = true
                default:
                    perform(action)
                }
            }
        }
        return progressed ? BEV_OK : BEV_NEED_MORE
    }

    /// Bytes in the socket's buffer the filter has not run over yet.
    package var unreadBytes: Int { evbuffer_get_length(bufferevent_get_input(underlying)) }

    /// Runs the filter again over bytes waiting in the socket's buffer (those of the next
    /// request, once a reply has been written).
    package func readAgain() {
        guard unreadBytes > 0 else { return }
        bufferevent_trigger(
            underlying, Int16(EV_READ), Int32(BEV_TRIG_IGNORE_WATERMARKS.rawValue | BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    // MARK: Output

    private func outputQueued() {
        if let flushEvent { event_active(flushEvent, EV_WRITE, 0) }
    }

    /// Runs the filter's output side, if libevent still owns the connection (after
    /// `bufferevent_free` its callbacks are cleared; the memory lives until `detach`).
    private func flushOutput() {
        guard let filter, isOpen() else { return }
        var eventCallback: bufferevent_event_cb?
        bufferevent_getcb(filter, nil, nil, &eventCallback, nil)
        guard eventCallback != nil else { return }
        bufferevent_flush(filter, Int16(EV_WRITE), BEV_NORMAL)
    }

    /// The filter's output callback: writes what libevent queued to the socket, as much as the
    /// kernel takes; the rest waits for the socket to become writable.
    package func filterOutput(source: OpaquePointer) -> bufferevent_filter_result {
        guard let fd = socketDescriptor, evbuffer_get_length(source) > 0 else { return BEV_NEED_MORE }
        let written = evbuffer_write(source, fd)
        if written < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            writeFailed()
            return BEV_ERROR
        }
        if evbuffer_get_length(source) > 0 {
            if writableEvent == nil {
                writableEvent = event_new(
                    base, fd, Int16(EV_WRITE),
                    { _, _, raw in
                        Unmanaged<GuardedSocket>.fromOpaque(raw!).takeUnretainedValue().flushOutput()
                    }, Unmanaged.passUnretained(self).toOpaque())
            }
            if let writableEvent { event_add(writableEvent, nil) }
        }
        return written > 0 ? BEV_OK : BEV_NEED_MORE
    }

    /// Output the client has not taken yet: what libevent holds for this connection and what
    /// the kernel holds in the socket's send queue, not yet acknowledged by the peer (Linux's
    /// `SIOCOUTQ`). It falls only as the client reads, whatever the kernel's buffer sizes: the
    /// socket's writes move bytes from one to the other, and a large send buffer takes a slow
    /// reader's whole reply long before the client has read it.
    package var outputNotTaken: Int {
        var queued: Int32 = 0
        if let fd = socketDescriptor, ioctl(fd, UInt(TIOCOUTQ), &queued) != 0 { queued = 0 }
        let held = filter.map { evbuffer_get_length(bufferevent_get_output($0)) } ?? 0
        return held + Int(max(0, queued))
    }

    // MARK: Timer and closing

    /// Starts (or restarts) the timer, to fire `seconds` from now.
    package func armTimer(seconds: Int) {
        guard let timer else { return }
        var interval = timeval(tv_sec: seconds, tv_usec: 0)
        event_add(timer, &interval)
    }

    package func disarmTimer() {
        if let timer { event_del(timer) }
    }

    /// Writes `message` straight to the socket, without waiting: true if the kernel took all of
    /// it. Only while nothing else writes to the socket (no reply of the connection is libevent's
    /// to write).
    package func sendNow(_ message: [UInt8]) -> Bool {
        guard let fd = socketDescriptor else { return false }
        let written = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        return written == message.count
    }

    /// Tells libevent the client went away (from the loop, not inside a callback), so it frees
    /// the connection its own way.
    package func endConnection() {
        guard let filter else { return }
        bufferevent_trigger_event(filter, Int16(BEV_EVENT_EOF | BEV_EVENT_READING), Int32(BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    /// The client's address and port, for access lines: asked of the socket once per connection.
    package private(set) lazy var peer: String = socketDescriptor.map(PeerAddress.name(of:)) ?? "-"

    package var socketDescriptor: Int32? {
        let fd = bufferevent_getfd(underlying)
        return fd >= 0 ? fd : nil
    }
}
