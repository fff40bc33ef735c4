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
    /// Whether `bytes` are written as text. Stops at the first byte that is not text, so binary
    /// data costs a byte or two; and text that begins as a document (an XML property list
    /// nested as data) is told once its first 64 bytes are read as text, not after all of it.
    static func isText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
