/// JSON as the summary tests read it, on their own (not through the codec's parser): numbers
/// keep their text, so an integer and a real stay apart, and objects keep their members'
/// order. Recursive: for the small documents of the fixtures only.
indirect enum TestJSON: Equatable {
    case object([Member])
    case array([TestJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    struct Member: Equatable {
        let key: String
        let value: TestJSON
    }

    /// The member `key` of an object (nil: not an object, or no such member).
    subscript(key: String) -> TestJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var elements: [TestJSON]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    var text: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    var integer: Int? {
        guard case .number(let text) = self else { return nil }
        return Int(text)
    }

    static func parse(_ bytes: [UInt8]) -> TestJSON {
        var reader = Reader(bytes: bytes)
        return reader.value()
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value() -> TestJSON {
            skipSpace()
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var members: [Member] = []
                skipSpace()
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let key = string()
                    skipSpace()
                    position += 1  // :
                    members.append(Member(key: key, value: value()))
                    skipSpace()
                    position += 1  // , or }
                    if bytes[position - 1] == UInt8(ascii: "}") { return .object(members) }
                }
            case UInt8(ascii: "["):
                position += 1
                var items: [TestJSON] = []
                skipSpace()
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(items)
                }
                while true {
                    items.append(value())
                    skipSpace()
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "]") { return .array(items) }
                }
            case UInt8(ascii: "\""): return .string(string())
            case UInt8(ascii: "t"):
                position += 4
                return .bool(true)
            case UInt8(ascii: "f"):
                position += 5
                return .bool(false)
            case UInt8(ascii: "n"):
                position += 4
                return .null
            default:
                let start = position
                while position < bytes.count, "+-.0123456789eE".utf8.contains(bytes[position]) { position += 1 }
                return .number(String(decoding: bytes[start..<position], as: UTF8.self))
            }
        }

        mutating func string() -> String {
            position += 1
            var units: [UInt16] = []
            var utf8: [UInt8] = []
            func flush() {
                units += String(decoding: utf8, as: UTF8.self).utf16
                utf8.removeAll()
            }
            while bytes[position] != UInt8(ascii: "\"") {
                guard bytes[position] == UInt8(ascii: "\\") else {
                    utf8.append(bytes[position])
                    position += 1
                    continue
                }
                flush()
                let escape = bytes[position + 1]
                position += 2
                switch escape {
                case UInt8(ascii: "n"): units.append(0x0A)
                case UInt8(ascii: "t"): units.append(0x09)
                case UInt8(ascii: "r"): units.append(0x0D)
                case UInt8(ascii: "b"): units.append(0x08)
                case UInt8(ascii: "f"): units.append(0x0C)
                case UInt8(ascii: "u"):
                    units.append(UInt16(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)!)
                    position += 4
                default: units.append(UInt16(escape))
                }
            }
            flush()
            position += 1
            return String(decoding: units, as: UTF16.self)
        }
    }
}
