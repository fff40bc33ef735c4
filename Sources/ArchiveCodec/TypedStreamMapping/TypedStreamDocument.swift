/// An NSArchiver typedstream read for conversion: its JSON is `{"$typedstream": [group, …]}`
/// (`TypedStreamJSONWriter`), written back byte for byte by `TypedStreamJSONEncoder`.
public struct TypedStreamDocument: Sendable {
    let stream: TypedStream
    let inputSize: Int

    /// Whether `bytes` begin as a typedstream does (streamer version 4, the signature in either
    /// byte order); the reader then decides whether the rest is one.
    static func starts(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 13, bytes[0] == TypedStreamHeader.streamerVersion, bytes[1] == 11 else { return false }
        let signature = bytes[2..<13]
        return signature.elementsEqual(TypedStreamHeader.littleEndianSignature) || signature.elementsEqual(TypedStreamHeader.bigEndianSignature)
    }

    /// Refuses a stream whose class names or type strings are not UTF-8: the JSON holds them as
    /// text (keys and names), which must be valid UTF-8. No Apple writer made such names.
    init(parsing bytes: [UInt8]) throws(CodecError) {
        stream = try TypedStreamReader.read(bytes)
        inputSize = bytes.count
        var checked = Set<UInt32>()
        let names = stream.classes.map(\.name)
        let typeStrings = stream.groups.map { stream.types[$0.type].string }
        for string in names + typeStrings where checked.insert(string).inserted {
            let text = stream.sharedString(Int(string))
            guard text.withUnsafeBufferPointer({ UTF8Encoding.firstInvalidOffset($0) == nil }) else {
                throw CodecError(.malformedTypedStream, "a class name or type string that is not UTF-8 (\(text.count) bytes): JSON cannot hold it as text")
            }
        }
    }

    /// The JSON nesting of the document (the writer does not recurse; front ends still bound
    /// it, as they bound every document's).
    func depth(numbers: NumberWrapping) -> Int { TypedStreamJSONWriter(stream: stream, numbers: numbers).depth }

    func render(pretty: Bool, numbers: NumberWrapping, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let limit = KeyedArchive.maximumOutputSize(forInputSize: inputSize)
        var out = JSONOutput(pretty: pretty, reserve: min(inputSize * 4, limit), sink: sink)
        out.limit = limit
        TypedStreamJSONWriter(stream: stream, numbers: numbers).write(into: &out)
        try out.refuseIfUnfinished(
            CodecError(.limitExceeded, "the JSON would be larger than \(limit) bytes for a \(inputSize)-byte typedstream: it repeats shared values", limit: limit))
        return out.finish()
    }
}
