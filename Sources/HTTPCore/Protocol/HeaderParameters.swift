import ASCIIText

/// A header value with parameters, as Content-Type and Content-Disposition carry them
/// (RFC 9110 §5.6.6): `form-data; name="file"; filename=a.plist`. The value before the first
/// `;` and each `name=value` after it, a value a token or a quoted string (`\` quotes the next
/// character). Names compare in ASCII without case; a name given twice keeps its first value.
///
/// Linear in the text: one pass, no backtracking.
package struct HeaderParameters: Equatable, Sendable {
    /// What comes before the first `;`, without surrounding spaces and tabs, ASCII lower-cased.
    package let value: String
    /// The parameters in order, names ASCII lower-cased.
    package let parameters: [(name: String, value: String)]

    /// Why a header value cannot be read.
    package struct Malformed: Error, Equatable, Sendable {
        package let reason: String
    }

    /// Parses `text`; throws for a parameter without `=` or a name, or a quoted string that is
    /// not closed.
    package init(parsing text: String) throws(Malformed) {
        let bytes = Array(text.utf8)
        var index = 0
        func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        let valueEnd = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        value = String(decoding: bytes[..<valueEnd], as: UTF8.self).trimmingSpaces().asciiLowercased()
        index = valueEnd
        var parameters: [(name: String, value: String)] = []
        while index < bytes.count {
            // bytes[index] is ";".
            index += 1
            skipSpaces()
            if index == bytes.count { break }
            if bytes[index] == UInt8(ascii: ";") { continue }
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ";") { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).trimmingSpaces().asciiLowercased()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw Malformed(reason: "parameter \(name) has no value (name=value)")
            }
            guard !name.isEmpty else { throw Malformed(reason: "a parameter has no name before its =") }
            index += 1
            skipSpaces()
            var parameterValue: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        index += 1
                        break
                    }
                    if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                        parameterValue.append(bytes[index + 1])
                        index += 2
                        continue
                    }
                    parameterValue.append(byte)
                    index += 1
                }
                guard closed else { throw Malformed(reason: "the quoted value of \(name) is not closed") }
                skipSpaces()
                guard index == bytes.count || bytes[index] == UInt8(ascii: ";") else {
                    throw Malformed(reason: "text follows the quoted value of \(name) before the next ;")
                }
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
                parameterValue = Array(bytes[start..<index])
                while let last = parameterValue.last, last == 0x20 || last == 0x09 { parameterValue.removeLast() }
            }
            parameters.append((name, String(decoding: parameterValue, as: UTF8.self)))
        }
        self.parameters = parameters
    }

    /// The first value of the parameter `name` (ASCII lower case), nil when it is not given.
    package subscript(name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    package static func == (lhs: HeaderParameters, rhs: HeaderParameters) -> Bool {
        lhs.value == rhs.value && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs (HTTP's OWS), nothing else.
    fileprivate func trimmingSpaces() -> String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(self[first...last])
    }
}
