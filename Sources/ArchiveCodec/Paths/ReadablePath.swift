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
        func quoted() throws(Malformed) -> String {
            position += 1  // the opening quote
            var key = String.UnicodeScalarView()
            while position < scalars.count, scalars[position] != "\"" {
                if scalars[position] == "\\" {
                    position += 1
                    guard position < scalars.count else { break }
                }
                key.append(scalars[position])
                position += 1
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

    /// The path as jq writes it: plain keys after a dot, others quoted.
    public var description: String {
        guard !steps.isEmpty else { return "." }
        return steps.map { step in
            switch step {
            case .index(let index): return "[\(index)]"
            case .key(let key):
                let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$" }
                return plain ? "." + key : "." + key.debugDescription
            }
        }.joined()
    }

    /// The first `count` steps.
    func prefix(_ count: Int) -> ReadablePath { ReadablePath(steps: Array(steps.prefix(count))) }
}
