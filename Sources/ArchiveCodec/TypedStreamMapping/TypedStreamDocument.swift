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

    init(parsing bytes: [UInt8]) throws(CodecError) {
        stream = try TypedStreamReader.read(bytes)
        inputSize = bytes.count
    }

    /// The JSON nesting of the document (the writer does not recurse; front ends still bound
    /// it, as they bound every document's).
    var depth: Int { TypedStreamJSONWriter(stream: stream).depth }

    func render(pretty: Bool, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let limit = KeyedArchive.maximumOutputSize(forInputSize: inputSize)
        var out = JSONOutput(pretty: pretty, reserve: min(inputSize * 4, limit), sink: sink)
        out.limit = limit
        TypedStreamJSONWriter(stream: stream).write(into: &out)
        guard !out.isOverLimit else {
            throw CodecError(.limitExceeded, "the JSON would be larger than \(limit) bytes for a \(inputSize)-byte typedstream: it repeats shared values", limit: limit)
        }
        return out.finish()
    }
}
