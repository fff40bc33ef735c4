/// The first bytes of every typedstream: the streamer version (one byte, 4), the signature as a
/// counted string, and the system version as a compact integer. The signature gives the byte
/// order of every multi-byte integer and real after it: NeXT's writer spelled "typedstream" on a
/// big-endian machine and "streamtyped" on a little-endian one.
enum TypedStreamHeader {
    /// The streamer version of every Mac OS X and later NeXTSTEP stream. Version 3 (early
    /// NeXTSTEP) differs in objects (an extra integer after the class) and top-level objects
    /// (no "@" type before them); it is refused, as no stream of it is in hand.
    static let streamerVersion: UInt8 = 4
    static let bigEndianSignature = Array("typedstream".utf8)
    static let littleEndianSignature = Array("streamtyped".utf8)
    /// NeXT's NXSYSTEMVERSION values: 1000 from Mac OS X on, the rest from NeXTSTEP 0.8 to
    /// 3.x. Other values are refused, as no Apple writer wrote them.
    static let knownSystemVersions: Set<Int64> = [82, 83, 90, 900, 901, 905, 930, 1000]
    static let currentSystemVersion: Int64 = 1000
}

extension TypedStream {
    /// The order of the stream's multi-byte integers and reals.
    enum ByteOrder: Sendable, Equatable {
        /// "streamtyped": every Intel and Apple silicon Mac.
        case little
        /// "typedstream": PowerPC-era files (old nibs).
        case big

        var signature: [UInt8] {
            self == .big ? TypedStreamHeader.bigEndianSignature : TypedStreamHeader.littleEndianSignature
        }
    }
}
