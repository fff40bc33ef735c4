import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler writing one logfmt line per event with a single `write(2)`:
/// `ts=2026-01-02T03:04:05.678Z level=info logger=archive-service msg="POST /v1/decode 200" key=value …`
///
/// Why not `StreamLogHandler`: it takes a process-wide lock and flushes stdio per line, so the event
/// loops serialise on it; at tens of thousands of access lines per second that cost a third of the
/// decode throughput. Here each line is formatted privately and written whole (writes of a line to a
/// pipe or an O_APPEND file do not interleave), so loops never wait for each other.
public struct LineLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let fd: Int32

    /// A handler writing to `fd` (standard output by default).
    public init(label: String, level: Logger.Level = .info, fd: Int32 = 1) {
        self.label = label
        self.logLevel = level
        self.fd = fd
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = ""
        line.reserveCapacity(256)
        line += "ts="
        Self.appendTimestamp(to: &line)
        line += " level=\(event.level.rawValue) logger="
        Self.appendValue(label, to: &line)
        line += " msg="
        Self.appendValue(event.message.description, to: &line)
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { $1 }
        }
        for key in merged.keys.sorted() {
            line += " \(key)="
            Self.appendValue(merged[key]!.description, to: &line)
        }
        if let error = event.error {
            line += " error="
            Self.appendValue("\(error)", to: &line)
        }
        line += "\n"
        var utf8 = Array(line.utf8)
        utf8.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // nowhere to report a failing log stream; drop the line
                }
                offset += written
            }
        }
    }

    /// Bare when the value is a simple token, otherwise a double-quoted string with escapes.
    static func appendValue(_ value: String, to line: inout String) {
        let simple = !value.isEmpty && value.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "\\")
        }
        if simple {
            line += value
        } else {
            line += JSONText.quoted(value)
        }
    }

    /// UTC, millisecond precision, ISO 8601.
    static func appendTimestamp(to line: inout String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) {
            let digits = String(value)
            line += String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        pad(parts.tm_year + 1900, 4); line += "-"
        pad(parts.tm_mon + 1, 2); line += "-"
        pad(parts.tm_mday, 2); line += "T"
        pad(parts.tm_hour, 2); line += ":"
        pad(parts.tm_min, 2); line += ":"
        pad(parts.tm_sec, 2); line += "."
        pad(Int32(now.tv_nsec / 1_000_000), 3); line += "Z"
    }
}
