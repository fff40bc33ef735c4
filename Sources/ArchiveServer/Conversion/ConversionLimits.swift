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
}
