/// A place in a document's readable JSON (what `archive-tool decode` prints), written so that a
/// person can follow it (docs/archive-tool.md, "compare"):
///
///     .games.$array[103].records.$array[2].play       from the document's root
///     $id 47 .home.name                               from the object written with "$id": 47
///     .icon.$data.$keyedArchive $id 5 .name           inside a nested payload (decode --nested)
///
/// `.key` is a member (`["key"]`, JSON-quoted, when the key is not letters, digits, `_`, `$`
/// and `@`, or begins with a digit); `[n]` an element; `$id n` restarts the path at the
/// object written with that `$id` (in the payload the path has entered, if any); `.` alone is
/// the root. Keys are written as the JSON writes them (a data key `$x` is `$$x`). A path of
/// more than `shownSteps` steps is shown with its middle left out.
struct DocumentPath: Sendable, Equatable, CustomStringConvertible {
    /// One step of a path.
    enum Step: Sendable, Equatable {
        /// A member of a JSON object, by its key as written.
        case member(String)
        /// An element of a JSON array.
        case index(Int)
        /// The object written with `"$id": n`: the path starts again there.
        case anchor(Int)

        /// The member of one of the mapping's keys (`MappingKeys`).
        static func mapping(_ key: StaticString) -> Step { .member(String(describing: key)) }
    }

    private(set) var steps: [Step]

    /// The most steps shown; longer paths keep their first and last steps.
    static let shownSteps = 48

    init(_ steps: [Step] = []) {
        self.steps = steps
    }

    /// The document's root.
    static let root = DocumentPath()

    mutating func append(_ step: Step) { steps.append(step) }

    mutating func append(contentsOf path: DocumentPath) { steps += path.steps }

    /// A member by a data key's text: a key that begins with `$` is written `$$…`.
    static func dataKey(_ text: String) -> Step {
        .member(text.hasPrefix("$") ? "$" + text : text)
    }

    var description: String {
        guard steps.count > Self.shownSteps else { return Self.words(steps[...]).joined(separator: " ") }
        let head = Self.shownSteps / 4
        let tail = steps.suffix(Self.shownSteps - head)
        return (Self.words(steps.prefix(head)) + ["…(\(steps.count - Self.shownSteps) steps)…"] + Self.words(tail)).joined(separator: " ")
    }

    /// The text of `steps`: a word per run of members and elements, one per anchor.
    private static func words(_ steps: ArraySlice<Step>) -> [String] {
        var words: [String] = []
        var current = ""
        func endWord() {
            guard !current.isEmpty else { return }
            words.append(current.hasPrefix("[") ? "." + current : current)
            current = ""
        }
        for step in steps {
            switch step {
            case .anchor(let id):
                endWord()
                words.append("$id \(id)")
            case .member(let key): current += isBare(key) ? ".\(key)" : "[\(quoted(key))]"
            case .index(let index): current += "[\(index)]"
            }
        }
        endWord()
        return words.isEmpty ? ["."] : words
    }

    /// Whether `key` reads unquoted after a dot.
    static func isBare(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$" || scalar == "@"
        }
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var out = JSONOutput(pretty: false)
        out.string(text)
        return String(decoding: out.finish(), as: UTF8.self)
    }
}
