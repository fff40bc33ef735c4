/// A double's shortest spelling that reads back as the same double (the text of
/// `description`, for any double but a NaN, which the writers spell themselves), held in
/// place: `Double.write(to:)` hands the spelling to its stream's `_writeASCII` as bytes, where
/// `description` makes a `String` of them (a heap allocation and its release for any spelling
/// past 15 bytes, which is every full-precision real: more than the conversion itself costs).
///
/// Invariant: a spelling is at most 24 bytes (`-2.2250738585072014e-308`), so it fits `room`.
struct RealSpelling: TextOutputStream {
    private var room: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private(set) var count = 0

    init(_ value: Double) {
        value.write(to: &self)
    }

    /// The spelling's bytes, lent to `body`.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUnsafeBytes(of: room) { body(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)) }
    }

    /// Whether the spelling holds a point or an exponent: a finite double's always does (a whole
    /// number's fixed-point spelling ends in `.0`); an infinity's does not.
    var hasMarker: Bool {
        withBytes { $0.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") } }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        precondition(count + buffer.count <= MemoryLayout.size(ofValue: room), "a double's spelling fits the 32 bytes of room")
        let at = count
        withUnsafeMutableBytes(of: &room) { room in
            UnsafeMutableRawBufferPointer(rebasing: room[at...]).copyMemory(from: UnsafeRawBufferPointer(buffer))
        }
        count += buffer.count
    }

    /// What the standard library calls when it spells a double otherwise than through
    /// `_writeASCII` (none does today; this keeps the type correct if one does).
    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _writeASCII($0) }
    }
}
