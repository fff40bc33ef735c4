/// The mapping's conventions on the JSON writer: data keys with a leading `$` doubled,
/// references to objects written elsewhere (`MappingKeys`), and the values JSON has no number or
/// text for as they are: integers past 2^53 on request, non-finite reals, dates.
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

    /// A real: a JSON number (with `.` or an exponent), or `{"$real": "…"}` where `numbers`
    /// wraps it: `"NaN"`, `"-Infinity"` (`NonFiniteReal`), or the number's own text (`"1.0"`).
    @inline(__always)
    mutating func mappedReal(_ value: Double, _ numbers: NumberWrapping) {
        if numbers.wraps(value) {
            wrappedReal(value)
            return
        }
        real(value)
    }

    /// Out of line: it is rare, and the recursive writers inline `mappedReal` (see `StackBudget`).
    @inline(never)
    private mutating func wrappedReal(_ value: Double) {
        openObject()
        key(MappingKeys.real)
        if value.isFinite {
            var text = JSONOutput(pretty: false)
            text.real(value)
            rawString(text.finish())
        } else {
            string(NonFiniteReal.text(value))
        }
        closeObject()
    }

    /// An integer: a JSON number, or `{"$integer": "…"}` where `numbers` wraps it (beyond
    /// ±(2^53 − 1), which JSON readers that keep numbers as doubles cannot hold).
    @inline(__always)
    mutating func mappedInteger(_ value: PlistInteger, _ numbers: NumberWrapping) {
        if numbers.wraps(value) {
            exactInteger(value)
            return
        }
        if value.isUnsigned { uint(value.bits) } else { int(Int64(bitPattern: value.bits)) }
    }

    /// Out of line: it is rare, and the recursive writers inline `mappedInteger` (see `StackBudget`).
    @inline(never)
    private mutating func exactInteger(_ value: PlistInteger) {
        openObject()
        key(MappingKeys.integer)
        string(value.isUnsigned ? String(value.bits) : String(Int64(bitPattern: value.bits)))
        closeObject()
    }

    /// A time (seconds since 2001): ISO 8601 text when it reads back exactly
    /// (`DateText.readable`), else the seconds as `mappedReal` writes them.
    mutating func mappedTime(_ time: Double, _ numbers: NumberWrapping) {
        if let text = DateText.readable(time) {
            text.withUnsafeBufferPointer { rawString($0) }
        } else {
            mappedReal(time, numbers)
        }
    }
}
