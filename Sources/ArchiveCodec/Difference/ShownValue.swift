/// A value as a difference shows it: short JSON text in the readable view's spelling. A long
/// string or base64 text is cut to a window around where the two values first differ, `…`
/// standing for what is left out on either side, so the difference itself stays in view.
struct ShownValue: Sendable, Equatable {
    /// The part that may be long: text, or bytes shown as base64.
    enum Long: Sendable, Equatable {
        case text([Unicode.Scalar])
        case bytes([UInt8])
    }

    /// JSON text before the long part (`{"$bytes": `) and after it (`}`); all of it when
    /// there is no long part.
    var prefix: String
    var long: Long?
    var suffix: String = ""

    /// Characters of text shown at most, and how many of them come before the first difference.
    static let textWindow = 40
    static let textLead = 12
    /// Bytes shown at most (as base64), and how many come before the first difference.
    static let byteWindow = 24
    static let byteLead = 6

    /// Fixed JSON text.
    init(json: String) {
        prefix = json
        long = nil
    }

    /// A JSON string inside `prefix` and `suffix`.
    init(text: String, prefix: String = "", suffix: String = "") {
        self.prefix = prefix
        long = .text(Array(text.unicodeScalars))
        self.suffix = suffix
    }

    /// Bytes as a base64 JSON string inside `prefix` and `suffix`.
    init(bytes: some Collection<UInt8>, prefix: String = "", suffix: String = "") {
        self.prefix = prefix
        long = .bytes(Array(bytes))
        self.suffix = suffix
    }

    /// `left ≠ right`, each cut around where they first differ.
    static func pair(_ left: ShownValue, _ right: ShownValue) -> String {
        var start = (0, 0)
        switch (left.long, right.long) {
        case (.text(let a)?, .text(let b)?):
            let lead = max(firstDifference(a, b) - textLead, 0)
            start = (lead, lead)
        case (.bytes(let a)?, .bytes(let b)?):
            let lead = max(firstDifference(a, b) - byteLead, 0) / 3 * 3
            start = (lead, lead)
        default: break
        }
        return left.text(from: start.0) + " ≠ " + right.text(from: start.1)
    }

    /// The first position where `a` and `b` differ (the shorter one's length if one begins the other).
    private static func firstDifference<Element: Equatable>(_ a: [Element], _ b: [Element]) -> Int {
        var index = 0
        while index < a.count, index < b.count, a[index] == b[index] { index += 1 }
        return index
    }

    /// The value alone, from its beginning.
    var text: String { text(from: 0) }

    /// The JSON text, its long part shown from `start` (characters or bytes; earlier when
    /// the rest is shorter than a window) for at most a window.
    func text(from start: Int) -> String {
        guard let long else { return prefix }
        var out = JSONOutput(pretty: false)
        let (before, after): (Bool, Bool)
        switch long {
        case .text(let scalars):
            let from = min(start, max(scalars.count - Self.textWindow, 0))
            let end = min(from + Self.textWindow, scalars.count)
            var window = String.UnicodeScalarView()
            window.append(contentsOf: scalars[from..<end])
            out.string(String(window))
            (before, after) = (from > 0, end < scalars.count)
        case .bytes(let bytes):
            let from = min(start, max(bytes.count - Self.byteWindow + 2, 0) / 3 * 3)
            let end = min(from + Self.byteWindow, bytes.count)
            Array(bytes[from..<end]).withUnsafeBufferPointer { out.base64String($0) }
            (before, after) = (from > 0, end < bytes.count)
        }
        var quoted = String(decoding: out.finish(), as: UTF8.self)
        if after { quoted.insert("…", at: quoted.index(before: quoted.endIndex)) }
        if before { quoted.insert("…", at: quoted.index(after: quoted.startIndex)) }
        return prefix + quoted + suffix
    }
}
