/// The readable forms of the bytes some Foundation classes archive under their own keys
/// (docs/mapping.md, "Readable bytes"): written in place of the base64 text, inside the same
/// `$bytes` or `$data` wrapper, so the storage (inline bytes, an NSData entry, an NSMutableData
/// instance) reads as before and only the content becomes numbers.
///
/// A form is written only for bytes in the canonical layout it implies (`accepts`), so the
/// encoder, which turns a form back into bytes without knowing where it stands, gives back
/// exactly the archive's bytes.
enum BytesForm: UInt8 {
    /// NSColor's `NSWhite`, `NSCMYK`, `NSComponents`: `{"$components": [0.5, 1]}` (`ComponentText`).
    case components
    /// NSColor's `NSRGB`: the same, with the components' `$hex` (`ColorHex`) beside them.
    case rgbComponents
    /// NSIndexSet's `NSRangeData`: `{"$ranges": [[location, length], …]}` (`Varint` pairs).
    case ranges
    /// NSIndexPath's `NSIndexPathData`: `{"$indexes": [4, 8, 15]}` (`Varint`s).
    case indexes
    /// NSAttributedString's `NSAttributeInfo`: `{"$runs": [[length, attributes index], …]}`
    /// (`Varint` pairs; the index is into the `NSAttributes` array, or the one
    /// `NSAttributes` dictionary when it is 0 and there is no array).
    case runs

    /// The key the form's content stands under.
    var contentKey: StaticString {
        switch self {
        case .components, .rgbComponents: return Self.componentsKey
        case .ranges: return Self.rangesKey
        case .indexes: return Self.indexesKey
        case .runs: return Self.runsKey
        }
    }

    static let componentsKey: StaticString = MappingKeys.components
    static let hexKey: StaticString = MappingKeys.hex
    static let terminatedKey: StaticString = MappingKeys.nulTerminated
    /// The space a colour's components are in (`ColorSpaceLabel`), beside `$components`.
    static let spaceKey: StaticString = MappingKeys.space
    static let rangesKey: StaticString = MappingKeys.ranges
    static let indexesKey: StaticString = MappingKeys.indexes
    static let runsKey: StaticString = MappingKeys.runs

    /// What a form reads of its bytes: component text, or the varints in order.
    enum Content {
        case components(ComponentText)
        case varints([UInt64])
    }

    /// The content of `bytes` when they are in the canonical layout of this form (see the
    /// codecs), else nil. Varint pairs need an even count, at least one pair; varint lists at
    /// least one value; component text at least one component.
    func content(of bytes: UnsafeBufferPointer<UInt8>) -> Content? {
        switch self {
        case .components, .rgbComponents:
            return ComponentText(bytes).map(Content.components)
        case .indexes, .ranges, .runs:
            guard !bytes.isEmpty, let values = Varint.decode(bytes) else { return nil }
            guard self == .indexes || values.count % 2 == 0 else { return nil }
            return .varints(values)
        }
    }

    /// The classes whose keys hold such bytes, decided once per class from its name and chain
    /// (an archived subclass keeps its base class's keys).
    enum Owner: UInt8, CaseIterable {
        case color, indexSet, indexPath, attributedString

        init?(name: String, chain: [String]?) {
            guard let owner = Self(named: name) ?? chain.flatMap(Self.init(anyOf:)) else { return nil }
            self = owner
        }

        /// The form of the first of `names` that has one (a chain's, read once per `$classes`
        /// array however many class entries share it).
        init?(anyOf names: [String]) {
            guard let owner = names.lazy.compactMap(Self.init(named:)).first else { return nil }
            self = owner
        }

        /// The form of class `name` itself.
        init?(named name: String) {
            let owner = Self.classes.first { entry in
                entry.name.withUTF8Buffer { literal in name.utf8.elementsEqual(literal) }
            }?.owner
            guard let owner else { return nil }
            self = owner
        }

        /// The classes that own forms, by name: the one table the decoder (`init(named:)`) and
        /// the encoder (which compares the names in place, `ArchiveEncoder.isColor`) read.
        static let classes: [(name: StaticString, owner: Owner)] = [
            ("NSColor", .color), ("NSIndexSet", .indexSet), ("NSMutableIndexSet", .indexSet), ("NSIndexPath", .indexPath),
            ("NSAttributedString", .attributedString), ("NSMutableAttributedString", .attributedString), ("NSTextStorage", .attributedString)
        ]

        /// The keys of the owner's instances whose bytes take a form, with the form.
        var keys: [(key: StaticString, form: BytesForm)] {
            switch self {
            case .color: return Self.colorKeys
            case .indexSet: return Self.indexSetKeys
            case .indexPath: return Self.indexPathKeys
            case .attributedString: return Self.attributedStringKeys
            }
        }

        /// In the order of `ColorSpaceLabel.Key.all`.
        private static let colorKeys: [(key: StaticString, form: BytesForm)] = [
            ("NSRGB", .rgbComponents), ("NSWhite", .components), ("NSCMYK", .components), ("NSComponents", .components)
        ]
        private static let indexSetKeys: [(key: StaticString, form: BytesForm)] = [("NSRangeData", .ranges)]
        private static let indexPathKeys: [(key: StaticString, form: BytesForm)] = [("NSIndexPathData", .indexes)]
        private static let attributedStringKeys: [(key: StaticString, form: BytesForm)] = [("NSAttributeInfo", .runs)]
    }
}
