import ASCIIText

/// A `multipart/form-data` body (RFC 7578, framed as RFC 2046 §5.1.1 says), read part by part
/// as ranges into the body: no part's content is copied.
///
/// The shape read: a preamble (ignored), the first `--boundary` line, then each part as header
/// lines, a blank line and its content, each part ended by CRLF `--boundary`; after the last
/// part's boundary comes `--` and an epilogue (ignored). A boundary line may carry spaces or
/// tabs before its CRLF (transport padding). `--boundary` followed by anything else is content,
/// not a boundary. Every line break is CRLF; a bare LF does not end a header line.
///
/// Linear in the body: the boundary search looks at each byte at most twice (a boundary holds
/// no CR, so a comparison that starts at one CR ends at the next), header lines are searched
/// only within `maximumHeaderBytes` of where a part begins, and nothing is searched again.
/// Counts are bounded by the body: a part takes at least a boundary line, a Content-Disposition
/// and a blank line, so there are fewer parts than body bytes / 40; the caller bounds them more
/// tightly with `maximumParts`.
package struct MultipartForm {
    /// The body, shared (not copied).
    package let body: [UInt8]
    /// `--` and the boundary.
    private let dashBoundary: [UInt8]
    /// Where the next part's headers begin; nil once the closing boundary was read (or before
    /// the first `next()`, while `partsRead` is -1).
    private var position: Int?
    /// Parts returned so far; -1 until the first `--boundary` line was looked for.
    private var partsRead = -1
    private let maximumParts: Int

    /// The most bytes of header lines (with their CRLFs) a part may have. Browsers and curl send
    /// one or two lines of about a hundred bytes; this bounds what one part's headers make the
    /// parser hold as text, and how far it searches for their end.
    package static let maximumHeaderBytes = 8_192

    /// RFC 2046's bound on a boundary's length.
    package static let maximumBoundaryLength = 70

    /// The boundary of a Content-Type `multipart/form-data; boundary=…` (quoted or not), checked
    /// as RFC 2046 §5.1.1 allows it: 1 to 70 of its characters, not ending in a space. Throws a
    /// failure of part 0 (before any part) with the reason.
    package static func boundary(contentType: String) throws(MultipartFailure) -> [UInt8] {
        let parameters: HeaderParameters
        do throws(HeaderParameters.Malformed) {
            parameters = try HeaderParameters(parsing: contentType)
        } catch {
            throw MultipartFailure(part: 0, reason: "the Content-Type cannot be read: \(error.reason)")
        }
        guard parameters.value == "multipart/form-data" else {
            throw MultipartFailure(part: 0, reason: "the Content-Type is \(parameters.value), not multipart/form-data")
        }
        guard let boundary = parameters["boundary"] else {
            throw MultipartFailure(part: 0, reason: "the Content-Type has no boundary parameter")
        }
        let bytes = Array(boundary.utf8)
        guard (1...maximumBoundaryLength).contains(bytes.count), bytes.last != 0x20, bytes.allSatisfy(isBoundaryCharacter) else {
            throw MultipartFailure(
                part: 0, reason: "the boundary must be 1 to \(maximumBoundaryLength) letters, digits or '()+_,-./:=? and spaces (not last)")
        }
        return bytes
    }

    /// RFC 2046's bchars: DIGIT, ALPHA, `'()+_,-./:=?` and space.
    private static func isBoundaryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        case UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: "_"), UInt8(ascii: ","),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "?"),
            UInt8(ascii: " "):
            true
        default: false
        }
    }

    /// A reader of `body`, framed by `boundary` (from `boundary(contentType:)`); a body of more
    /// than `maximumParts` parts fails at the first part past it.
    package init(body: [UInt8], boundary: [UInt8], maximumParts: Int) {
        self.body = body
        dashBoundary = Array("--".utf8) + boundary
        self.maximumParts = maximumParts
    }

    /// Every part, read through to the closing boundary: the body is checked whole before any
    /// part is used.
    package static func parts(of body: [UInt8], boundary: [UInt8], maximumParts: Int) throws(MultipartFailure) -> [MultipartPart] {
        var form = MultipartForm(body: body, boundary: boundary, maximumParts: maximumParts)
        var parts: [MultipartPart] = []
        while let part = try form.next() { parts.append(part) }
        return parts
    }

    /// The next part; nil after the last. Throws for a body that is not framed as above, naming
    /// the part (and its file, once its headers named one).
    package mutating func next() throws(MultipartFailure) -> MultipartPart? {
        if partsRead < 0 {
            partsRead = 0
            position = try firstPart()
        }
        guard let start = position else { return nil }
        let number = partsRead + 1
        guard number <= maximumParts else {
            throw MultipartFailure(.tooManyParts, part: number, reason: "the form has more than \(maximumParts) parts, the most one request may send")
        }
        let (name, filename, contentStart) = try headers(of: number, at: start)
        guard let (contentEnd, next) = delimiter(from: contentStart) else {
            throw MultipartFailure(part: number, filename: filename, reason: "it is not closed: no --boundary line follows its content")
        }
        partsRead = number
        position = next
        return MultipartPart(number: number, name: name, filename: filename, content: contentStart..<contentEnd)
    }

    /// Where part 1's headers begin: after the first `--boundary` line, at the body's start or
    /// after a CRLF (the preamble before it is ignored).
    private func firstPart() throws(MultipartFailure) -> Int {
        var searchFrom = 0
        if let after = boundaryLine(at: 0) {
            guard case .part(let start) = after else { throw MultipartFailure(part: 1, reason: "the form closes before its first part") }
            return start
        }
        while let found = find(from: searchFrom) {
            if let after = boundaryLine(at: found + 2) {
                guard case .part(let start) = after else { throw MultipartFailure(part: 1, reason: "the form closes before its first part") }
                return start
            }
            searchFrom = found + 1
        }
        throw MultipartFailure(part: 1, reason: "no --boundary line opens it: the body does not use the boundary its Content-Type gives")
    }

    /// What follows a `--boundary` line starting at `index`: a part (where its headers begin),
    /// the end of the form, or nil when `--boundary` is not there or is followed by other text.
    private enum AfterBoundary {
        case part(Int)
        case closed
    }

    private func boundaryLine(at index: Int) -> AfterBoundary? {
        guard body.count - index >= dashBoundary.count, body[index..<(index + dashBoundary.count)].elementsEqual(dashBoundary) else {
            return nil
        }
        var cursor = index + dashBoundary.count
        if body.count - cursor >= 2, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") {
            return .closed
        }
        while cursor < body.count, body[cursor] == 0x20 || body[cursor] == 0x09 { cursor += 1 }
        guard body.count - cursor >= 2, body[cursor] == 0x0D, body[cursor + 1] == 0x0A else { return nil }
        return .part(cursor + 2)
    }

    /// The first CRLF `--boundary` line at or after `from`: where the content before it ends,
    /// and where the next part begins (nil: the form closed there).
    private func delimiter(from: Int) -> (contentEnd: Int, next: Int?)? {
        var searchFrom = from
        while let found = find(from: searchFrom) {
            switch boundaryLine(at: found + 2) {
            case .part(let next)?: return (found, next)
            case .closed?: return (found, nil)
            case nil: searchFrom = found + 1
            }
        }
        return nil
    }

    /// The index of the next CRLF `--boundary` at or after `from`. Each CR starts at most one
    /// comparison, which ends at the latest at the next CR (no boundary character is a CR).
    private func find(from: Int) -> Int? {
        let pattern = dashBoundary
        return body.withUnsafeBufferPointer { bytes -> Int? in
            let last = bytes.count - pattern.count - 2
            var index = from
            while index <= last {
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A {
                    var matched = 0
                    while matched < pattern.count, bytes[index + 2 + matched] == pattern[matched] { matched += 1 }
                    if matched == pattern.count { return index }
                    // The matched bytes hold no CR: the next candidate starts after them.
                    index += 2 + matched
                    continue
                }
                index += 1
            }
            return nil
        }
    }

    /// Reads part `number`'s header lines from `start`: its field's name, its file's name and
    /// where its content begins. Only Content-Disposition is read; other headers (Content-Type)
    /// are passed over.
    private func headers(of number: Int, at start: Int) throws(MultipartFailure) -> (name: String, filename: String?, contentStart: Int) {
        let limit = min(body.count, start + Self.maximumHeaderBytes)
        var lineStart = start
        var disposition: HeaderParameters?
        func failure(_ reason: String) -> MultipartFailure {
            MultipartFailure(part: number, filename: disposition.flatMap(Self.filename), reason: reason)
        }
        while true {
            guard let lineEnd = Self.crlf(in: body, from: lineStart, before: limit) else {
                if limit < body.count {
                    throw failure("its headers are longer than \(Self.maximumHeaderBytes) bytes")
                }
                throw failure("its headers do not end with a blank line (CRLF CRLF), or a header line has a CR without its LF")
            }
            if lineEnd == lineStart { break }
            let line = body[lineStart..<lineEnd]
            if line.contains(0x0A) { throw failure("a header line ends with a bare LF (header lines end with CRLF)") }
            if line.first == 0x20 || line.first == 0x09 { throw failure("a header line is folded (starts with a space or tab)") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw failure("a header line has no colon") }
            let name = String(decoding: body[lineStart..<colon], as: UTF8.self).asciiLowercased()
            if name == "content-disposition" {
                guard disposition == nil else { throw failure("it has two Content-Disposition headers") }
                do throws(HeaderParameters.Malformed) {
                    disposition = try HeaderParameters(parsing: String(decoding: body[(colon + 1)..<lineEnd], as: UTF8.self))
                } catch {
                    throw failure("its Content-Disposition cannot be read: \(error.reason)")
                }
            }
            lineStart = lineEnd + 2
        }
        guard let disposition else { throw failure("it has no Content-Disposition header") }
        guard disposition.value == "form-data" else { throw failure("its Content-Disposition is \(disposition.value), not form-data") }
        guard let name = disposition["name"] else { throw failure("its Content-Disposition has no name") }
        return (name, Self.filename(of: disposition), lineStart + 2)
    }

    /// The index of the first CRLF in `bytes[from..<before]` (its LF may be at `before`).
    private static func crlf(in bytes: [UInt8], from: Int, before: Int) -> Int? {
        var index = from
        while index < before, index + 1 < bytes.count {
            if bytes[index] == 0x0D {
                guard bytes[index + 1] == 0x0A else { return nil }
                return index
            }
            index += 1
        }
        return nil
    }

    /// `filename*` (RFC 8187: `UTF-8''` and percent-encoded bytes) when it reads as UTF-8, else
    /// `filename`.
    private static func filename(of disposition: HeaderParameters) -> String? {
        if let extended = disposition["filename*"], let decoded = decodeExtendedValue(extended) { return decoded }
        return disposition["filename"]
    }

    private static func decodeExtendedValue(_ text: String) -> String? {
        let pieces = text.utf8.split(separator: UInt8(ascii: "'"), maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, String(decoding: pieces[0], as: UTF8.self).asciiLowercased() == "utf-8" else { return nil }
        var bytes: [UInt8] = []
        var encoded = pieces[2].makeIterator()
        while let byte = encoded.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = encoded.next()?.hexDigitValue, let low = encoded.next()?.hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
