extension JSONOutput {
    /// A salvaged property list's mark where an object could not be read (docs/mapping.md,
    /// "Salvage"): `{"$broken": {"offset": n, "reason": "…", "rest": {"$data": base64}}}`,
    /// `rest` being the input's bytes kept beside it. The same members, in the same order, as a
    /// typedstream's break (`TypedStreamJSONWriter.writeBreak`), which writes through its sinks.
    mutating func brokenMark(offset: Int, reason: String, rest: ArraySlice<UInt8>) {
        openObject()
        key(MappingKeys.broken)
        openObject()
        key(MappingKeys.brokenOffset)
        int(Int64(offset))
        key(MappingKeys.brokenReason)
        string(reason)
        key(MappingKeys.brokenRest)
        openObject()
        key(MappingKeys.data)
        rest.withUnsafeBufferPointer { base64String($0) }
        closeObject()
        closeObject()
        closeObject()
    }
}
