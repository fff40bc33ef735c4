import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refusals lingering after their answer: a refused client still uploading reads the answer
/// instead of a reset. One per event loop, its events on the loop's base: loop thread only. The
/// loop ends them all (`endAll`) before it frees its base.
package final class LingeringSockets {
    /// Refused sockets kept open at once per loop, so the client can read the answer; beyond
    /// this a refused socket is closed as soon as its answer is written.
    package static let maximum = 32
    /// How long a refused socket stays open for its client, and how much it may still send.
    package static let lingerNanos: UInt64 = 2_000_000_000
    package static let lingerBytes = 1 << 20

    private let base: OpaquePointer
    /// Monotonic nanoseconds.
    private let clock: () -> UInt64
    /// Refused sockets still open for their clients, by descriptor.
    private var lingering: [Int32: Lingering] = [:]

    package init(base: OpaquePointer, clock: @escaping () -> UInt64) {
        self.base = base
        self.clock = clock
    }

    /// Keeps a refused socket open on a duplicate descriptor after libevent closes its own:
    /// reads and drops what the client still sends, for `lingerNanos` or `lingerBytes`, so a
    /// client still uploading sees the answer rather than a reset.
    package func linger(_ fd: Int32) {
        guard lingering.count < Self.maximum else { return }
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return }
        guard
            let event = event_new(
                base, copy, Int16(EV_READ | EV_PERSIST),
                { fd, _, raw in
                    Unmanaged<LingeringSockets>.fromOpaque(raw!).takeUnretainedValue().readAndDrop(fd)
                }, Unmanaged.passUnretained(self).toOpaque())
        else {
            close(copy)
            return
        }
        var interval = timeval(tv_sec: Int(Self.lingerNanos / 1_000_000_000), tv_usec: 0)
        event_add(event, &interval)
        lingering[copy] = Lingering(event: event, deadline: clock() + Self.lingerNanos)
    }

    /// Reads what the client sent and drops it; ends the socket at its limits.
    private func readAndDrop(_ fd: Int32) {
        guard var entry = lingering[fd] else { return }
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        let count = read(fd, &scratch, scratch.count)
        if count > 0 { entry.bytes += count }
        let finished =
            count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR)
            || entry.bytes >= Self.lingerBytes || clock() >= entry.deadline
        // A timeout (no data for the whole interval) also lands here, with read failing EAGAIN.
        if finished || count < 0 && errno == EAGAIN {
            end(fd)
        } else {
            lingering[fd] = entry
        }
    }

    private func end(_ fd: Int32) {
        guard let entry = lingering.removeValue(forKey: fd) else { return }
        event_free(entry.event)
        close(fd)
    }

    /// Closes every lingering socket now.
    package func endAll() {
        for fd in Array(lingering.keys) { end(fd) }
    }
}

/// A refused socket's duplicate descriptor, read and dropped until its deadline.
private struct Lingering {
    let event: OpaquePointer
    let deadline: UInt64
    var bytes = 0
}
