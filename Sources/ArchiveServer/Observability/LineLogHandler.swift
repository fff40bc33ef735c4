import ArchiveCodec
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A swift-log handler writing one line per event with a single `write(2)`, in logfmt:
/// `ts=2026-01-02T03:04:05.678Z level=info logger=archive-service msg="POST /v1/decode 200" key=value …`
/// or as one JSON object per line (`LogFormat.json`), for log pipelines that parse JSON:
/// `{"ts":"2026-01-02T03:04:05.678Z","level":"info","logger":"archive-service","msg":"…","key":value,…}`.
/// In JSON, metadata given as integers or floating-point numbers stays a number.
///
/// Why not `StreamLogHandler`: it takes a process-wide lock and flushes stdio per line, so the event
/// loops serialise on it once per access line, at the rate requests are answered (docs/benchmarks.md,
/// "Service under load"). Here each line is formatted privately and written whole (writes of a line
/// to a pipe or an O_APPEND file do not interleave), so loops never wait for each other.
public struct LineLogHandler: LogHandler {
    public enum LogFormat: String, Sendable, CaseIterable {
        case logfmt
        case json
    }

    public var metadata: Logger.Metadata = [:]
    /// Metadata asked for at each event (a request's trace id from a task-local, say), given by
    /// `LoggingSystem.bootstrap(_:metadataProvider:)` or a `Logger`'s own provider.
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    private let label: String
    private let fd: Int32
    private let format: LogFormat

    /// A handler writing to `fd` (standard output by default).
    public init(label: String, level: Logger.Level = .info, format: LogFormat = .logfmt, fd: Int32 = 1, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.logLevel = level
        self.format = format
        self.fd = fd
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The line's metadata: the handler's, then the provider's, then the event's own, a later
    /// one winning for a key all name (as swift-log's own handlers merge them).
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { $1 }
        }
        if let extra = event.metadata {
            merged.merge(extra) { $1 }
        }
        var line = ""
        line.reserveCapacity(256)
        switch format {
        case .logfmt: logfmtLine(event, merged, into: &line)
        case .json: jsonLine(event, merged, into: &line)
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

    private func logfmtLine(_ event: LogEvent, _ metadata: Logger.Metadata, into line: inout String) {
        line += "ts="
        Self.appendTimestamp(to: &line)
        line += " level=\(event.level.rawValue) logger="
        Self.appendValue(label, to: &line)
        line += " msg="
        Self.appendValue(event.message.description, to: &line)
        for key in metadata.keys.sorted() {
            line += " \(key)="
            Self.appendValue(metadata[key]!.description, to: &line)
        }
        if let error = event.error {
            line += " error="
            Self.appendValue("\(error)", to: &line)
        }
    }

    /// Keys in the order logfmt has them; a metadata key named like a fixed member (`ts`,
    /// `level`, `logger`, `msg`, `error`) is written as it is, after it, and JSON readers keep
    /// the last, as logfmt readers do.
    private func jsonLine(_ event: LogEvent, _ metadata: Logger.Metadata, into line: inout String) {
        line += "{\"ts\":\""
        Self.appendTimestamp(to: &line)
        line += "\",\"level\":\"\(event.level.rawValue)\",\"logger\":\(JSONString.quoted(label)),\"msg\":\(JSONString.quoted(event.message.description))"
        for key in metadata.keys.sorted() {
            line += ",\(JSONString.quoted(key)):"
            Self.appendJSON(metadata[key]!, to: &line)
        }
        if let error = event.error {
            line += ",\"error\":\(JSONString.quoted("\(error)"))"
        }
        line += "}"
    }

    /// A metadata value as JSON: numbers stay numbers (finite ones; JSON has no others),
    /// arrays and dictionaries keep their shape, everything else is a string.
    static func appendJSON(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let text):
            line += JSONString.quoted(text)
        case .stringConvertible(let convertible):
            switch convertible {
            case is any BinaryInteger:
                line += convertible.description
            case let number as Double where number.isFinite:
                line += convertible.description
            default:
                line += JSONString.quoted(convertible.description)
            }
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                appendJSON(element, to: &line)
            }
            line += "]"
        case .dictionary(let members):
            line += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                line += JSONString.quoted(key) + ":"
                appendJSON(members[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// Bare when the value is a simple token, otherwise a double-quoted string with escapes.
    static func appendValue(_ value: String, to line: inout String) {
        let simple =
            !value.isEmpty
            && value.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "\\")
            }
        if simple {
            line += value
        } else {
            line += JSONString.quoted(value)
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
        pad(parts.tm_year + 1900, 4)
        line += "-"
        pad(parts.tm_mon + 1, 2)
        line += "-"
        pad(parts.tm_mday, 2)
        line += "T"
        pad(parts.tm_hour, 2)
        line += ":"
        pad(parts.tm_min, 2)
        line += ":"
        pad(parts.tm_sec, 2)
        line += "."
        pad(Int32(now.tv_nsec / 1_000_000), 3)
        line += "Z"
    }
}
