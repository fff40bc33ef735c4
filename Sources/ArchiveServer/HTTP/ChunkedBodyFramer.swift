/// Follows a chunked body (RFC 9112 §7.1) byte by byte the way libevent 2.1 reads it, to find
/// where the request ends: a size line (hexadecimal, then nothing or a space and anything; empty
/// lines before it are skipped), that many bytes of data, and after the last (zero) chunk a
/// trailer section ended by an empty line.
struct ChunkedBodyFramer: Sendable {
    enum State: Equatable, Sendable {
        case sizeLine
        case data(remaining: Int)
        case trailer(lineLength: Int)
        case done
    }

    private(set) var state = State.sizeLine
    private var line: [UInt8] = []
    /// Sum of the chunk sizes announced so far.
    private(set) var announcedBytes = 0

    /// Longest size or trailer line accepted.
    static let maximumLineLength = 4096

    struct Malformed: Error, Equatable { var detail: String }

    /// Consumes bytes from the front of `bytes` until the body ends or the bytes run out; returns
    /// how many belong to the body. `newChunk` sees each announced chunk size before its data is
    /// consumed and may stop consumption by returning false (the framer then stays before the
    /// chunk's data).
    mutating func consume(_ bytes: UnsafeRawBufferPointer, newChunk: (Int) -> Bool) throws(Malformed) -> Int {
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
                state = size == 0 ? .trailer(lineLength: 0) : .data(remaining: size)
            case .data(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                state = remaining == taken ? .sizeLine : .data(remaining: remaining - taken)
            case .trailer(let lineLength):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\n") {
                    state = lineLength == 0 ? .done : .trailer(lineLength: 0)
                } else if byte != UInt8(ascii: "\r") || lineLength > 0 {
                    guard lineLength < Self.maximumLineLength else { throw Malformed(detail: "A trailer line is too long.") }
                    state = .trailer(lineLength: lineLength + 1)
                }
            case .done:
                break
            }
        }
        return index
    }

    /// Consumes `count` bytes of the current chunk's data without looking at them.
    mutating func skipData(_ count: Int) {
        guard case .data(let remaining) = state else { return }
        precondition(count <= remaining, "skipped past the end of a chunk")
        state = remaining == count ? .sizeLine : .data(remaining: remaining - count)
    }

}
