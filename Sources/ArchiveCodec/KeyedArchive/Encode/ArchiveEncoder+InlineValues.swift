/// Inline values: the values of an instance's archived keys (key context), where numbers and
/// strings are stored in the instance itself and `$plist` containers are built with an
/// explicit stack; and the plist values the document's scalars become.
extension ArchiveEncoder {
    /// Encodes the value of an instance's archived key: numbers and booleans inline,
    /// `$bytes` inline data, `$inline` anything inline, everything else a UID reference.
    mutating func encodeKeyValue(_ value: Value) throws(CodecError) -> UInt32 {
        switch document.kind(value) {
        case .number, .bool:
            return try Self.scalarNumber(document, value, into: &tree)
        case .object:
            // The key of a one-member object is read once for the wrappers that stay in place
            // (a `{"$ref":…}` is the usual one-member value, and goes on).
            if let only = document.onlyMember(value) {
                switch document.withString(only.key, ValueWrapper.named) {
                case .bytes?: return try Self.dataValue(document, only.value, into: &tree)
                case .real?: return try tree.real(document.wrappedReal(only.value))
                case .inline?: return try encodeInlineBody(only.value)
                case .integer?: return try tree.integer(document.exactInteger(only.value))
                case .bytesText?: return try Self.textDataValue(document, only.value, into: &tree)
                default: break
                }
            } else if let bytes = try Self.pairedDataValue(document, value, dataKey: MappingKeys.bytes, textKey: MappingKeys.bytesText, into: &tree) {
                return bytes
            }
            return try tree.uid(UInt64(encodeObject(value)))
        default:
            return try tree.uid(UInt64(encodeObject(value)))
        }
    }

    /// The content of `$inline`: a plist value held in place.
    mutating func encodeInlineBody(_ value: Value) throws(CodecError) -> UInt32 {
        if let leaf = try inlineLeaf(value) { return leaf }
        return try encodeContainers(value)
    }

    /// An inline value that is not a container, or nil for an array or a dictionary.
    mutating func inlineLeaf(_ value: Value) throws(CodecError) -> UInt32? {
        switch document.kind(value) {
        case .null: throw fail("$inline cannot hold null (a plist has no null)", at: value)
        case .string: return try stringValue(value)
        case .number, .bool: return try Self.scalarNumber(document, value, into: &tree)
        case .array: return nil
        case .object:
            if let bytes = try Self.pairedDataValue(document, value, dataKey: MappingKeys.bytes, textKey: MappingKeys.bytesText, into: &tree) { return bytes }
            if let bytes = try Self.pairedDataValue(document, value, dataKey: MappingKeys.data, textKey: MappingKeys.text, into: &tree) { return bytes }
            guard document.count(value) == 1 else { return nil }
            var cursor = document.children(of: value)
            let (key, inner) = document.nextMember(&cursor)!
            if document.stringEquals(key, MappingKeys.bytes) || document.stringEquals(key, MappingKeys.data) { return try Self.dataValue(document, inner, into: &tree) }
            if document.stringEquals(key, MappingKeys.bytesText) || document.stringEquals(key, MappingKeys.text) { return try Self.textDataValue(document, inner, into: &tree) }
            if document.stringEquals(key, MappingKeys.real) { return try tree.real(document.wrappedReal(inner)) }
            if document.stringEquals(key, MappingKeys.plistDate) { return try tree.date(document.time(inner)) }
            if document.stringEquals(key, MappingKeys.integer) { return try tree.integer(document.exactInteger(inner)) }
            return nil
        }
    }

    /// A member of an inline container (the content of `$inline` or `$plist`, built by
    /// `encodeContainers`): `{"$inline": array or dictionary}` is built in place,
    /// anything else is a keyed value.
    mutating func containerMember(_ member: Value) throws(CodecError) -> ContainerMember {
        guard let inline = document.singleMember(member, named: MappingKeys.inline) else { return .built(try encodeKeyValue(member)) }
        if let leaf = try inlineLeaf(inline.value) { return .built(leaf) }
        return .container(inline.value)
    }

    mutating func containerKey(_ key: Value) throws(CodecError) -> UInt32 { try dataKeyString(key) }

    /// The plist string of string `value`, interned straight from the document's text.
    mutating func stringValue(_ value: Value) throws(CodecError) -> UInt32 {
        try Self.intern(document, value, into: &tree, asDataKey: false)
    }

    /// The plist string of data key `key`: `$$name` stands for `$name`; a key with a single
    /// leading `$` belongs to the mapping and is refused here.
    mutating func dataKeyString(_ key: Value) throws(CodecError) -> UInt32 {
        let string = try Self.intern(document, key, into: &tree, asDataKey: true)
        guard string != Self.refusedKey else {
            let text = TextExcerpt.quote(document.stringValue(key))
            throw fail("key \(text) starts with $; write a data key that starts with $ as $$", at: key)
        }
        return string
    }

    mutating func numberValue(_ value: Value) throws(CodecError) -> UInt32 {
        if let real = document.singleMember(value, named: MappingKeys.real) { return try tree.real(document.wrappedReal(real.value)) }
        if let exact = document.singleMember(value, named: MappingKeys.integer) { return try tree.integer(document.exactInteger(exact.value)) }
        return try Self.scalarNumber(document, value, into: &tree)
    }
}
