/// Finds the data values in JSON text the codec's writers produced: every member `"$data"` or
/// `"$bytes"` whose value is a string (base64), with the nesting level it stands at.
///
/// Sound for the readable views only: there a key that begins with `$` is always the mapping's
/// (a data key `$data` is written `$$data`), so such a member is always a data value. The raw
/// view writes keys as they are, and is not scanned.
enum DataValueScan {
    /// One data value: `quote..<end` is its string, quotes included; `level` counts the arrays
    /// and objects open around it (the object holding the member included).
    struct Found: Equatable {
        let quote: Int
        let end: Int
        let level: Int
    }

    /// The data values of `text`, in text order. `text` is valid JSON.
    static func find(in text: UnsafeBufferPointer<UInt8>) -> [Found] {
        var found: [Found] = []
        var level = 0
        var position = 0
        let count = text.count
        while position < count {
            switch text[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                level += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                position += 1
            case UInt8(ascii: "\""):
                let key = JSONText.stringSpan(text, quote: position)
                position = key.end + 1
                guard !key.escaped, isDataKey(UnsafeBufferPointer(rebasing: text[key.start..<key.end])) else { continue }
                var colon = position
                while colon < count, JSONText.isWhitespace(text[colon]) { colon += 1 }
                guard colon < count, text[colon] == UInt8(ascii: ":") else { continue }
                var value = colon + 1
                while value < count, JSONText.isWhitespace(text[value]) { value += 1 }
                guard value < count, text[value] == UInt8(ascii: "\"") else { continue }
                let span = JSONText.stringSpan(text, quote: value)
                found.append(Found(quote: value, end: span.end + 1, level: level))
                position = span.end + 1
            default:
                position += 1
            }
        }
        return found
    }

    private static func isDataKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        JSONText.text(key, equals: "$data") || JSONText.text(key, equals: "$bytes")
    }
}
