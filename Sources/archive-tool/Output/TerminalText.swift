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
/// included, is kept.
enum TerminalText {
    /// `text` with those characters escaped. `quoted`: inside double quotes, with `\` and `"`
    /// escaped too, so that where the text ends is plain (a preview, which may hold anything).
    static func escaped(_ text: String, quoted: Bool = false) -> String {
        var result = quoted ? "\"" : ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\0": result += "\\0"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\\" where quoted: result += "\\\\"
            case "\"" where quoted: result += "\\\""
            default:
                if isActedOn(scalar) {
                    let digits = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u{" + (digits.count < 2 ? "0" : "") + digits + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted ? result + "\"" : result
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
