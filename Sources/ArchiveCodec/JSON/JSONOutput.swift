/// Appends JSON text to a byte buffer: separators, optional indentation, exact escaping.
///
/// The caller opens and closes containers and writes keys and values in document order;
/// `JSONOutput` decides where commas and (when `pretty`) newlines go. It keeps no stack, so
/// a document of any depth costs O(1) state here.
///
/// The text is written into `OutputBytes`, not into an array. Invariant (as for
/// `OutputBytes`): a `JSONOutput` is moved from owner to owner, never written through two
/// copies.
struct JSONOutput {
    /// The text in the buffer (written and not yet handed to the sink).
    private var bytes: OutputBytes
    private var base: UnsafeMutablePointer<UInt8> { bytes.base }
    /// Bytes in the buffer.
    private var count: Int {
        get { bytes.count }
        set { bytes.count = newValue }
    }
    let pretty: Bool
    private var depth = 0
    private var needsComma = false
    private var afterKey = false
    /// Where the text of the last key written from UTF-8 or UTF-16 begins.
    private var keyTextStart = 0

    /// Bytes the writers may produce; past it they stop descending and the result is refused
    /// (see `KeyedArchive.maximumOutputSize`). Checked by the writers, not on every append.
    var limit = Int.max

    /// When set, receives the text in pieces of about `drainSize` bytes as it is written,
    /// so that the buffer stays that small whatever the document's size.
    private let sink: ((UnsafeBufferPointer<UInt8>) -> Void)?
    static let drainSize = 1 << 20
    /// Bytes already handed to the sink.
    private var drained = 0

    var isOverLimit: Bool { drained + count > limit }

    /// Set when the thread's `ConversionDeadline` had passed at a hand-over to the sink (once
    /// per `drainSize` of text): the writers then stop descending, as at the limit, and the
    /// caller refuses the text (`refuseIfUnfinished`) with `timedOut`.
    private(set) var timedOut = false

    /// Throws when the text is not the whole document: the deadline passed while it was
    /// written (`timedOut`), or it passed the limit (`tooLarge`).
    func refuseIfUnfinished(_ tooLarge: @autoclosure () -> CodecError) throws(CodecError) {
        if timedOut { throw ConversionDeadline.passed }
        if isOverLimit { throw tooLarge() }
    }

    /// Where `stop()` cut the text, and whether a value written next there would have had
    /// a comma before it.
    private(set) var stoppedAt: Int?
    private(set) var commaAtStop = false

    /// Bytes of text so far (up to the stop, if stopped).
    var textCount: Int { drained + (stoppedAt ?? count) }

    /// `reserve`: the expected size of the text (0: not known), capped at 256 MiB, or with a
    /// sink at a little more than `drainSize` (what the buffer holds between hand-overs), which
    /// is also the reserve of a sink's text of unknown size. Only the pages written are touched,
    /// so a generous reserve costs address space, not memory; but a small document (a nested
    /// payload, one writer each) gets a small buffer, not a megabyte to allocate and free.
    init(pretty: Bool, reserve: Int = 0, sink: ((UnsafeBufferPointer<UInt8>) -> Void)? = nil) {
        self.pretty = pretty
        self.sink = sink
        let drained = Self.drainSize + Self.drainSize / 4
        let wanted = sink == nil ? reserve : reserve > 0 ? Swift.min(reserve, drained) : drained
        bytes = OutputBytes(capacity: Swift.min(Swift.max(wanted, 64), 1 << 28))
    }

    /// The writers' check between values: whether the text has passed `limit` (they then
    /// stop descending). With a sink, hands it the text so far once that passes `drainSize`.
    @inline(__always)
    mutating func reachedLimit() -> Bool {
        if count >= Self.drainSize { drainToSink() }
        return isOverLimit
    }

    @inline(never)
    private mutating func drainToSink() {
        guard let sink, stoppedAt == nil else { return }
        drain(into: sink)
        if ConversionDeadline.hasPassed {
            timedOut = true
            limit = -1
        }
    }

    /// Ends the text here, for another writer to go on from (`ReadableWriter.resume`): the
    /// writer then stops descending (`reachedLimit`), and what it appends while unwinding
    /// (the brackets it had open) is dropped by `finish`.
    mutating func stop() {
        stoppedAt = count
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
        sink(UnsafeBufferPointer(start: base, count: count))
        drained += count
        count = 0
    }

    /// Takes the text written so far (with a sink: hands over the rest and returns nothing);
    /// the writer must not be used afterwards.
    mutating func finish() -> [UInt8] {
        finish { Array($0) }
    }

    /// Ends the text as `finish()` does and lends what is left of it to `body` (with a
    /// sink: nothing is left), without copying it out.
    mutating func finish<Result, Failure>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        if let stoppedAt { count = stoppedAt }
        if pretty { append(0x0A) }
        if let sink { drain(into: sink) }
        return try bytes.withBytes(body)
    }

    // MARK: - Bytes

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    @inline(__always)
    private mutating func append(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.append(text)
    }

    @inline(__always)
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if needsComma { append(UInt8(ascii: ",")) }
        if pretty && depth > 0 { newline() }
    }

    private mutating func newline() {
        append(0x0A)
        for _ in 0..<depth {
            append(0x20)
            append(0x20)
        }
    }

    @inline(__always)
    mutating func openObject() {
        beginValue()
        append(UInt8(ascii: "{"))
        depth += 1
        needsComma = false
    }

    mutating func closeObject() { close(UInt8(ascii: "}")) }

    /// Opens an object given as its compact JSON text so far: `{` and whole members
    /// (`{"$class":"Note","$classes":[…]`), the object left open for more members. For
    /// compact output only, as `member(prepared:)`.
    mutating func openObject(prepared text: UnsafeBufferPointer<UInt8>) {
        beginValue()
        append(text)
        depth += 1
        needsComma = true
    }

    @inline(__always)
    mutating func openArray() {
        beginValue()
        append(UInt8(ascii: "["))
        depth += 1
        needsComma = false
    }

    mutating func closeArray() { close(UInt8(ascii: "]")) }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if pretty && needsComma { newline() }
        append(bracket)
        needsComma = true
    }

    /// Writes an object key given as ASCII text known to need no escaping.
    mutating func key(_ literal: StaticString) {
        beginValue()
        appendQuoted(literal)
        keyEnd()
    }

    /// Writes an object key from UTF-8 text, escaping it; `prefix`, an ASCII character that
    /// needs no escaping, goes before the text inside the quotes.
    mutating func key(utf8 text: UnsafeBufferPointer<UInt8>, prefix: UInt8? = nil) {
        beginValue()
        keyTextStart = count
        if let prefix {
            append(UInt8(ascii: "\""))
            append(prefix)
            appendEscapedBody(text)
            append(UInt8(ascii: "\""))
        } else {
            appendQuoted(text)
        }
        keyEnd()
    }

    /// Writes an object key given as its JSON text, quotes and escapes included (a key of a
    /// parsed document, as it is).
    mutating func key(json text: UnsafeBufferPointer<UInt8>) {
        beginValue()
        append(text)
        keyEnd()
    }

    /// Writes an object key from UTF-16 code units (big-endian bytes of a binary plist), with
    /// `prefix` as `key(utf8:prefix:)` takes it.
    mutating func key(utf16BigEndian units: UnsafeBufferPointer<UInt8>, prefix: UInt8? = nil) {
        beginValue()
        keyTextStart = count
        appendUTF16String(units, prefix: prefix)
        keyEnd()
    }

    /// Writes an object key given as the text `lastKeyText` gave for it (quotes and colon
    /// included), `count` bytes at `text`, from which `readable` (16 or more) may be read:
    /// copying a fixed 16 or 64 bytes and keeping `count` of them costs no call to memcpy.
    @inline(__always)
    mutating func key(prepared text: UnsafePointer<UInt8>, count length: Int, readable: Int) {
        beginValue()
        bytes.room(for: 64)
        if length <= 16 {
            UnsafeMutableRawPointer(base + count).copyMemory(from: text, byteCount: 16)
        } else if readable >= 64 {
            UnsafeMutableRawPointer(base + count).copyMemory(from: text, byteCount: 64)
        } else {
            (base + count).update(from: text, count: length)
        }
        count += length
        afterKey = true
        needsComma = false
    }

    /// The text of the key just written by `key(utf8:prefix:)` or
    /// `key(utf16BigEndian:prefix:)`, quotes and colon included, for `key(prepared:)`;
    /// valid until the next write.
    var lastKeyText: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + keyTextStart, count: count - keyTextStart)
    }

    private mutating func keyEnd() {
        append(UInt8(ascii: ":"))
        if pretty { append(0x20) }
        afterKey = true
        needsComma = false
    }

    /// Writes an object member given as its compact JSON text (`"key":value`); for
    /// compact output only (indented output puts a space after the colon).
    mutating func member(prepared text: UnsafeBufferPointer<UInt8>) {
        beginValue()
        append(text)
        needsComma = true
    }

    /// Writes `{"key":value}`, an object of one integer member, as `openObject`, `key`,
    /// `uint` and `closeObject` would; compact text in one piece.
    mutating func singleMemberObject(_ literal: StaticString, _ value: UInt64) {
        guard !pretty else {
            openObject()
            key(literal)
            uint(value)
            closeObject()
            return
        }
        beginValue()
        append(UInt8(ascii: "{"))
        appendQuoted(literal)
        append(UInt8(ascii: ":"))
        appendDecimal(value)
        append(UInt8(ascii: "}"))
        needsComma = true
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
            append(UInt8(ascii: "-"))
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
        if let (digits, decimals) = Self.shortDecimal(value) {
            if value < 0 { append(UInt8(ascii: "-")) }
            appendFixedPoint(digits, decimals: decimals)
            needsComma = true
            return
        }
        let spelling = RealSpelling(value)
        spelling.withBytes { append($0) }
        if !spelling.hasMarker { appendLiteral(".0") }
        needsComma = true
    }

    mutating func string(_ literal: StaticString) {
        beginValue()
        appendQuoted(literal)
        needsComma = true
    }

    /// `literal` between quotes, as it is: ASCII that needs no escaping.
    @inline(__always)
    private mutating func appendQuoted(_ literal: StaticString) {
        append(UInt8(ascii: "\""))
        literal.withUTF8Buffer { append($0) }
        append(UInt8(ascii: "\""))
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
        appendUTF16String(units)
        needsComma = true
    }

    /// Writes a value given as JSON text already (such as a string escaped once, quotes included).
    mutating func encoded(_ json: [UInt8]) {
        beginValue()
        json.withUnsafeBufferPointer { append($0) }
        needsComma = true
    }

    /// Writes a scalar value given as its JSON text (a number, a string with its quotes and
    /// escapes, `true`, `false`, `null`), as it is.
    mutating func scalar(json text: UnsafeBufferPointer<UInt8>) {
        beginValue()
        append(text)
        needsComma = true
    }

    /// Writes a string value whose content is already JSON-safe ASCII (base64, dates, UUIDs).
    mutating func rawString(_ ascii: [UInt8]) {
        ascii.withUnsafeBufferPointer { rawString($0) }
    }

    mutating func rawString(_ ascii: UnsafeBufferPointer<UInt8>) {
        beginValue()
        append(UInt8(ascii: "\""))
        append(ascii)
        append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes a string value `#` and the ASCII digits packed in `digits` (the first highest,
    /// `digitCount` of them): a colour's hex (`ColorHex.Spelling`), with no buffer of its own.
    mutating func hexString(packed digits: UInt64, digitCount: Int) {
        beginValue()
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: "#"))
        for index in stride(from: digitCount - 1, through: 0, by: -1) { append(UInt8(truncatingIfNeeded: digits >> (8 * index))) }
        append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes base64 text of `data` as a string value.
    mutating func base64String(_ data: UnsafeBufferPointer<UInt8>) {
        beginValue()
        append(UInt8(ascii: "\""))
        let length = Base64.encodedCount(data.count)
        bytes.room(for: length)
        Base64.encode(data, to: base + count)
        count += length
        append(UInt8(ascii: "\""))
        needsComma = true
    }

    // MARK: - Text

    private mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// `value` as `digits / 10^decimals` with at most three decimals (six below 2^31), the
    /// fewest that give back exactly `value`, when there is such a form and
    /// `value.description` writes it in fixed point (magnitude 0.001 up to 10^12, or zero):
    /// then that text is the integer part, a point, and the decimals (at least one), which
    /// `appendFixedPoint` writes without `description`'s general algorithm, which costs far
    /// more per real (a game save's ratings, most reals people type). Why it is the same
    /// text: `description` writes the shortest decimal that reads back as `value`. Below
    /// 10^12 a double's spacing is under 10^-3, and below 2^31 under 10^-6, so at most one
    /// decimal of each length up to those reads back as it. And `magnitude * 10^decimals`
    /// stays below 2^52, where the product and the distance to that decimal's digits together
    /// stay under half a unit: rounding the product gives those digits.
    ///
    /// So one product at the most decimals allowed answers for every length: a shorter
    /// decimal that reads back is, padded with zeros, a longest one that reads back (the same
    /// number: the divisions are correctly rounded, so they agree), and it is the only one;
    /// its trailing zeros dropped, it is the shortest. Nil otherwise (and for −0.0); the
    /// caller then uses `description`.
    static func shortDecimal(_ value: Double) -> (digits: UInt64, decimals: Int)? {
        let magnitude = value.magnitude
        guard magnitude < 1e12, magnitude >= 0.001 || value == 0, value.sign == .plus || value != 0 else { return nil }
        let small = magnitude < 2_147_483_648
        let scale = small ? 1e6 : 1e3
        let scaled = (magnitude * scale).rounded()
        guard scaled / scale == magnitude else { return nil }
        var digits = UInt64(scaled)
        var decimals = small ? 6 : 3
        while decimals > 0, digits % 10 == 0 {
            digits /= 10
            decimals -= 1
        }
        return (digits, decimals)
    }

    /// `digits / 10^decimals` in fixed point with at least one decimal: 50.0, 0.05, 12.125.
    /// The digits are spelled once, right-aligned in a scratch with zeros before them up to
    /// one integer digit, then copied out in two pieces around the point.
    private mutating func appendFixedPoint(_ digits: UInt64, decimals: Int) {
        bytes.room(for: Self.fixedPointRoom)
        var scratch: (UInt64, UInt64, UInt64) = (0x3030_3030_3030_3030, 0x3030_3030_3030_3030, 0x3030_3030_3030_3030)
        withUnsafeMutableBytes(of: &scratch) { raw in
            let text = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let end = text + raw.count
            let written = Self.writeDigits(digits, endingAt: end)
            // At least one integer digit: the zeros already there stand before the digits.
            let width = Swift.max(written, decimals + 1)
            let integerDigits = width - decimals
            (base + count).update(from: end - width, count: integerDigits)
            base[count + integerDigits] = UInt8(ascii: ".")
            if decimals == 0 {
                base[count + integerDigits + 1] = UInt8(ascii: "0")
                count += integerDigits + 2
            } else {
                (base + count + integerDigits + 1).update(from: end - decimals, count: decimals)
                count += width + 1
            }
        }
    }

    /// The most `appendFixedPoint` writes: 20 digits, a point and a zero.
    private static let fixedPointRoom = 22

    /// Out of line: `int` sits on the writers' recursive path (`$ref`), and this keeps its
    /// scratch out of their frames.
    @inline(never)
    private mutating func appendDecimal(_ value: UInt64) {
        if value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        bytes.room(for: 20)
        let length = Self.decimalLength(value)
        _ = Self.writeDigits(value, endingAt: base + count + length)
        count += length
    }

    /// How many decimal digits `value` takes (one for 0), from its bit length: `bits × log10(2)`
    /// (1233 / 4096) is the count of a number of that many bits, or one more when the value
    /// reaches the next power of ten.
    @inline(__always)
    static func decimalLength(_ value: UInt64) -> Int {
        guard value >= 10 else { return 1 }
        let bits = 64 - value.leadingZeroBitCount
        let estimate = (bits &* 1233) &>> 12
        return value >= PowersOfTen.integers[estimate] ? estimate + 1 : estimate
    }

    /// Spells `value` in decimal in the bytes before `end`, two digits per division, from the
    /// end; returns how many it wrote (1 to 20). The one home of the digit pairs.
    @inline(__always)
    static func writeDigits(_ value: UInt64, endingAt end: UnsafeMutablePointer<UInt8>) -> Int {
        let pairs: StaticString =
            "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        return pairs.withUTF8Buffer { pairs in
            var rest = value
            var position = end
            while rest >= 100 {
                let pair = Int(truncatingIfNeeded: rest % 100) &* 2
                rest /= 100
                position -= 2
                position[0] = pairs[pair]
                position[1] = pairs[pair + 1]
            }
            if rest >= 10 {
                position -= 2
                position[0] = pairs[Int(truncatingIfNeeded: rest) &* 2]
                position[1] = pairs[Int(truncatingIfNeeded: rest) &* 2 + 1]
            } else {
                position -= 1
                position[0] = UInt8(truncatingIfNeeded: rest) &+ 0x30
            }
            return end - position
        }
    }

    private mutating func appendQuoted(_ text: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        appendEscapedBody(text)
        append(UInt8(ascii: "\""))
    }

    /// Copies valid UTF-8 text, escaping what JSON requires (quote, backslash, controls).
    private mutating func appendEscapedBody(_ text: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let end = text.count
        while index < end {
            index = Self.firstToEscape(text, from: index)
            guard index < end else { break }
            if runStart < index {
                append(UnsafeBufferPointer(rebasing: text[runStart..<index]))
            }
            appendEscape(UInt16(text[index]))
            index += 1
            runStart = index
        }
        if runStart < end {
            append(UnsafeBufferPointer(rebasing: text[runStart..<end]))
        }
    }

    /// Index of the first byte at or after `start` that JSON must escape (a control
    /// character, `"` or `\`), or `text.count`. Looks at eight bytes per step: a word
    /// holds such a byte when one of its bytes is below 0x20, or zero after an exclusive or
    /// with `"` or `\` repeated (the usual tests for a small or zero byte: exact as to
    /// whether a word has one; bytes of 0x80 and above, as in UTF-8 sequences, never match).
    @inline(__always)
    static func firstToEscape(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard let base = text.baseAddress else { return text.count }
        var index = start
        let raw = UnsafeRawPointer(base)
        while index + 8 <= text.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let found = ((word &- ones &* 0x20) & ~word | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
            if found != 0 { break }
            index += 8
        }
        while index < text.count {
            let byte = text[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }

    private mutating func appendEscape(_ unit: UInt16) {
        append(UInt8(ascii: "\\"))
        switch unit {
        case 0x22: append(UInt8(ascii: "\""))
        case 0x5C: append(UInt8(ascii: "\\"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        default:
            append(UInt8(ascii: "u"))
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { digits in
                append(digits[Int(unit >> 12) & 0xF])
                append(digits[Int(unit >> 8) & 0xF])
                append(digits[Int(unit >> 4) & 0xF])
                append(digits[Int(unit) & 0xF])
            }
        }
    }

    /// Transcodes big-endian UTF-16 (already validated: surrogates paired) to escaped UTF-8.
    private mutating func appendUTF16String(_ units: UnsafeBufferPointer<UInt8>, prefix: UInt8? = nil) {
        append(UInt8(ascii: "\""))
        let unitCount = units.count / 2
        var index = 0
        if let prefix { append(prefix) }
        while index < unitCount {
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
                    append(UInt8(scalar))
                }
            } else {
                appendScalar(scalar)
            }
        }
        append(UInt8(ascii: "\""))
    }

    private mutating func appendScalar(_ scalar: UInt32) {
        bytes.room(for: 4)
        count += UTF8Encoding.write(scalar: scalar, to: base + count)
    }
}
