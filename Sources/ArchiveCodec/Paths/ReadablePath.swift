/// A place in a document's readable JSON, written as jq writes one: `.teams[1].name`,
/// `."key with spaces"`, `.["key"]`, `.list[-1]` (from the end); `.` alone is the document.
/// `JSONDocument.value(at:)` follows it through the mapping's wrappers, so the path a person
/// reads off the JSON works whatever class holds each step.
public struct ReadablePath: Sendable, Equatable, CustomStringConvertible {
    public enum Step: Sendable, Equatable {
        /// An object's member (a dictionary's key, an archived object's key).
        case key(String)
        /// An array's element; negative counts from the end.
        case index(Int)
    }

    public let steps: [Step]

    /// A path that does not read as one, with where it stops reading.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(steps: [Step]) { self.steps = steps }

    public init(parsing text: String) throws(Malformed) {
        let scalars = Array(text.unicodeScalars)
        var position = 0
        var steps: [Step] = []
        func fail(_ what: String) -> Malformed {
            Malformed(description: "\(what) at character \(position + 1) of the path \(text.debugDescription); a path reads like .teams[1].name or .\"key with spaces\"")
        }
        /// Four hexadecimal digits of a `\u` escape, from `position`.
        func hexUnit() throws(Malformed) -> UInt32 {
            guard position + 4 <= scalars.count else { throw fail("a \\u escape without four hexadecimal digits") }
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard scalars[position].isASCII, let digit = Int(String(scalars[position]), radix: 16) else {
                    throw fail("a \\u escape without four hexadecimal digits")
                }
                unit = unit << 4 | UInt32(digit)
                position += 1
            }
            return unit
        }
        /// A quoted key, with JSON's (and jq's) escapes.
        func quoted() throws(Malformed) -> String {
            position += 1  // the opening quote
            var key = String.UnicodeScalarView()
            while position < scalars.count, scalars[position] != "\"" {
                guard scalars[position] == "\\" else {
                    key.append(scalars[position])
                    position += 1
                    continue
                }
                position += 1
                guard position < scalars.count else { break }
                let escape = scalars[position]
                position += 1
                switch escape {
                case "\"", "\\", "/": key.append(escape)
                case "b": key.append("\u{08}")
                case "f": key.append("\u{0C}")
                case "n": key.append("\n")
                case "r": key.append("\r")
                case "t": key.append("\t")
                case "u":
                    var unit = try hexUnit()
                    if (0xD800..<0xDC00).contains(unit), position + 1 < scalars.count, scalars[position] == "\\", scalars[position + 1] == "u" {
                        position += 2
                        let low = try hexUnit()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a \\u escape of half a character") }
                        unit = 0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else { throw fail("a \\u escape of half a character") }
                    key.append(scalar)
                default:
                    position -= 1
                    throw fail("an escape that is not one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
                }
            }
            guard position < scalars.count else { throw fail("a quoted key without its closing quote") }
            position += 1
            return String(key)
        }
        guard !scalars.isEmpty else { throw fail("an empty path") }

        while position < scalars.count {
            switch scalars[position] {
            case ".":
                position += 1
                guard position < scalars.count else {
                    guard steps.isEmpty, scalars.count == 1 else { throw fail("a path ending in .") }
                    break
                }
                if scalars[position] == "\"" {
                    steps.append(.key(try quoted()))
                } else if scalars[position] != "[" {
                    var key = String.UnicodeScalarView()
                    while position < scalars.count, !".[]\"".unicodeScalars.contains(scalars[position]) {
                        key.append(scalars[position])
                        position += 1
                    }
                    guard !key.isEmpty else { throw fail("an empty key") }
                    steps.append(.key(String(key)))
                }
            case "[":
                position += 1
                guard position < scalars.count else { throw fail("a [ without its ]") }
                if scalars[position] == "\"" {
                    steps.append(.key(try quoted()))
                } else {
                    var digits = ""
                    if scalars[position] == "-" {
                        digits = "-"
                        position += 1
                    }
                    while position < scalars.count, ("0"..."9").contains(scalars[position]) {
                        digits.unicodeScalars.append(scalars[position])
                        position += 1
                    }
                    guard let index = Int(digits) else { throw fail("an index that is not a whole number") }
                    steps.append(.index(index))
                }
                guard position < scalars.count, scalars[position] == "]" else { throw fail("a [ without its ]") }
                position += 1
            default:
                throw fail(steps.isEmpty ? "a path that does not begin with . or [" : "a step that does not begin with . or [")
            }
        }
        self.steps = steps
    }

    /// The path as jq writes it: a key that is an identifier (ASCII letters, digits and `_`,
    /// not starting with a digit) after a dot, any other quoted as a JSON string (jq's string
    /// syntax); so that it reads back as the same path, here and in jq. The one liberty is
    /// a `$` in an identifier (`.teams[0].$class`), which the mapping's keys need and jq would
    /// quote.
    public var description: String {
        guard !steps.isEmpty else { return "." }
        return steps.map { step in
            switch step {
            case .index(let index): return "[\(index)]"
            case .key(let key): return "." + (Self.isIdentifier(key) ? key : JSONString.quoted(key))
            }
        }.joined()
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"):
                true
            default: false
            }
        }
    }

    /// The first `count` steps.
    func prefix(_ count: Int) -> ReadablePath { ReadablePath(steps: Array(steps.prefix(count))) }
}
