extension JSONDocument {
    public func archive(format: PlistFormat) throws(CodecError) -> [UInt8] {
        throw CodecError(.invalidDocument, "encoder under construction")
    }
}
