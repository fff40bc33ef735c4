extension TypedStream {
    /// One value: 12 bytes, its meaning given by its type's code.
    ///
    /// `payload` by code:
    /// - `c s i l q`: the value's bits (`Int64(bitPattern:)`); `C B`: the byte;
    ///   `S I L Q`: the signed value the stream stores (Apple writes an unsigned value as the
    ///   signed one of its width: `0xFD` in a `Q` is 2^64 − 3), sign-extended to 64 bits;
    /// - `f`: the float's bits; `d`: the double's bits;
    /// - `+`: the packed `Span` of its bytes; `[Nc]` `[NC]` (a byte array): likewise;
    /// - `*`: an index in `cStrings`; `%` `:`: an index in `sharedStrings`;
    ///   `#`: in `classes`; `@`: in `objects` (each unless `isNil`);
    /// - `{…}`, `[N type]` of other types, `^`: the index of the first child value (the
    ///   children are the `count` values from there; a pointer has one, its pointee);
    /// - `!`: nothing.
    ///
    /// Stored as three 32-bit words (a 64-bit field would pad the record to 16 bytes, and
    /// values are most of a model): the type node in the low 27 bits of the first with
    /// `isFirstOccurrence`, `isNil` and `form` above it (`TypeTable.maximumNodes` keeps node
    /// indices within 27 bits), the payload's halves in the others.
    struct Value: Equatable, Sendable {
        private var tagged: UInt32
        private var low: UInt32
        private var high: UInt32

        private static let typeMask: UInt32 = (1 << 27) - 1
        private static let firstOccurrenceBit: UInt32 = 1 << 27
        private static let nilBit: UInt32 = 1 << 28
        private static let formShift: UInt32 = 29

        init(type: UInt32, form: NumberForm = .canonical, isNil: Bool = false, payload: UInt64 = 0) {
            tagged = type | (isNil ? Self.nilBit : 0) | UInt32(form.rawValue) << Self.formShift
            low = UInt32(truncatingIfNeeded: payload)
            high = UInt32(truncatingIfNeeded: payload >> 32)
        }

        /// An `@` value where object `object` first occurs in stream order, which spells the
        /// object in full (its class and groups follow it in the stream).
        init(type: UInt32, firstOccurrenceOf object: UInt32) {
            self.init(type: type, payload: UInt64(object))
            tagged |= Self.firstOccurrenceBit
        }

        /// A node of `TypedStream.types`.
        var type: UInt32 { tagged & Self.typeMask }
        /// How the stream spells an integer or real when not as Apple's writer would
        /// (`.canonical` otherwise, and for every other code).
        var form: NumberForm { NumberForm(rawValue: UInt8(tagged >> Self.formShift)) ?? .canonical }
        /// nil (`0x85`) for a `+ * % : # @` value.
        var isNil: Bool { tagged & Self.nilBit != 0 }
        /// An `@` value that is its object's first occurrence (`init(type:firstOccurrenceOf:)`);
        /// false for every other value, so an `@` value not nil and not this is a back-reference.
        var isFirstOccurrence: Bool { tagged & Self.firstOccurrenceBit != 0 }
        var payload: UInt64 { UInt64(high) << 32 | UInt64(low) }
    }

    /// A value as a caller walking the stream wants it.
    enum Content: Equatable, Sendable {
        /// `c s i l q`.
        case signed(Int64)
        /// `C S I L Q B`, the stored bits read at the type's width.
        case unsigned(UInt64)
        /// `f`, as its bits (NaN payloads and -0.0 survive).
        case float(bits: UInt32)
        /// `d`, as its bits.
        case double(bits: UInt64)
        /// `+`: counted bytes, nil for a nil string.
        case byteString(Span?)
        /// `[Nc]`, `[NC]`: the array's bytes.
        case byteArray(Span)
        /// `*`: an index in `cStrings`.
        case cString(Int?)
        /// `%`: an index in `sharedStrings`.
        case atom(Int?)
        /// `:`: an index in `sharedStrings`.
        case selector(Int?)
        /// `#`: an index in `classes`.
        case classReference(Int?)
        /// `@`: an index in `objects`.
        case object(Int?)
        /// `!`: a field the writer skipped; no bytes.
        case ignored
        /// An array of other than bytes: its element values.
        case array(Range<Int>)
        /// A struct: its field values.
        case structure(Range<Int>)
        /// A pointer: the value it points at.
        case pointer(Int)
    }

    /// What value `index` holds. Inlined: the writer asks it of every value, twice (measuring,
    /// writing), and each caller takes apart only the cases it meets.
    @inline(__always)
    func content(of index: Int) -> Content {
        let value = values[index]
        let node = types[value.type]
        let payload = value.payload
        let reference: Int? = value.isNil ? nil : Int(truncatingIfNeeded: payload)
        switch node.code {
        case TypeCode.float: return .float(bits: UInt32(truncatingIfNeeded: payload))
        case TypeCode.double: return .double(bits: payload)
        case TypeCode.byteString: return .byteString(value.isNil ? nil : Span(packed: payload))
        case TypeCode.cString: return .cString(reference)
        case TypeCode.atom: return .atom(reference)
        case TypeCode.selector: return .selector(reference)
        case TypeCode.classObject: return .classReference(reference)
        case TypeCode.object: return .object(reference)
        case TypeCode.ignored: return .ignored
        case TypeCode.pointer: return .pointer(Int(payload))
        case TypeCode.structOpen: return .structure(Int(payload)..<(Int(payload) + Int(node.count)))
        case TypeCode.arrayOpen:
            if types.isByteArray(value.type) { return .byteArray(Span(packed: payload)) }
            return .array(Int(payload)..<(Int(payload) + Int(node.count)))
        default:
            if TypeCode.isSignedInteger(node.code) { return .signed(Int64(bitPattern: payload)) }
            let width = TypeCode.bitWidth(node.code)
            return .unsigned(width == 64 ? payload : payload & (1 << UInt64(width) - 1))
        }
    }
}
