import ASCIIText
import CLibevent

/// The request line and the headers that decide framing and the connection's fate, read by the
/// `ConnectionGuard` before libevent sees the head, so that the request can be refused before
/// its body is received and so that the guard knows where the request ends. The handler reads
/// the same head (`closeRequested`), so the guard and the handler never disagree on it.
///
/// The reading is libevent 2.1's own, byte for byte, where that is sound: lines end in LF or
/// CRLF; a value loses leading spaces and trailing spaces and tabs; the first `Content-Length`, `Transfer-Encoding`, `Connection` and `Expect` are the
/// ones libevent reads; names and tokens compare case-insensitively in ASCII alone (never with
/// Unicode case mapping, under which `chun\u{212A}ed` would read as `chunked`). Wherever the two
/// readings could differ, or RFC 9112 calls the framing uncertain, the head is refused, never
/// guessed: control bytes (NUL, a bare CR, …) in a header line; a framing header whose value
/// starts with a tab (libevent's source keeps a leading tab, and then reads no body, while the
/// build Debian ships drops it: readers differ), holds a byte outside ASCII, or continues on a folded line; several
/// different `Content-Length`s; `Transfer-Encoding` beside `Content-Length`; any transfer
/// coding but `chunked`; an expectation other than `100-continue`; a target libevent's URI
/// parser refuses (`libeventReadsTarget`).
package struct RequestHead: Equatable, Sendable {
    package enum BodyFraming: Equatable, Sendable {
        case none
        case length(Int)
        case chunked
    }

    package var method: HTTPMethod
    /// The request target as sent (path and query).
    package var target: String
    /// The target's path, without the query.
    package var path: String
    /// The target's query, without the `?`, when it has one.
    package var query: String? { target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } }
    package var body: BodyFraming
    /// The first `X-Request-Id`, as sent (see `RequestID.accepted`).
    package var requestID: String? = nil
    /// A `Connection` header lists `close` (RFC 9110 §7.6.1), in any of its headers or list
    /// members. libevent alone closes only when the first header is exactly `close`; the reply
    /// says `Connection: close` for every such request, so the connection ends after it.
    package var closeRequested = false
    /// The request is HTTP/1.1: its reply may be sent in chunks (RFC 9112 §7.1; an HTTP/1.0
    /// client reads no chunked coding).
    package var readsChunkedReplies = false

    /// Why a head cannot be accepted: the reply's status and the words for its problem document.
    package struct Refusal: Error, Equatable, Sendable {
        package enum Kind: Equatable, Sendable {
            case malformed  // 400 bad-request
            case ambiguousFraming  // 400 bad-framing
            case unsupportedCoding  // 501 not-implemented
            case lengthTooLarge  // 413 body-too-large (a length past any limit)
            case expectationFailed  // 417 expectation-failed
        }
        package var kind: Kind
        package var detail: String
        /// The request line and request id, when the refusal came after they were read (a
        /// framing refusal): its answer and access line then name them.
        package var head: RequestHead? = nil
    }

    /// Index just past the empty line that ends the head in `bytes`, or nil if it has not come
    /// yet. `from` lets a caller resume where an earlier, shorter search stopped.
    package static func endOfHead(in bytes: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
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

    /// Whether libevent's URI parser reads `target` as it does every request's (leniently,
    /// `EVHTTP_URI_NONCONFORMANT`): a target it refuses (a bad authority such as `http://[x/`
    /// or `http://host:port/`, a bad scheme) would otherwise get libevent's own HTML 400.
    package static func libeventReadsTarget(_ target: String) -> Bool {
        // `withCString`, not the implicit conversion of a String argument, which copies the
        // text into a new array on every request.
        target.withCString { text in
            guard let uri = evhttp_uri_parse_with_flags(text, UInt32(EVHTTP_URI_NONCONFORMANT)) else { return false }
            evhttp_uri_free(uri)
            return true
        }
    }

    /// Where a resumed search must start after `scanned` bytes were searched without an end:
    /// the last two bytes may begin the terminator.
    package static func resumePoint(afterSearching scanned: Int) -> Int { max(0, scanned - 2) }

    /// Parses a complete head (as delimited by `endOfHead`). Reads the bytes in place: only the
    /// method, the target and the values of the framing headers become strings, since this runs
    /// for every request.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(Refusal) -> RequestHead {
        var lines = LineReader(bytes)
        guard let requestLine = lines.next() else { throw Refusal(kind: .malformed, detail: "The request has no request line.") }
        let line = bytes[requestLine]
        guard let firstSpace = line.firstIndex(of: UInt8(ascii: " ")),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: UInt8(ascii: " ")),
            firstSpace > line.startIndex, secondSpace > firstSpace + 1,
            line[line.startIndex..<firstSpace].allSatisfy(Self.isTokenByte),
            line[(firstSpace + 1)..<secondSpace].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            Self.isVersion(line[(secondSpace + 1)...])
        else {
            throw Refusal(kind: .malformed, detail: "The request line is not METHOD SP target SP HTTP/1.x.")
        }
        let methodText = String(decoding: line[line.startIndex..<firstSpace], as: UTF8.self)
        let target = String(decoding: line[(firstSpace + 1)..<secondSpace], as: UTF8.self)
        guard Self.libeventReadsTarget(target) else {
            throw Refusal(kind: .malformed, detail: "The request target is not a URI (its authority or scheme cannot be read).")
        }
        let path = Self.path(ofTarget: target)

        var lengths: [String] = []
        var codings: [String] = []
        var requestIDs: [String] = []
        var connections: [String] = []
        var expectations: [String] = []
        /// The header being read, if the last header line was one read here, for continuation lines.
        var current: ReadHeader?
        var currentValue = ""
        func flush() {
            switch current {
            case .contentLength?: lengths.append(currentValue)
            case .transferEncoding?: codings.append(currentValue)
            case .requestID?: requestIDs.append(currentValue)
            case .connection?: connections.append(currentValue)
            case .expect?: expectations.append(currentValue)
            case nil: break
            }
        }
        var sawHeader = false
        while let range = lines.next() {
            let header = bytes[range]
            if let control = header.first(where: Self.isForbiddenControl) {
                throw Refusal(kind: .malformed, detail: "A header line holds the control byte 0x\(Self.hex(control)); header lines are text.")
            }
            if let first = header.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                // obs-fold: libevent joins the continuation to the previous value with a space.
                guard sawHeader else { throw Refusal(kind: .malformed, detail: "The first header line is a continuation line.") }
                if let current {
                    guard !current.decidesFraming else {
                        throw Refusal(kind: .ambiguousFraming, detail: "The \(current.name) header continues on a folded line; send it on one line.")
                    }
                    currentValue += " " + Self.libeventValue(header, trimmingLeadingTabs: true)
                }
                continue
            }
            flush()
            guard let colon = header.firstIndex(of: UInt8(ascii: ":")), colon > header.startIndex,
                header[header.startIndex..<colon].allSatisfy(Self.isTokenByte)
            else {
                throw Refusal(kind: .malformed, detail: "A header line is not name: value.")
            }
            sawHeader = true
            current = ReadHeader(name: header[header.startIndex..<colon])
            guard let current else { continue }
            let value = header[(colon + 1)...]
            currentValue = Self.libeventValue(value, trimmingLeadingTabs: false)
            if current.decidesFraming {
                if currentValue.utf8.first == UInt8(ascii: "\t") {
                    throw Refusal(
                        kind: .ambiguousFraming,
                        detail: "The \(current.name) value starts with a tab, which readers of HTTP treat differently; send a space or nothing.")
                }
                if value.contains(where: { $0 >= 0x80 }) {
                    throw Refusal(
                        kind: .ambiguousFraming,
                        detail: "The \(current.name) value holds bytes outside ASCII; its tokens are ASCII.")
                }
            }
        }
        flush()

        var framing = BodyFraming.none
        var read = RequestHead(
            method: HTTPMethod(text: methodText), target: target, path: path, body: .none,
            requestID: requestIDs.first)
        read.readsChunkedReplies = line[secondSpace + 8] == UInt8(ascii: "1")
        read.closeRequested = connections.contains { value in
            value.split(separator: ",").contains { $0.trimmingASCIIWhitespace().asciiLowercased() == "close" }
        }
        func refusal(_ kind: Refusal.Kind, _ detail: String) -> Refusal { Refusal(kind: kind, detail: detail, head: read) }
        if let unmet = expectations.first(where: { $0.asciiLowercased() != "100-continue" }) {
            throw refusal(.expectationFailed, "Expect: \(unmet) is not an expectation this server meets; it meets 100-continue alone.")
        }
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw refusal(.ambiguousFraming, "The request has both Transfer-Encoding and Content-Length; send one.")
            }
            guard codings.count == 1, codings[0].asciiLowercased() == "chunked" else {
                throw refusal(
                    .unsupportedCoding,
                    "Transfer-Encoding \(codings.joined(separator: ", ")) is not supported; send the body with Content-Length or as chunked alone.")
            }
            framing = .chunked
        } else if let first = lengths.first {
            if lengths.contains(where: { $0 != first }) {
                throw refusal(
                    .ambiguousFraming,
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

    /// The headers read here: the two that frame a body, the two that libevent also acts on
    /// (`Connection` keeps or closes the connection, `Expect` may make it answer 100 or 417),
    /// and the request id a refusal made here must echo.
    private enum ReadHeader {
        case contentLength, transferEncoding, connection, expect, requestID

        init?(name: Slice<UnsafeRawBufferPointer>) {
            if Self.equalsIgnoringCase(name, "content-length") {
                self = .contentLength
            } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
                self = .transferEncoding
            } else if Self.equalsIgnoringCase(name, "connection") {
                self = .connection
            } else if Self.equalsIgnoringCase(name, "expect") {
                self = .expect
            } else if Self.equalsIgnoringCase(name, "x-request-id") {
                self = .requestID
            } else {
                return nil
            }
        }

        /// Whether the guard and libevent must read this header's value alike for the request
        /// to end where both think it does.
        var decidesFraming: Bool { self != .requestID }

        var name: String {
            switch self {
            case .contentLength: "Content-Length"
            case .transferEncoding: "Transfer-Encoding"
            case .connection: "Connection"
            case .expect: "Expect"
            case .requestID: "X-Request-Id"
            }
        }

        /// ASCII case-insensitive equality with a lower-case name: only A–Z fold, so no other
        /// byte (nor any multi-byte character) can stand for a letter.
        private static func equalsIgnoringCase(_ bytes: Slice<UnsafeRawBufferPointer>, _ lowercase: StaticString) -> Bool {
            guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
            return zip(bytes, expected).allSatisfy { ($0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0) == $1 }
        }
    }

    /// The lines of a head, as ranges without their CR LF (or LF), up to the empty line.
    private struct LineReader {
        let bytes: UnsafeRawBufferPointer
        var start = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func next() -> Range<Int>? {
            guard start < bytes.count,
                let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            else { return nil }
            var end = newline
            if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            defer { start = newline + 1 }
            return end > start ? start..<end : nil
        }
    }

    /// A header value as libevent 2.1 reads it (`evhttp_parse_headers_`): leading spaces
    /// dropped (and leading tabs too on a continuation line, `evhttp_append_to_last_header`),
    /// trailing spaces and tabs dropped. A framing value that would still start with a tab is
    /// refused by the caller, so whether a build drops it too never matters.
    private static func libeventValue(_ bytes: Slice<UnsafeRawBufferPointer>, trimmingLeadingTabs: Bool) -> String {
        let isLeadingBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || (trimmingLeadingTabs && byte == UInt8(ascii: "\t")) }
        guard let first = bytes.firstIndex(where: { !isLeadingBlank($0) }),
            let last = bytes.lastIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }), last >= first
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Bytes no header line may hold (RFC 9110 §5.5): controls other than HTAB, and DEL. libevent
    /// would end a value at a NUL and refuse a bare CR, each in its own way.
    private static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// A `tchar` of RFC 9110 §5.6.2.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `HTTP/1.0` or `HTTP/1.1`, compared byte by byte.
    private static func isVersion(_ text: Slice<UnsafeRawBufferPointer>) -> Bool {
        guard text.count == 8 else { return false }
        let at = text.startIndex
        return text[at] == UInt8(ascii: "H") && text[at + 1] == UInt8(ascii: "T") && text[at + 2] == UInt8(ascii: "T")
            && text[at + 3] == UInt8(ascii: "P") && text[at + 4] == UInt8(ascii: "/") && text[at + 5] == UInt8(ascii: "1")
            && text[at + 6] == UInt8(ascii: ".") && (text[at + 7] == UInt8(ascii: "0") || text[at + 7] == UInt8(ascii: "1"))
    }

    /// The path libevent routes `target` by: without its query or fragment, and, for a target
    /// in absolute form (`http://host/v1/decode`, scheme compared as ASCII), without its scheme
    /// and authority. The guard admits a request by this path, so a target spelled otherwise
    /// costs what its route costs.
    package static func path(ofTarget target: String) -> String {
        // Read as bytes: a target is ASCII (`parse` refuses any other byte in it).
        let path = target[..<(target.utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? target.endIndex)]
        // Most targets are in origin form: no scheme to look for.
        if path.utf8.first == UInt8(ascii: "/") { return String(path) }
        let schemeLength: Int
        if path.utf8.startsWithIgnoringASCIICase("http://") {
            schemeLength = 7
        } else if path.utf8.startsWithIgnoringASCIICase("https://") {
            schemeLength = 8
        } else {
            return String(path)
        }
        let afterScheme = path.utf8.dropFirst(schemeLength)
        return afterScheme.firstIndex(of: UInt8(ascii: "/")).map { String(path[$0...]) } ?? ""
    }
}
