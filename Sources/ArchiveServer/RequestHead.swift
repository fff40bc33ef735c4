/// The request line and the framing headers of one HTTP/1.x request head, read by the
/// `ConnectionGuard` before libevent sees the head, so that the request can be refused before
/// its body is received and so that the guard knows where the request ends.
///
/// The rules follow libevent 2.1's own parser where it is sound (lines end in LF or CRLF, a
/// line starting with a space or tab continues the previous header, the first `Content-Length`
/// and `Transfer-Encoding` are the ones it reads) and RFC 9112 where libevent is lax: several
/// different `Content-Length`s, `Transfer-Encoding` beside `Content-Length`, or any transfer
/// coding but `chunked` make the framing uncertain, and such a request is refused, never guessed.
struct RequestHead: Equatable, Sendable {
    enum BodyFraming: Equatable, Sendable {
        case none
        case length(Int)
        case chunked
    }

    var method: HTTPMethod
    /// The request target as sent (path and query).
    var target: String
    /// The target's path, without the query.
    var path: String
    var body: BodyFraming

    /// Why a head cannot be accepted: the reply's status and the words for its problem document.
    struct Refusal: Error, Equatable, Sendable {
        enum Kind: Equatable, Sendable {
            case malformed          // 400 bad-request
            case ambiguousFraming   // 400 bad-framing
            case unsupportedCoding  // 501 not-implemented
            case lengthTooLarge     // 413 body-too-large (a length past any limit)
        }
        var kind: Kind
        var detail: String
    }

    /// Index just past the empty line that ends the head in `bytes`, or nil if it has not come
    /// yet. `from` lets a caller resume where an earlier, shorter search stopped.
    static func endOfHead(in bytes: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        var index = max(0, from)
        let count = bytes.count
        while index < count {
            if bytes[index] == UInt8(ascii: "\n") {
                let next = index + 1
                if next < count, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
                if next + 1 < count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") { return next + 2 }
            }
            index += 1
        }
        return nil
    }

    /// Where a resumed search must start after `scanned` bytes were searched without an end:
    /// the last two bytes may begin the terminator.
    static func resumePoint(afterSearching scanned: Int) -> Int { max(0, scanned - 2) }

    /// Parses a complete head (as delimited by `endOfHead`).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(Refusal) -> RequestHead {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\n") {
            var end = index
            if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            lines.append(ArraySlice(bytes[start..<end]))
            start = index + 1
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard let requestLine = lines.first else { throw Refusal(kind: .malformed, detail: "The request has no request line.") }

        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy(Self.isTokenByte), parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
              Self.isVersion(parts[2]) else {
            throw Refusal(kind: .malformed, detail: "The request line is not METHOD SP target SP HTTP/1.x.")
        }
        let methodText = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        let path = String(target.prefix { $0 != "?" })

        var lengths: [String] = []
        var codings: [String] = []
        var current: (name: String, value: String)?
        func flush() {
            guard let (name, value) = current else { return }
            switch name {
            case "content-length": lengths.append(value)
            case "transfer-encoding": codings.append(value)
            default: break
            }
            current = nil
        }
        for line in lines.dropFirst() {
            if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                // obs-fold: libevent joins the continuation to the previous value with a space.
                guard current != nil else { throw Refusal(kind: .malformed, detail: "The first header line is a continuation line.") }
                current!.value += " " + String(decoding: line, as: UTF8.self).trimmingWhitespace()
                continue
            }
            flush()
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(Self.isTokenByte) else {
                throw Refusal(kind: .malformed, detail: "A header line is not name: value.")
            }
            current = (String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased(),
                       String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace())
        }
        flush()

        var framing = BodyFraming.none
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw Refusal(kind: .ambiguousFraming, detail: "The request has both Transfer-Encoding and Content-Length; send one.")
            }
            guard codings.count == 1, codings[0].lowercased() == "chunked" else {
                throw Refusal(kind: .unsupportedCoding,
                              detail: "Transfer-Encoding \(codings.joined(separator: ", ")) is not supported; send the body with Content-Length or as chunked alone.")
            }
            framing = .chunked
        } else if let first = lengths.first {
            if Set(lengths).count > 1 {
                throw Refusal(kind: .ambiguousFraming,
                              detail: "The request has \(lengths.count) Content-Length headers with different values (\(lengths.joined(separator: ", "))); send one.")
            }
            guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw Refusal(kind: .malformed, detail: "Content-Length must be a number of bytes, not \(first).")
            }
            guard let length = Int(first), length <= Int(Int32.max) else {
                throw Refusal(kind: .lengthTooLarge, detail: "Content-Length \(first) is larger than any body this server accepts.")
            }
            if length > 0 { framing = .length(length) }
        }
        return RequestHead(method: HTTPMethod(text: methodText), target: target, path: path, body: framing)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isVersion(_ text: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(text)
        return bytes.count == 8 && bytes[0..<5].elementsEqual("HTTP/".utf8) && bytes[5] == UInt8(ascii: "1")
            && bytes[6] == UInt8(ascii: ".") && (bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1"))
    }
}

extension HTTPMethod {
    /// The method named by a request line (`.unknown` for any libevent 2.1 does not know).
    init(text: String) {
        self = HTTPMethod(rawValue: text) ?? .unknown
    }

    /// Whether libevent 2.1 reads a body for this method (`evhttp_method_may_have_body`); the body
    /// of any other is left unread, where it would be taken for the next request.
    var bodyIsReadByLibevent: Bool {
        switch self {
        case .post, .put, .patch, .get, .delete, .options, .connect: true
        case .head, .trace, .unknown: false
        }
    }
}

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
                      digits.count <= 15 else {
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

extension UInt8 {
    /// The value of an ASCII hexadecimal digit, nil for any other byte.
    var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
