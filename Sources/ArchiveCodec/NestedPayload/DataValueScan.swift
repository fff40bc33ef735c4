/// Finds the data values in JSON text the codec's writers produced: every member `"$data"` or
/// `"$bytes"` whose value is a string (base64), with the nesting level it stands at and what
/// holds the object it is in.
///
/// Sound for the readable views only: there a key that begins with `$` is always the mapping's
/// (a data key `$data` is written `$$data`), so such a member is always a data value. The raw
/// view writes keys as they are, and is not scanned.
enum DataValueScan {
    /// One data value: `quote..<end` is its string, quotes included; `level` counts the arrays
    /// and objects open around it (the object holding the member included); `holder` is the
    /// first byte of the key whose value that object is (a typedstream's type string, such as
    /// `[582c]`), or 0 when it is an array's element or the document.
    struct Found: Equatable {
        let quote: Int
        let end: Int
        let level: Int
        let holder: UInt8
    }

    /// The data values of `text`, in text order. `text` is valid JSON.
    static func find(in text: UnsafeBufferPointer<UInt8>) -> [Found] {
        var found: [Found] = []
        // Per open container, the first byte of the key it is the value of (0: an element).
        var holders: [UInt8] = []
        var key: UInt8 = 0
        var position = 0
        let count = text.count
        while position < count {
            switch text[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                holders.append(key)
                key = 0
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                holders.removeLast()
                position += 1
            case UInt8(ascii: ","):
                key = 0
                position += 1
            case UInt8(ascii: "\""):
                let string = JSONText.stringSpan(text, quote: position)
                position = string.end + 1
                var colon = position
                while colon < count, JSONText.isWhitespace(text[colon]) { colon += 1 }
                guard colon < count, text[colon] == UInt8(ascii: ":") else { continue }
                // A key: remembered for the container that may open as its value.
                key = string.start < string.end ? text[string.start] : 0
                guard !string.escaped, isDataKey(UnsafeBufferPointer(rebasing: text[string.start..<string.end])) else { continue }
                var value = colon + 1
                while value < count, JSONText.isWhitespace(text[value]) { value += 1 }
                guard value < count, text[value] == UInt8(ascii: "\"") else { continue }
                let span = JSONText.stringSpan(text, quote: value)
                found.append(Found(quote: value, end: span.end + 1, level: holders.count, holder: holders.last ?? 0))
                position = span.end + 1
            default:
                position += 1
            }
        }
        return found
    }

    private static func isDataKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        JSONText.text(key, equals: MappingKeys.data) || JSONText.text(key, equals: MappingKeys.bytes)
    }
}
