extension ReadableFormLowering {
    /// The mapping's keys a typedstream object's readable form is read for (docs/mapping.md,
    /// "typedstream"), named through `MappingKeys`. A member key's text is read into one of
    /// these once (`init?`), compared in place: no text is made per member.
    enum FormKey: CaseIterable {
        /// The generic form's: an object that has one is no readable form.
        case classes, groups
        case className, identity
        /// Content keys: what the form holds (one per form, or data keys instead).
        case string, number, array, set, dict, data, text, date, components, value, relative, name, named
        /// Companions: keys that go with a content key (`contents`).
        case type, runs, space, base, version, size, flags, kind, bom, hex

        /// What a key does in a form's object.
        enum Role { case generic, className, identity, content, companion }

        /// A member key, read: a data key (plain, or `$$…`), one of these, or another `$` key.
        enum Read {
            case dataKey
            case mapping(FormKey)
            case unknown
        }

        var text: StaticString {
            switch self {
            case .classes: MappingKeys.classes
            case .groups: MappingKeys.groups
            case .className: MappingKeys.className
            case .identity: MappingKeys.identity
            case .string: MappingKeys.string
            case .number: MappingKeys.number
            case .array: MappingKeys.array
            case .set: MappingKeys.set
            case .dict: MappingKeys.dict
            case .data: MappingKeys.data
            case .text: MappingKeys.text
            case .date: MappingKeys.date
            case .components: MappingKeys.components
            case .value: MappingKeys.value
            case .relative: MappingKeys.relative
            case .name: MappingKeys.name
            case .named: MappingKeys.named
            case .type: MappingKeys.type
            case .runs: MappingKeys.runs
            case .space: MappingKeys.space
            case .base: MappingKeys.base
            case .version: MappingKeys.version
            case .size: MappingKeys.size
            case .flags: MappingKeys.flags
            case .kind: MappingKeys.kind
            case .bom: MappingKeys.bom
            case .hex: MappingKeys.hex
            }
        }

        var role: Role {
            switch self {
            case .classes, .groups: .generic
            case .className: .className
            case .identity: .identity
            case .type, .runs, .space, .base, .version, .size, .flags, .kind, .bom, .hex: .companion
            default: .content
            }
        }

        /// The content keys a companion goes with (none for other keys).
        var contents: [FormKey] {
            switch self {
            case .type: [.number, .value]
            case .runs: [.string]
            case .space, .hex: [.components]
            case .base: [.relative]
            case .version, .size, .flags: [.name]
            case .kind: [.data]
            case .bom: [.text]
            default: []
            }
        }

        /// The key `text` spells (a member key's text, unescaped), nil for any other. Lengths
        /// first, then the bytes in place (as `JSONDocument.meta(of:)` reads an archive's keys).
        init?(_ text: UnsafeBufferPointer<UInt8>) {
            func equals(_ key: FormKey) -> Bool { JSONText.text(text, equals: key.text) }
            switch text.count {
            case 3 where equals(.identity): self = .identity
            case 4 where equals(.set): self = .set
            case 4 where equals(.bom): self = .bom
            case 4 where equals(.hex): self = .hex
            case 5 where equals(.dict): self = .dict
            case 5 where equals(.data): self = .data
            case 5 where equals(.text): self = .text
            case 5 where equals(.date): self = .date
            case 5 where equals(.type): self = .type
            case 5 where equals(.runs): self = .runs
            case 5 where equals(.base): self = .base
            case 5 where equals(.size): self = .size
            case 5 where equals(.name): self = .name
            case 5 where equals(.kind): self = .kind
            case 6 where equals(.className): self = .className
            case 6 where equals(.array): self = .array
            case 6 where equals(.value): self = .value
            case 6 where equals(.space): self = .space
            case 6 where equals(.named): self = .named
            case 6 where equals(.flags): self = .flags
            case 7 where equals(.string): self = .string
            case 7 where equals(.number): self = .number
            case 7 where equals(.groups): self = .groups
            case 8 where equals(.classes): self = .classes
            case 8 where equals(.version): self = .version
            case 9 where equals(.relative): self = .relative
            case 11 where equals(.components): self = .components
            default: return nil
            }
        }
    }
}
