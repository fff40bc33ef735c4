/// Follows a chunked body (RFC 9112 §7.1) byte by byte the way libevent 2.1 reads it, to find
/// where the request ends: a size line (hexadecimal, then nothing or a space and anything; empty
/// lines before it are skipped), that many bytes of data, and after the last (zero) chunk a
/// trailer section ended by an empty line.
///
/// Whatever it accepts, libevent accepts too, so that libevent never answers a body itself (it
/// would write its own HTML 413 beside the guard's refusal): a trailer line is a header line as
/// libevent parses one (a name and `:`, or a continuation of the line before it that starts
/// with a space or tab; no CR or NUL inside), and the trailer section stays well under
/// libevent's header size limit (`maximumTrailerSize`).
package struct ChunkedBodyFramer: Sendable {
    package enum State: Equatable, Sendable {
        case sizeLine
        case data(remaining: Int)
        /// In the trailer section: `lines` header lines of it read so far.
        case trailer(lines: Int)
        case done
    }

    package private(set) var state = State.sizeLine
    private var line: [UInt8] = []
    /// Sum of the chunk sizes announced so far.
    package private(set) var announcedBytes = 0
    /// Data bytes consumed so far (by `consume` and `skipData`).
    package private(set) var dataBytes = 0

    /// Longest size or trailer line accepted.
    package static let maximumLineLength = 4096
    /// Most bytes of trailer lines accepted: with the head (`GuardLimits.maximumHeadSize`)
    /// well under what libevent allows a request's headers and trailers together
    /// (`evhttp_set_max_headers_size`, twice the head's limit).
    package static let maximumTrailerSize = 16 << 10
    private var trailerBytes = 0

    package init() {}

    package struct Malformed: Error, Equatable {
        package var detail: String
        package init(detail: String) { self.detail = detail }
    }

    /// Consumes bytes from the front of `bytes` until the body ends or the bytes run out; returns
    /// how many belong to the body. `newChunk` sees each announced chunk size before its data is
    /// consumed and may stop consumption by returning false (the framer then stays before the
    /// chunk's data).
    package mutating func consume(_ bytes: UnsafeRawBufferPointer, newChunk: (Int) -> Bool) throws(Malformed) -> Int {
        var index = 0
        while index < bytes.count, state != .done {
            switch state {
            case .sizeLine:
                let byte = bytes[index]
                index += 1
                if byte != UInt8(ascii: "\n") {
                    line.append(byte)
                    if line.count > Self.maximumLineLength { throw Malformed(detail: "A chunk size line is too long.") }
                    continue
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                if line.isEmpty { continue }
                let digits = line.prefix { $0.hexDigitValue != nil }
                guard !digits.isEmpty, digits.count == line.count || line[digits.count] == UInt8(ascii: " "),
                    digits.count <= 15
                else {
                    throw Malformed(detail: "A chunk size is not a hexadecimal number.")
                }
                let size = digits.reduce(0) { $0 << 4 | Int($1.hexDigitValue!) }
                line.removeAll(keepingCapacity: true)
                guard newChunk(size) else { return index }
                announcedBytes += size
                state = size == 0 ? .trailer(lines: 0) : .data(remaining: size)
            case .data(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                dataBytes += taken
                state = remaining == taken ? .sizeLine : .data(remaining: remaining - taken)
            case .trailer(let lines):
                let byte = bytes[index]
                index += 1
                if byte != UInt8(ascii: "\n") {
                    line.append(byte)
                    trailerBytes += 1
                    if line.count > Self.maximumLineLength { throw Malformed(detail: "A trailer line is too long.") }
                    if trailerBytes > Self.maximumTrailerSize { throw Malformed(detail: "The trailer section is too long.") }
                    continue
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                if line.isEmpty {
                    state = .done
                    continue
                }
                try Self.checkTrailerLine(line, continuing: lines > 0)
                line.removeAll(keepingCapacity: true)
                state = .trailer(lines: lines + 1)
            case .done:
                break
            }
        }
        return index
    }

    /// A trailer line (its line end removed) as libevent's header parser takes one: no CR or NUL
    /// in it; a continuation (starting with a space or tab) only after another line; else a
    /// name, then `:`.
    private static func checkTrailerLine(_ line: [UInt8], continuing: Bool) throws(Malformed) {
        if line.contains(UInt8(ascii: "\r")) || line.contains(0) {
            throw Malformed(detail: "A trailer line holds a CR or NUL byte.")
        }
        if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") {
            guard continuing else { throw Malformed(detail: "The trailer section starts with a continuation line.") }
            return
        }
        guard line.contains(UInt8(ascii: ":")) else { throw Malformed(detail: "A trailer line is not a header (name: value).") }
    }

    /// Consumes `count` bytes of the current chunk's data without looking at them.
    package mutating func skipData(_ count: Int) {
        guard case .data(let remaining) = state else { return }
        precondition(count <= remaining, "skipped past the end of a chunk")
        dataBytes += count
        state = remaining == count ? .sizeLine : .data(remaining: remaining - count)
    }

}
