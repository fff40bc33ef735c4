/// Query string parameters, percent-decoded. A repeated name keeps its last value.
package struct QueryParameters: Sendable {
    package private(set) var values: [String: String] = [:]

    package init(_ query: String?) {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.percentDecode(parts[0])
            let value = parts.count > 1 ? Self.percentDecode(parts[1]) : ""
            values[name] = value
        }
    }

    package subscript(name: String) -> String? { values[name] }

    /// The names given, in no particular order.
    package var names: Dictionary<String, String>.Keys { values.keys }

    /// Decodes `%XX` escapes and `+` as space; malformed escapes are kept literally.
    package static func percentDecode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = iterator[iterator.startIndex].hexDigitValue,
                let low = iterator[iterator.startIndex + 1].hexDigitValue
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
