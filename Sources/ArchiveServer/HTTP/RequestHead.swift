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
    /// The target's query, without the `?`, when it has one.
    var query: String? { target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } }
    var body: BodyFraming
    /// The first `X-Request-Id`, as sent (see `RequestID.accepted`).
    var requestID: String? = nil

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
        /// The request line and request id, when the refusal came after they were read (a
        /// framing refusal): its answer and access line then name them.
        var head: RequestHead? = nil
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

    /// Parses a complete head (as delimited by `endOfHead`). Reads the bytes in place: only the
    /// method, the target and the values of the framing headers become strings, since this runs
    /// for every request.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(Refusal) -> RequestHead {
        var lines = LineReader(bytes)
        guard let requestLine = lines.next() else { throw Refusal(kind: .malformed, detail: "The request has no request line.") }
        let line = bytes[requestLine]
        guard let firstSpace = line.firstIndex(of: UInt8(ascii: " ")),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: UInt8(ascii: " ")),
              firstSpace > line.startIndex, secondSpace > firstSpace + 1,
              line[line.startIndex..<firstSpace].allSatisfy(Self.isTokenByte),
              line[(firstSpace + 1)..<secondSpace].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
              Self.isVersion(line[(secondSpace + 1)...]) else {
            throw Refusal(kind: .malformed, detail: "The request line is not METHOD SP target SP HTTP/1.x.")
        }
        let methodText = String(decoding: line[line.startIndex..<firstSpace], as: UTF8.self)
        let target = String(decoding: line[(firstSpace + 1)..<secondSpace], as: UTF8.self)
        let path = String(target.prefix { $0 != "?" })

        var lengths: [String] = []
        var codings: [String] = []
        var requestIDs: [String] = []
        /// The framing header being read, if the last header line was one, for continuation lines.
        var current: FramingHeader?
        func flush(_ value: String) {
            switch current {
            case .contentLength?: lengths.append(value)
            case .transferEncoding?: codings.append(value)
            case .requestID?: requestIDs.append(value)
            case nil: break
            }
        }
        var currentValue = ""
        var sawHeader = false
        while let range = lines.next() {
            let header = bytes[range]
            if let first = header.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                // obs-fold: libevent joins the continuation to the previous value with a space.
                guard sawHeader else { throw Refusal(kind: .malformed, detail: "The first header line is a continuation line.") }
                if current != nil { currentValue += " " + Self.trimmed(header) }
                continue
            }
            if current != nil { flush(currentValue) }
            guard let colon = header.firstIndex(of: UInt8(ascii: ":")), colon > header.startIndex,
                  header[header.startIndex..<colon].allSatisfy(Self.isTokenByte) else {
                throw Refusal(kind: .malformed, detail: "A header line is not name: value.")
            }
            sawHeader = true
            current = FramingHeader(name: header[header.startIndex..<colon])
            if current != nil { currentValue = Self.trimmed(header[(colon + 1)...]) }
        }
        if current != nil { flush(currentValue) }

        var framing = BodyFraming.none
        let read = RequestHead(method: HTTPMethod(text: methodText), target: target, path: path, body: .none,
                               requestID: requestIDs.first)
        func refusal(_ kind: Refusal.Kind, _ detail: String) -> Refusal { Refusal(kind: kind, detail: detail, head: read) }
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw refusal(.ambiguousFraming, "The request has both Transfer-Encoding and Content-Length; send one.")
            }
            guard codings.count == 1, codings[0].lowercased() == "chunked" else {
                throw refusal(.unsupportedCoding,
                              "Transfer-Encoding \(codings.joined(separator: ", ")) is not supported; send the body with Content-Length or as chunked alone.")
            }
            framing = .chunked
        } else if let first = lengths.first {
            if lengths.contains(where: { $0 != first }) {
                throw refusal(.ambiguousFraming,
                              "The request has \(lengths.count) Content-Length headers with different values (\(lengths.joined(separator: ", "))); send one.")
            }
            guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw refusal(.malformed, "Content-Length must be a number of bytes, not \(first).")
            }
            guard let length = Int(first), length <= Int(Int32.max) else {
                throw refusal(.lengthTooLarge, "Content-Length \(first) is larger than any body this server accepts.")
            }
            if length > 0 { framing = .length(length) }
        }
        var head = read
        head.body = framing
        return head
    }

    /// The headers read here: the two that frame a body, and the request id a refusal made
    /// here must echo.
    private enum FramingHeader {
        case contentLength, transferEncoding, requestID

        init?(name: Slice<UnsafeRawBufferPointer>) {
            if Self.equalsIgnoringCase(name, "content-length") {
                self = .contentLength
            } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
                self = .transferEncoding
            } else if Self.equalsIgnoringCase(name, "x-request-id") {
                self = .requestID
            } else {
                return nil
            }
        }

        private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: StaticString) -> Bool {
            guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
            return zip(bytes, expected).allSatisfy { ($0 | 0x20) == $1 }
        }
    }

    /// The lines of a head, as ranges without their CR LF (or LF), up to the empty line.
    private struct LineReader {
        let bytes: UnsafeRawBufferPointer
        var start = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func next() -> Range<Int>? {
            guard start < bytes.count,
                  let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            var end = newline
            if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            defer { start = newline + 1 }
            return end > start ? start..<end : nil
        }
    }

    /// `bytes` as text without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = bytes.lastIndex(where: { !isBlank($0) })!
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isVersion(_ text: Slice<UnsafeRawBufferPointer>) -> Bool {
        guard text.count == 8 else { return false }
        let at = text.startIndex
        return text[at..<(at + 5)].elementsEqual("HTTP/".utf8) && text[at + 5] == UInt8(ascii: "1")
            && text[at + 6] == UInt8(ascii: ".") && (text[at + 7] == UInt8(ascii: "0") || text[at + 7] == UInt8(ascii: "1"))
    }
}
