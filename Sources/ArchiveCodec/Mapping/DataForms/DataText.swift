/// When a data value's bytes read as text, written `{"$text": "…"}` (inline bytes
/// `{"$bytesText": "…"}`) in place of base64 (docs/mapping.md, "Data values"); the encoders write
/// the text's UTF-8 back, the same bytes.
///
/// The rule keeps binary data binary: the bytes are not empty, are valid UTF-8 (no overlong
/// forms, surrogates or values past U+10FFFF), hold no control character but tab, line feed and
/// carriage return (no NUL, DEL or C1 control), and do not begin as a document the nested view
/// decodes (`NestedPayload.mightBeDocument`: a binary or XML property list, a typedstream), so
/// `--nested` still finds every payload among the `$data` values.
enum DataText {
    /// Whether `bytes` are written as text: text with a byte order mark (`markedText`), or
    /// plain UTF-8 text (`isPlainText`).
    static func isText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if TextMark.leads(bytes), markedText(bytes) != nil { return true }
        return isPlainText(bytes)
    }

    /// The text of bytes that begin with UTF-8's byte order mark (`TextMark`) and whose text
    /// after it is text by the plain rule (`isPlainText`: not empty, no control character, not
    /// a document), written `{"$text": "…", "$bom": "utf8"}`: the text after the mark. The
    /// encoders write the mark and the text back, the same bytes. Nil for anything else.
    ///
    /// UTF-16's marks are two bytes, and nearly any even run of bytes is valid UTF-16: binary
    /// data that begins FE FF or FF FE (a little-endian −2) would read as text of unrelated
    /// characters. Such values keep base64, and name no kind (`DataKind`).
    static func markedText(_ bytes: UnsafeBufferPointer<UInt8>) -> (mark: TextMark, text: UnsafeBufferPointer<UInt8>)? {
        guard let mark = TextMark.of(bytes) else { return nil }
        let rest = UnsafeBufferPointer(rebasing: bytes[mark.bytes.count...])
        return isPlainText(rest) ? (mark, rest) : nil
    }

    /// Whether `bytes` are plain UTF-8 text. Stops at the first byte that is not text, so binary
    /// data costs a byte or two; and text that begins as a document (an XML property list
    /// nested as data) is told once its first 64 bytes are read as text, not after all of it.
    static func isPlainText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var index = 0
        let count = bytes.count
        // The document test looks at the first 64 bytes: made once they are read as text when
        // more follow (a document is written as data, whatever follows), else at the end.
        var documentTestAt = count > 64 ? 64 : count
        while index < count {
            if index >= documentTestAt {
                if NestedPayload.mightBeDocument(bytes.prefix(64)) { return false }
                documentTestAt = Int.max
            }
            let byte = bytes[index]
            if byte < 0x80 {
                guard byte >= 0x20 ? byte != 0x7F : byte == 0x09 || byte == 0x0A || byte == 0x0D else { return false }
                index += 1
                continue
            }
            // C1 controls (U+0080…U+009F) are C2 80…C2 9F.
            guard let length = UTF8Encoding.validSequenceLength(bytes, at: index), !(byte == 0xC2 && bytes[index + 1] < 0xA0) else { return false }
            index += length
        }
        return documentTestAt == Int.max || !NestedPayload.mightBeDocument(bytes.prefix(64))
    }
}

/// A byte order mark that text in data may begin with (`DataText.markedText`), named in the
/// JSON by `$bom` beside `$text`: UTF-8's, the one whose text reads unambiguously.
enum TextMark: CaseIterable, Equatable {
    case utf8

    /// The name `$bom` gives it.
    var name: StaticString {
        switch self {
        case .utf8: "utf8"
        }
    }

    /// The mark's bytes.
    var bytes: [UInt8] {
        switch self {
        case .utf8: [0xEF, 0xBB, 0xBF]
        }
    }

    /// Whether `bytes` may begin with a mark (their first byte: asked of every data value).
    @inline(__always)
    static func leads(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.first == 0xEF }

    /// The mark `bytes` begin with, if any.
    static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> TextMark? {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? .utf8 : nil
    }

    /// The mark `name` names (`$bom`'s text), if any.
    static func named(_ name: UnsafeBufferPointer<UInt8>) -> TextMark? {
        allCases.first { JSONText.text(name, equals: $0.name) }
    }
}
