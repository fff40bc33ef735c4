/// Appends JSON text to a byte buffer: separators, optional indentation, exact escaping.
///
/// The caller opens and closes containers and writes keys and values in document order;
/// `JSONOutput` decides where commas and (when `pretty`) newlines go. It keeps no stack, so
/// a document of any depth costs O(1) state here.
struct JSONOutput {
    private(set) var bytes: [UInt8] = []
    let pretty: Bool
    private var depth = 0
    private var needsComma = false
    private var afterKey = false

    /// Bytes the writers may produce; past it they stop descending and the result is refused
    /// (see `KeyedArchive.maximumJSONSize`). Checked by the writers, not on every append.
    var limit = Int.max

    /// When set, receives the text in pieces of about `drainSize` bytes as it is written,
    /// so that the buffer stays that small whatever the document's size.
    private let sink: ((UnsafeBufferPointer<UInt8>) -> Void)?
    static let drainSize = 1 << 20
    /// Bytes already handed to the sink.
    private var drained = 0

    var isOverLimit: Bool { drained + bytes.count > limit }

    /// Where `stop()` cut the text, and whether a value written next there would have had
    /// a comma before it.
    private(set) var stoppedAt: Int?
    private(set) var commaAtStop = false

    /// Bytes of text so far (up to the stop, if stopped).
    var textCount: Int { drained + (stoppedAt ?? bytes.count) }

    init(pretty: Bool, reserve: Int = 0, sink: ((UnsafeBufferPointer<UInt8>) -> Void)? = nil) {
        self.pretty = pretty
        self.sink = sink
        let capacity = sink == nil ? reserve : Self.drainSize + Self.drainSize / 4
        bytes.reserveCapacity(Swift.min(Swift.max(capacity, 64), 1 << 28))
    }

    /// The writers' check between values: whether the text has passed `limit` (they then
    /// stop descending). With a sink, hands it the text so far once that passes `drainSize`.
    @inline(__always)
    mutating func reachedLimit() -> Bool {
        if bytes.count >= Self.drainSize { drainToSink() }
        return isOverLimit
    }

    @inline(never)
    private mutating func drainToSink() {
        if let sink, stoppedAt == nil { drain(into: sink) }
    }

    /// Ends the text here, for another writer to go on from (`ReadableWriter.resume`): the
    /// writer then stops descending (`reachedLimit`), and what it appends while unwinding
    /// (the brackets it had open) is dropped by `finish`.
    mutating func stop() {
        stoppedAt = bytes.count
        commaAtStop = needsComma && !afterKey
        limit = -1
    }

    /// For the writer that goes on from a stop: its first value gets a comma, which the
    /// caller drops when the stopped text has `commaAtStop` false.
    mutating func continueAfterValue() {
        needsComma = true
    }

    /// Out of line: the writers recurse, and inlining this into each of their frames would
    /// make every level of a deep archive take more stack (see `StackBudget`).
    @inline(never)
    private mutating func drain(into sink: (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer(sink)
        drained += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }

    /// Takes the text written so far (with a sink: hands over the rest and returns nothing);
    /// the writer must not be used afterwards.
    mutating func finish() -> [UInt8] {
        if let stoppedAt { bytes.removeSubrange(stoppedAt...) }
        if pretty { bytes.append(0x0A) }
        if let sink {
            drain(into: sink)
            return []
        }
        return bytes
    }

    @inline(__always)
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        if pretty && depth > 0 { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        for _ in 0..<depth { bytes.append(0x20); bytes.append(0x20) }
    }

    mutating func openObject() {
        beginValue()
        bytes.append(UInt8(ascii: "{"))
        depth += 1
        needsComma = false
    }

    mutating func closeObject() { close(UInt8(ascii: "}")) }

    mutating func openArray() {
        beginValue()
        bytes.append(UInt8(ascii: "["))
        depth += 1
        needsComma = false
    }

    mutating func closeArray() { close(UInt8(ascii: "]")) }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if pretty && needsComma { newline() }
        bytes.append(bracket)
        needsComma = true
    }

    /// Writes an object key given as ASCII text known to need no escaping (the mapping's `$` keys).
    mutating func key(_ literal: StaticString) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        keyEnd()
    }

    /// Writes an object key from UTF-8 text, escaping it, and doubling a leading `$` when
    /// `escapeDollar` is set so that data keys never collide with the mapping's markers.
    mutating func key(utf8 text: UnsafeBufferPointer<UInt8>, escapeDollar: Bool) {
        beginValue()
        if escapeDollar, text.first == UInt8(ascii: "$") {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: "$"))
            appendEscapedBody(text)
            bytes.append(UInt8(ascii: "\""))
        } else {
            appendQuoted(text)
        }
        keyEnd()
    }

    /// Writes an object key from UTF-16 code units (big-endian bytes of a binary plist).
    mutating func key(utf16BigEndian units: UnsafeBufferPointer<UInt8>, escapeDollar: Bool) {
        beginValue()
        appendUTF16String(units, escapeDollar: escapeDollar)
        keyEnd()
    }

    private mutating func keyEnd() {
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(0x20) }
        afterKey = true
        needsComma = false
    }

    mutating func null() {
        beginValue()
        appendLiteral("null")
        needsComma = true
    }

    mutating func bool(_ value: Bool) {
        beginValue()
        appendLiteral(value ? "true" : "false")
        needsComma = true
    }

    mutating func int(_ value: Int64) {
        beginValue()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDecimal(value.magnitude)
        } else {
            appendDecimal(UInt64(value))
        }
        needsComma = true
    }

    mutating func uint(_ value: UInt64) {
        beginValue()
        appendDecimal(value)
        needsComma = true
    }

    /// Writes a finite real so that it reads back as a real: always with a `.` or an exponent.
    /// Non-finite values have no JSON number form; callers wrap them (see `ReadableWriter`).
    mutating func real(_ value: Double) {
        precondition(value.isFinite, "non-finite reals are written through a wrapper")
        beginValue()
        var text = value.description
        var hasMarker = false
        for unit in text.utf8 where unit == UInt8(ascii: ".") || unit == UInt8(ascii: "e") {
            hasMarker = true
            break
        }
        if !hasMarker { text += ".0" }
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    mutating func string(_ literal: StaticString) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    mutating func string(_ text: String) {
        beginValue()
        var text = text
        text.withUTF8 { appendQuoted($0) }
        needsComma = true
    }

    /// Writes a string value from UTF-8 (or ASCII) bytes.
    mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        beginValue()
        appendQuoted(text)
        needsComma = true
    }

    mutating func string(utf16BigEndian units: UnsafeBufferPointer<UInt8>) {
        beginValue()
        appendUTF16String(units, escapeDollar: false)
        needsComma = true
    }

    /// Writes a value given as JSON text already (such as a string escaped once, quotes included).
    mutating func encoded(_ json: [UInt8]) {
        beginValue()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// Writes a string value whose content is already JSON-safe ASCII (base64, dates, UUIDs).
    mutating func rawString(_ ascii: [UInt8]) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: ascii)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes base64 text of `data` as a string value.
    mutating func base64String(_ data: UnsafeBufferPointer<UInt8>) {
        beginValue()
        bytes.append(UInt8(ascii: "\""))
        Base64.encode(data, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    // MARK: - Text

    private mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Out of line: `int` sits on the writers' recursive path (`$ref`), and this keeps its
    /// scratch out of their frames.
    @inline(never)
    private mutating func appendDecimal(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            let base = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
            while rest > 0 {
                base[23 - count] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
                rest /= 10
                count += 1
            }
            // A typed buffer takes the array's memcpy path (a raw slice went byte by byte).
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + (24 - count), count: count))
        }
    }

    private mutating func appendQuoted(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        appendEscapedBody(text)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Copies valid UTF-8 text, escaping what JSON requires (quote, backslash, controls).
    private mutating func appendEscapedBody(_ text: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            }
            appendEscape(UInt16(byte))
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<count]))
        }
    }

    private mutating func appendEscape(_ unit: UInt16) {
        bytes.append(UInt8(ascii: "\\"))
        switch unit {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            bytes.append(UInt8(ascii: "u"))
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(unit >> 12) & 0xF])
                bytes.append(digits[Int(unit >> 8) & 0xF])
                bytes.append(digits[Int(unit >> 4) & 0xF])
                bytes.append(digits[Int(unit) & 0xF])
            }
        }
    }

    /// Transcodes big-endian UTF-16 (already validated: surrogates paired) to escaped UTF-8.
    private mutating func appendUTF16String(_ units: UnsafeBufferPointer<UInt8>, escapeDollar: Bool) {
        bytes.append(UInt8(ascii: "\""))
        let count = units.count / 2
        var index = 0
        if escapeDollar, count > 0, units[0] == 0, units[1] == UInt8(ascii: "$") {
            bytes.append(UInt8(ascii: "$"))
        }
        while index < count {
            let unit = UInt16(units[2 * index]) << 8 | UInt16(units[2 * index + 1])
            index += 1
            var scalar = UInt32(unit)
            if unit >= 0xD800 && unit < 0xDC00 {
                let low = UInt16(units[2 * index]) << 8 | UInt16(units[2 * index + 1])
                index += 1
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            if scalar < 0x80 {
                if scalar < 0x20 || scalar == 0x22 || scalar == 0x5C {
                    appendEscape(UInt16(scalar))
                } else {
                    bytes.append(UInt8(scalar))
                }
            } else {
                UTF8Encoding.append(scalar: scalar, to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

enum UTF8Encoding {
    @inline(__always)
    static func append(scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            bytes.append(UInt8(scalar))
        case ..<0x800:
            bytes.append(UInt8(0xC0 | (scalar >> 6)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        case ..<0x10000:
            bytes.append(UInt8(0xE0 | (scalar >> 12)))
            bytes.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            bytes.append(UInt8(0xF0 | (scalar >> 18)))
            bytes.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Length of the valid UTF-8 sequence starting at `index`, or nil if it is not valid
    /// (overlong forms, surrogates and values past U+10FFFF are invalid).
    @inline(__always)
    static func validSequenceLength(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = text[index]
        let remaining = text.count - index
        func cont(_ offset: Int) -> UInt8? {
            offset < remaining ? text[index + offset] : nil
        }
        switch lead {
        case 0x00...0x7F:
            return 1
        case 0xC2...0xDF:
            guard let b1 = cont(1), b1 & 0xC0 == 0x80 else { return nil }
            return 2
        case 0xE0...0xEF:
            guard let b1 = cont(1), let b2 = cont(2), b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return nil }
            if lead == 0xE0 && b1 < 0xA0 { return nil }
            if lead == 0xED && b1 >= 0xA0 { return nil }
            return 3
        case 0xF0...0xF4:
            guard let b1 = cont(1), let b2 = cont(2), let b3 = cont(3),
                b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80, b3 & 0xC0 == 0x80
            else { return nil }
            if lead == 0xF0 && b1 < 0x90 { return nil }
            if lead == 0xF4 && b1 >= 0x90 { return nil }
            return 4
        default:
            return nil
        }
    }

    /// Offset of the first invalid byte, or nil when all of `text` is valid UTF-8.
    static func firstInvalidOffset(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index < text.count {
            if text[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = validSequenceLength(text, at: index) else { return index }
            index += length
        }
        return nil
    }
}
