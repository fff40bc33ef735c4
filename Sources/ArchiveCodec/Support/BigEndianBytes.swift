extension UnsafeBufferPointer<UInt8> {
    /// The big-endian 32-bit integer at `offset`: the formats read by signature and header
    /// (`DataKind`, `ColorProfileSummary`, `TZifSummary`) keep their numbers so. The caller has
    /// checked that four bytes stand there.
    @inline(__always)
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}
