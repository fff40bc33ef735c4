/// The mapping's conventions on the JSON writer: data keys with a leading `$` doubled,
/// references to objects written elsewhere (`MappingKeys`), and reals JSON has no number for.
extension JSONOutput {
    /// Writes a data key from UTF-8 text: one that starts with `$` gets another in front.
    @inline(__always)
    mutating func dataKey(utf8 text: UnsafeBufferPointer<UInt8>) {
        key(utf8: text, prefix: text.first == MappingKeys.marker ? MappingKeys.marker : nil)
    }

    /// Writes a data key from big-endian UTF-16 units, as `dataKey(utf8:)` does.
    @inline(__always)
    mutating func dataKey(utf16BigEndian units: UnsafeBufferPointer<UInt8>) {
        let startsWithMarker = units.count >= 2 && units[0] == 0 && units[1] == MappingKeys.marker
        key(utf16BigEndian: units, prefix: startsWithMarker ? MappingKeys.marker : nil)
    }

    /// Writes `{"$ref": uid}`.
    @inline(__always)
    mutating func reference(_ uid: Int) {
        singleMemberObject(MappingKeys.reference, UInt64(uid))
    }

    /// A real: a JSON number (with `.` or an exponent) when finite, else `{"$real": "NaN"}`,
    /// `{"$real": "-Infinity"}` (`NonFiniteReal`).
    mutating func mappedReal(_ value: Double) {
        if value.isFinite {
            real(value)
            return
        }
        openObject()
        key("$real")
        string(NonFiniteReal.text(value))
        closeObject()
    }
}
