/// The `$space` labels of an NSColor's components (`ColorSpaceLabel`), checked against the
/// colour they stand in: the label is read from the colour's other keys, so it is checked
/// where the colour is, not where the bytes are turned back (`bytesFormBytes` takes any text
/// there). A label that does not match is refused, as a `$hex` that does not match its
/// components is; a form without one is taken as it is.
extension ArchiveEncoder {
    /// Whether a readable form of bytes in `document` (a `$data` or `$bytes` member's object,
    /// `JSONDocument.nestedPayloads`) has a `$space`: one look at each, once per document.
    @inline(never)
    static func holdsColorSpaceLabels(_ document: JSONDocument) -> Bool {
        document.nestedPayloads.contains { document.member(of: $0, BytesForm.spaceKey) != nil }
    }

    /// Whether an instance of class `meta` is a colour as the decoder decides it
    /// (`BytesForm.Owner(name:chain:)`): its class owns the colour's forms, or, when its class
    /// owns none, the first class of its `$classes` chain that owns some is NSColor.
    func isColor(_ meta: ObjectMeta) -> Bool {
        if let name = meta.className, document.kind(name) == .string, let owner = formOwner(name) { return owner == .color }
        guard let chain = meta.chain, document.kind(chain) == .array else { return false }
        for name in document.elements(of: chain) where document.kind(name) == .string {
            if let owner = formOwner(name) { return owner == .color }
        }
        return false
    }

    /// The owner of readable forms class name `name` is, if any.
    private func formOwner(_ name: Value) -> BytesForm.Owner? {
        BytesForm.Owner.classes.first { document.stringEquals(name, $0.name) }?.owner
    }

    /// Checks the label of each of colour `object`'s components that has one. Out of line:
    /// only colours come here. One walk over the colour's members finds its components, its
    /// space number and its custom space.
    @inline(never)
    mutating func checkColorSpaceLabels(_ object: Value) throws(CodecError) {
        // Its space number and custom space first; then its components (no list is made:
        // a colour has a few members, walked twice).
        var model: Value?
        var customSpace: Value?
        var cursor = document.children(of: object)
        while let (key, value) = document.nextMember(&cursor) {
            if document.stringEquals(key, ColorSpaceLabel.modelKey) {
                model = value
            } else if document.stringEquals(key, ColorSpaceLabel.customSpaceKey) {
                customSpace = value
            }
        }
        cursor = document.children(of: object)
        while let (key, value) = document.nextMember(&cursor) {
            guard let which = ColorSpaceLabel.Key.all.first(where: { document.stringEquals(key, $0.name) }) else { continue }
            guard let form = try componentsForm(value), let label = document.member(of: form, BytesForm.spaceKey), document.kind(label) == .string
            else { continue }
            let expected = which == .components ? try profileLabel(of: customSpace) : modelLabel(which, model: model)
            switch expected {
            case .model(let name) where document.stringEquals(label, name): continue
            case .profile(let description) where document.withString(label, { $0.elementsEqual(description.utf8) }): continue
            default: break
            }
            let given = document.stringValue(label)
            let reason =
                if let expected {
                    "its \(which.name) is in \"\(TextExcerpt.quote(expected.text))\""
                } else if which == .components {
                    "it names no space for its NSComponents (the description of its NSCustomColorSpace's NSICC profile would)"
                } else {
                    "it names no space for its \(which.name) components (its NSColorSpace number would: 1 or 2 for NSRGB, 3 or 4 for NSWhite, 5 for NSCMYK)"
                }
            throw fail("$space \"\(TextExcerpt.quote(given))\" does not match the colour: \(reason)", at: label)
        }
    }

    /// The readable form (`{"$components": …}`) colour key value `value` holds: in a `$bytes`
    /// or `$data` wrapper, directly or in the object a `$ref` names.
    private func componentsForm(_ value: Value, following: Bool = true) throws(CodecError) -> Value? {
        guard document.kind(value) == .object else { return nil }
        var cursor = document.children(of: value)
        while let (key, member) = document.nextMember(&cursor) {
            if document.stringEquals(key, MappingKeys.bytes) || document.stringEquals(key, MappingKeys.data) {
                return document.kind(member) == .object ? member : nil
            }
            // One `$ref` followed: the object it names is a body, not another reference.
            if following, document.stringEquals(key, MappingKeys.reference) {
                guard let target = objectOfID[try idKey(member)] else { return nil }
                return try componentsForm(target, following: false)
            }
        }
        return nil
    }

    /// The label of a model key's components (`NSRGB`, `NSWhite`, `NSCMYK`) for the colour's
    /// `NSColorSpace` value `model`: an integer, plain or as `{"$integer": "…"}`.
    private func modelLabel(_ key: ColorSpaceLabel.Key, model: Value?) -> ColorSpaceLabel.Text? {
        guard let model else { return nil }
        let number: Int64
        switch document.kind(model) {
        case .number:
            switch document.number(model) {
            case .signed(let value): number = value
            case .unsigned(let value): number = Int64(clamping: value)
            case .real: return nil
            }
        case .object:
            guard let exact = document.singleMember(model, named: MappingKeys.integer), let integer = try? document.exactInteger(exact.value),
                !integer.isUnsigned
            else { return nil }
            number = Int64(bitPattern: integer.bits)
        default:
            return nil
        }
        return ColorSpaceLabel.modelLabel(key, model: number).map(ColorSpaceLabel.Text.model)
    }

    /// The label of `NSComponents` in the colour's `NSCustomColorSpace` value `reference`: its
    /// profile's description. Read once per space object and once per profile data value,
    /// however many colours and spaces refer to them (many spaces sharing one large profile
    /// would otherwise read it once a space).
    private mutating func profileLabel(of reference: Value?) throws(CodecError) -> ColorSpaceLabel.Text? {
        guard let reference, let space = try resolved(reference), let checks = colorLabels else { return nil }
        if let known = checks.spaceLabels[space.offset] { return known.map(ColorSpaceLabel.Text.profile) }
        var label: String?
        if let profile = document.member(of: space, ColorSpaceLabel.profileKey), let holder = try resolved(profile) {
            // Known by the object that holds the profile, before its members are walked: a
            // walk past a large profile's text costs as much as the text.
            if let known = checks.profileLabels[holder.offset] {
                label = known
            } else {
                if let data = document.member(of: holder, MappingKeys.data) ?? document.member(of: holder, MappingKeys.bytes) {
                    label = try document.dataBytes(data).withUnsafeBufferPointer(ColorSpaceLabel.profileLabel)
                }
                checks.profileLabels[holder.offset] = label
            }
        }
        checks.spaceLabels[space.offset] = label
        return label.map(ColorSpaceLabel.Text.profile)
    }

    /// Object `value`, or the object its `$ref` names; nil for a value that is not an object.
    private func resolved(_ value: Value) throws(CodecError) -> Value? {
        guard document.kind(value) == .object else { return nil }
        guard let ref = document.member(of: value, MappingKeys.reference) else { return value }
        return objectOfID[try idKey(ref)]
    }
}

/// What an encoder remembers while it checks colour space labels: a class, so that an encoder
/// of a document without labels carries one empty reference.
final class ColorLabelChecks {
    /// The label each custom colour space gives (nil: none), by the space object's offset.
    var spaceLabels: [UInt32: String?] = [:]
    /// The label each profile gives (nil: none), by the offset of the object that holds it.
    var profileLabels: [UInt32: String?] = [:]
}
