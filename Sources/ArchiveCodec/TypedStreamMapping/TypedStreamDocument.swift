/// An NSArchiver typedstream read for conversion: its JSON is `{"$typedstream": [group, …]}`
/// (`TypedStreamJSONWriter`), written back byte for byte by `TypedStreamJSONEncoder`.
public struct TypedStreamDocument: Sendable {
    let stream: TypedStream
    /// What its writer asks per object, class and shared string, found once at parse.
    let tables: TypedStreamJSONWriter.Tables
    let inputSize: Int

    /// Whether `bytes` begin as a typedstream does (streamer version 4, the signature in either
    /// byte order); the reader then decides whether the rest is one.
    static func starts(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { starts($0) }
    }

    static func starts(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 13, bytes[0] == TypedStreamHeader.streamerVersion, bytes[1] == 11 else { return false }
        let signature = bytes[2..<13]
        return signature.elementsEqual(TypedStreamHeader.littleEndianSignature) || signature.elementsEqual(TypedStreamHeader.bigEndianSignature)
    }

    /// Refuses a stream whose class names or type strings are not UTF-8: the JSON holds them as
    /// text (keys and names), which must be valid UTF-8. No Apple writer made such names.
    ///
    /// `salvaging`: a damaged stream is read up to where it goes wrong, the break marked in
    /// place (`TypedStream.Break`), rather than refused.
    init(parsing bytes: [UInt8], salvaging: Bool = false) throws(CodecError) {
        stream = try TypedStreamReader.read(bytes, salvaging: salvaging)
        tables = TypedStreamJSONWriter.Tables(stream)
        inputSize = bytes.count
        for name in stream.classes.lazy.map(\.name) where !tables.sharedStringIsText[Int(name)] { throw Self.notText(stream.sharedString(Int(name))) }
        // Each type string once, not once per group (a stream's groups share a few): every
        // group's is one the type table parsed. Where one is not text, the groups are looked
        // through for the first that has it (a salvage may stop on a group whose type string
        // was parsed and is then no group's).
        let typeStringsAreText = stream.sharedStrings.indices.allSatisfy { string in
            stream.types.root(ofString: UInt32(string)) == nil || tables.sharedStringIsText[string]
        }
        if !typeStringsAreText {
            let (stream, tables) = (stream, tables)
            if let group = stream.firstGroup(where: { !tables.sharedStringIsText[Int(stream.string(ofGroup: $0))] }) {
                throw Self.notText(stream.encoding(ofGroup: group))
            }
        }
    }

    /// How many places a salvaged read marked `$broken`: a typedstream stops at its one break.
    var breaks: Int { stream.broken == nil ? 0 : 1 }

    private static func notText(_ text: ArraySlice<UInt8>) -> CodecError {
        CodecError(.malformedTypedStream, "a class name or type string that is not UTF-8 (\(text.count) bytes): JSON cannot hold it as text")
    }

    /// At least the JSON nesting of the document, from the most objects, groups and
    /// composites the stream holds open at once (`TypedStream.deepestOpen`), with no walk.
    /// The JSON follows the stream's order and nests only where the stream does: an object
    /// opens `{` and `"$groups": [` (a readable form opens as many or fewer), a group `{`
    /// and, for several values, `[`, a composite `[` — at most two levels a frame — and a
    /// value in its place opens at most three more (a class chain `[[…]]` under its object's
    /// `{`, a number's or data's wrapper, a salvaged stream's break mark where a value or a
    /// group would stand); the root and `"$typedstream": [` are two. Three a
    /// frame and four besides leave room; tests and the fuzzer's oracle hold every stream's
    /// bound above its measured depth.
    var depthBound: Int { 3 * stream.deepestOpen + 4 }

    /// The JSON nesting of the document (the writer does not recurse; front ends still bound
    /// it, as they bound every document's).
    func depth(numbers: NumberWrapping) -> Int { TypedStreamJSONWriter(stream: stream, tables: tables, numbers: numbers).depth }

    func render(pretty: Bool, numbers: NumberWrapping, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let limit = KeyedArchive.maximumOutputSize(forInputSize: inputSize)
        var out = JSONOutput(pretty: pretty, reserve: min(inputSize * 4, limit), sink: sink)
        out.limit = limit
        TypedStreamJSONWriter(stream: stream, tables: tables, numbers: numbers).write(into: &out)
        try out.refuseIfUnfinished(
            CodecError(.limitExceeded, "the JSON would be larger than \(limit) bytes for a \(inputSize)-byte typedstream: it repeats shared values", limit: limit))
        return out.finish()
    }
}
