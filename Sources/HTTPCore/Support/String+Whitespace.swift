extension String {
    /// The string without leading and trailing whitespace (Unicode's White_Space property):
    /// for values read from the environment and from kernel files, without Foundation.
    package func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}

extension Substring {
    /// The text without leading and trailing whitespace, as a `String`.
    package func trimmingCharacters() -> String { String(self).trimmingWhitespace() }
}
