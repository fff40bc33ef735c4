/// Text read from an archive or given as a file name, made safe to print on a terminal: a
/// character a terminal would act on instead of showing (an escape sequence's start, a bell, a
/// line break inside a field) or that reorders what is shown around it is written as a Swift
/// string literal writes it, so an archive cannot move the cursor, retitle the window or hide
/// text. Quoted (a preview), the result is a Swift literal of the text exactly.
///
/// Written escaped: the control characters (C0, DEL and C1: U+0000 to U+001F, U+007F to
/// U+009F; `\0`, `\t`, `\n`, `\r` as such, the others in hex, `\u{07}`, `\u{1B}`), the
/// line and paragraph separators, and the bidirectional formatting characters (U+061C, U+200E,
/// U+200F, U+202A to U+202E, U+2066 to U+2069). Everything else, other scripts and emoji
/// included, is kept. A file name's bytes that are not UTF-8 (`escaped(bytes:)`) are written as
/// `\xNN`, as a shell's `$'…'` and Python write a byte, each byte of an invalid sequence alone.
enum TerminalText {
    /// `text` with those characters escaped. `quoted`: inside double quotes, with `\` and `"`
    /// escaped too, so that where the text ends is plain (a preview, which may hold anything).
    static func escaped(_ text: String, quoted: Bool = false) -> String {
        var result = quoted ? "\"" : ""
        for scalar in text.unicodeScalars { append(scalar, to: &result, quoted: quoted) }
        return quoted ? result + "\"" : result
    }

    /// `bytes` (a file name) as text with those characters escaped, and each byte that is not
    /// part of a UTF-8 character as `\xNN`: the one way the tool shows a name on stderr.
    static func escaped(bytes: some Collection<UInt8>) -> String {
        var result = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        // Where the parser stands in `bytes`: each result says how many bytes it took.
        var position = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                append(UTF8.decode(encoded), to: &result, quoted: false)
                position = bytes.index(position, offsetBy: encoded.count)
            case .error(let length):
                for _ in 0..<length {
                    result += "\\x" + hexDigits(UInt32(bytes[position]))
                    position = bytes.index(after: position)
                }
            case .emptyInput: return result
            }
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String, quoted: Bool) {
        switch scalar {
        case "\0": result += "\\0"
        case "\t": result += "\\t"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\\" where quoted: result += "\\\\"
        case "\"" where quoted: result += "\\\""
        default:
            if isActedOn(scalar) {
                result += "\\u{" + hexDigits(scalar.value) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }

    /// `value` in upper-case hex, at least two digits: both escapes write a byte as `1B`, not `1b` or `B`.
    private static func hexDigits(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }

    /// Whether a terminal acts on `scalar`, or it reorders the text around it.
    private static func isActedOn(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
