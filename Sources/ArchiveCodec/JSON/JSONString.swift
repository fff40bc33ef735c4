/// A JSON string literal for text written outside a document (the service's problem details and
/// log lines), escaped exactly as the writers escape a document's strings (`JSONOutput`): `"`,
/// `\` and the control characters, with the short forms (`\n`, `\t`, `\b`, …) where JSON has
/// them and `\u00XX` otherwise. The one JSON string escaper of the project.
package enum JSONString {
    /// `text` between quotes, escaped.
    package static func quoted(_ text: String) -> String {
        var out = JSONOutput(pretty: false, reserve: text.utf8.count + 2)
        out.string(text)
        return out.finish { String(decoding: $0, as: UTF8.self) }
    }
}
