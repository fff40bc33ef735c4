import ArchiveCodec

/// The limits a conversion works within.
struct ConversionLimits: Sendable {
    /// What a decode may produce on a worker's stack (the configured stack size). Only decoding
    /// recurses: the encoder takes a document of any depth the parser accepts.
    var decode: DecodePolicy
    /// `--max-body-size`: the largest body, counted after inflating a coded one.
    var bodyBytes: Int
    /// `--conversion-timeout`: seconds a conversion may run (`ConversionDeadline`).
    var seconds: Double
    /// `--max-parts`: the most parts a multipart/form-data decode may send.
    var parts: Int
    /// `--max-part-size`: the largest part of a multipart/form-data decode.
    var partBytes: Int
}
