extension TypedStream {
    /// One value: 8 bytes, its meaning given by its type's code.
    ///
    /// `word` by code:
    /// - `c s i l`: the value's bits; `C B`: the byte; `S I L`: the signed value the stream
    ///   stores (Apple writes an unsigned value as the signed one of its width);
    /// - `f`: the float's bits;
    /// - `q Q d +`: where in `storage` the value is spelled as the stream spells it (a
    ///   compact integer, a real, a length and the bytes): a stream read spells them in its
    ///   input, a builder writes the spelling its writer gives them (`NumberSpelling`). So a
    ///   value whose bits take more than 32 (a `q`'s, a `d`'s, a string's offset and length)
    ///   costs no wider record, and the writer copies its spelling as it stands;
    /// - `[Nc]` `[NC]` (a byte array): where its N bytes start in `storage`;
    /// - `*`: an index in `cStrings`; `%` `:`: an index in `sharedStrings`;
    ///   `#`: in `classes`; `@`: in `objects` (each unless `isNil`);
    /// - `{…}`, `[N type]` of other types, `^`: the index of the first child value (the
    ///   children are the `count` values from there; a pointer has one, its pointee);
    /// - `!`, and a value `isNil` (a salvage's absent slots are nil of any type): 0, and such
    ///   a value reads as 0 or no bytes, never from the storage.
    ///
    /// Stored as two 32-bit words (values are most of a model: a third word for the 64-bit
    /// payloads of a few codes was a third of it): the type node in the low 27 bits of the
    /// first with `isFirstOccurrence`, `isNil` and `form` above it (`TypeTable.maximumNodes`
    /// keeps node indices within 27 bits), `word` in the other.
    struct Value: Equatable, Sendable {
        private var tagged: UInt32
        let word: UInt32

        private static let typeMask: UInt32 = (1 << 27) - 1
        private static let firstOccurrenceBit: UInt32 = 1 << 27
        private static let nilBit: UInt32 = 1 << 28
        private static let formShift: UInt32 = 29

        init(type: UInt32, form: NumberForm = .canonical, isNil: Bool = false, word: UInt32 = 0) {
            tagged = type | (isNil ? Self.nilBit : 0) | UInt32(form.rawValue) << Self.formShift
            self.word = word
        }

        /// An `@` value where object `object` first occurs in stream order, which spells the
        /// object in full (its class and groups follow it in the stream).
        init(type: UInt32, firstOccurrenceOf object: UInt32) {
            self.init(type: type, word: object)
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
        /// `word` as the index or signed bits it holds for the codes that keep them in it.
        var index: Int { Int(word) }
        var signedWord: Int64 { Int64(Int32(bitPattern: word)) }
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
        let reference: Int? = value.isNil ? nil : value.index
        switch node.code {
        case TypeCode.float: return .float(bits: value.word)
        case TypeCode.double: return .double(bits: value.isNil ? 0 : spelledReal(value, size: 8))
        case TypeCode.byteString: return .byteString(value.isNil ? nil : spelledBytes(value))
        case TypeCode.cString: return .cString(reference)
        case TypeCode.atom: return .atom(reference)
        case TypeCode.selector: return .selector(reference)
        case TypeCode.classObject: return .classReference(reference)
        case TypeCode.object: return .object(reference)
        case TypeCode.ignored: return .ignored
        case TypeCode.pointer: return .pointer(value.index)
        case TypeCode.structOpen: return .structure(value.index..<(value.index + Int(node.count)))
        case TypeCode.arrayOpen:
            if types.isByteArray(value.type) { return .byteArray(value.isNil ? Span(start: 0, count: 0) : Span(start: value.word, count: node.count)) }
            return .array(value.index..<(value.index + Int(node.count)))
        default:
            let width = TypeCode.bitWidth(node.code)
            let bits = width == 64 ? (value.isNil ? 0 : spelledInteger(value)) : value.signedWord
            if TypeCode.isSignedInteger(node.code) { return .signed(bits) }
            let unsigned = UInt64(bitPattern: bits)
            return .unsigned(width == 64 ? unsigned : unsigned & (1 << UInt64(width) - 1))
        }
    }

    /// The `q` or `Q` value `value`'s bits, read from its spelling in `storage`.
    func spelledInteger(_ value: Value) -> Int64 {
        storage.withUnsafeBufferPointer { NumberSpelling.readInteger(at: $0.baseAddress! + value.index, bigEndian: byteOrder == .big) }
    }

    /// The `d` (`size` 8) value `value`'s bits, read from its spelling in `storage`.
    func spelledReal(_ value: Value, size: Int) -> UInt64 {
        storage.withUnsafeBufferPointer { NumberSpelling.readReal(at: $0.baseAddress! + value.index, size: size, bigEndian: byteOrder == .big) }
    }

    /// The bytes of the `+` value `value` (not nil): those after its length's spelling.
    func spelledBytes(_ value: Value) -> Span {
        storage.withUnsafeBufferPointer { buffer in
            let at = buffer.baseAddress! + value.index
            let count = NumberSpelling.readInteger(at: at, bigEndian: byteOrder == .big)
            return Span(start: value.word + UInt32(NumberSpelling.count(at: at)), count: UInt32(truncatingIfNeeded: count))
        }
    }

    /// Where `+` value `index`'s spelling (its length, then its bytes) lies in `storage`, for
    /// a value not nil: what the writer copies.
    func spelling(ofString index: Int) -> Range<Int> {
        let value = values[index]
        return value.index..<spelledBytes(value).range.upperBound
    }
}
