extension TypedStreamJSONWriter {
    /// What the writer asks of a stream per object, class and shared string, found once per
    /// stream: a document keeps them (`TypedStreamDocument`), so measuring its nesting and
    /// writing it, or planning and writing each of many nested payloads, do not find them again.
    ///
    /// Each table is one entry per object, class or shared string of the stream: linear in
    /// what the stream holds, never in what it declares.
    struct Tables: Sendable {
        /// Per object, whether a later value refers back to it (it then carries `$id`).
        let shared: [Bool]
        /// Per class, the readable class whose chain it is exactly (`ReadableClass.of`).
        let readableClasses: [ReadableClass?]
        /// Per shared string, whether it is UTF-8 (then written as text): checked once here, not
        /// at each of the values that refer to it (a C string of a megabyte referred to from
        /// 300,000 two-byte values would be checked 300,000 times).
        let sharedStringIsText: [Bool]

        init(_ stream: TypedStream) {
            shared = stream.objectsReferredBack()
            readableClasses = stream.classes.indices.map { ReadableClass.of($0, in: stream) }
            sharedStringIsText = stream.sharedStrings.map { span in
                stream.storage.withUnsafeBufferPointer { UTF8Encoding.firstInvalidOffset(UnsafeBufferPointer(rebasing: $0[span.range])) == nil }
            }
        }
    }
}
