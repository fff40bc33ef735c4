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

    /// A real: a JSON number (with `.` or an exponent) when finite, else `{"$real": "NaN"}`,
    /// `{"$real": "-Infinity"}` (`NonFiniteReal`).
    mutating func mappedReal(_ value: Double) {
        if !Self.wrapsReal(value) {
            real(value)
            return
        }
        openObject()
        key("$real")
        string(NonFiniteReal.text(value))
        closeObject()
    }

    /// An integer: a JSON number, or with `exact` one beyond ±(2^53 − 1) as
    /// `{"$integer": "…"}`, which JSON readers that keep numbers as doubles cannot round.
    @inline(__always)
    mutating func mappedInteger(_ value: PlistInteger, exact: Bool) {
        if Self.wrapsInteger(value, exact: exact) {
            exactInteger(value)
            return
        }
        if value.isUnsigned { uint(value.bits) } else { int(Int64(bitPattern: value.bits)) }
    }

    /// Whether `mappedReal` writes `value` in a wrapper object (one bracket more, which the
    /// nesting measured before writing counts).
    @inline(__always)
    static func wrapsReal(_ value: Double) -> Bool { !value.isFinite }

    /// Whether `mappedInteger` writes `value` in a wrapper object.
    @inline(__always)
    static func wrapsInteger(_ value: PlistInteger, exact: Bool) -> Bool { exact && Placement.isInexact(value) }

    /// Out of line: it is rare, and the recursive writers inline `mappedInteger` (see `StackBudget`).
    @inline(never)
    private mutating func exactInteger(_ value: PlistInteger) {
        openObject()
        key("$integer")
        string(value.isUnsigned ? String(value.bits) : String(Int64(bitPattern: value.bits)))
        closeObject()
    }

    /// A date (seconds since 2001): ISO 8601 text when it reads back exactly, else the real.
    mutating func mappedTime(_ time: Double) {
        if let text = DateText.readable(time) {
            rawString(text)
        } else {
            mappedReal(time)
        }
    }
}
