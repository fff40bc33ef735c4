extension JSONOutput {
    /// A salvaged document's mark where a value could not be read (docs/mapping.md,
    /// "Salvage"): `{"$broken": {"offset": n, "reason": "…", "rest": {"$data": base64}}}`,
    /// `rest` being the input's bytes kept beside it; three levels deep. The one home of the
    /// mark's shape: a property list's marks and a typedstream's break
    /// (`TypedStreamJSONSink.brokenMark`) are written here.
    mutating func brokenMark(offset: Int, reason: String, rest: ArraySlice<UInt8>) {
        openObject()
        key(MappingKeys.broken)
        brokenMarkContent(offset: offset, reason: reason, rest: rest)
        closeObject()
    }

    /// What a mark's `$broken` member holds: `{"offset": …, "reason": …, "rest": {"$data": …}}`.
    mutating func brokenMarkContent(offset: Int, reason: String, rest: ArraySlice<UInt8>) {
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
    }
}
