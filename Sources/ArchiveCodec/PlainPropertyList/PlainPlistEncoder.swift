/// JSON → a plain property list (docs/mapping.md, "Plain property lists"): the value inside a
/// `{"$propertyList": …}` document, built bottom-up into any `PlistBuilding`
/// (`PlistValueEncoding.encodeContainers`: any depth the parser accepts encodes on any stack).
///
/// Strings, numbers (integer or real as written: a real has `.` or an exponent), booleans,
/// arrays and objects (dictionaries, their data keys with a leading `$$` standing for `$`) are
/// themselves; a one-member object with a mapping key is a value the JSON cannot say:
/// `$data` (base64, with its `$bookmark` or `$alias` account beside it, checked against the
/// bytes), `$text` (data as UTF-8 text), `$date` (ISO 8601 text or seconds since 2001), `$uid`,
/// `$real` (NaN and infinities), `$integer` (decimal text). `null` and any other mapping key are refused: a plist
/// has no null, and a key the mapping does not define would be lost.
struct PlainPlistEncoder<Tree: PlistBuilding>: PlistValueEncoding {
    typealias Value = JSONDocument.Value

    let document: JSONDocument
    var tree: Tree

    /// The plist value of `root`, children built first.
    mutating func encode(_ root: Value) throws(CodecError) -> UInt32 {
        if let leaf = try leaf(root) { return leaf }
        return try encodeContainers(root)
    }

    mutating func containerMember(_ member: Value) throws(CodecError) -> ContainerMember {
        if let leaf = try leaf(member) { return .built(leaf) }
        return .container(member)
    }

    /// A value that is not a container (a scalar, or a one-member wrapper), or nil for an
    /// array or a dictionary.
    private mutating func leaf(_ value: Value) throws(CodecError) -> UInt32? {
        switch document.kind(value) {
        case .null:
            throw document.invalid("null has no property list value (leave the key out, or write a value)", at: value)
        case .string:
            return try Self.intern(document, value, into: &tree, asDataKey: false)
        case .bool, .number:
            return try Self.scalarNumber(document, value, into: &tree)
        case .array:
            return nil
        case .object:
            if let bytes = try Self.pairedDataValue(document, value, dataKey: MappingKeys.data, textKey: MappingKeys.text, into: &tree) { return bytes }
            guard let (key, inner) = document.onlyMember(value), document.withString(key, MappingKeys.isMappingKey) else { return nil }
            if document.stringEquals(key, MappingKeys.data) { return try Self.dataValue(document, inner, into: &tree) }
            if document.stringEquals(key, MappingKeys.text) { return try Self.textDataValue(document, inner, into: &tree) }
            if document.stringEquals(key, MappingKeys.date) { return try tree.date(document.time(inner)) }
            if document.stringEquals(key, MappingKeys.real) { return try tree.real(document.wrappedReal(inner)) }
            if document.stringEquals(key, MappingKeys.integer) { return try tree.integer(document.exactInteger(inner)) }
            if document.stringEquals(key, MappingKeys.uid) {
                guard document.kind(inner) == .number, case .unsigned(let uid) = document.number(inner) else {
                    guard document.kind(inner) == .number, case .signed(let uid) = document.number(inner), uid >= 0 else {
                        throw document.invalid("$uid takes an integer from 0 to 2^64 − 1", at: inner)
                    }
                    return try tree.uid(UInt64(uid))
                }
                return try tree.uid(uid)
            }
            return nil
        }
    }

    /// A data key: `$$name` stands for `$name`; a key with one leading `$` is refused, since a
    /// value with it would have been a wrapper.
    mutating func containerKey(_ key: Value) throws(CodecError) -> UInt32 {
        let string = try Self.intern(document, key, into: &tree, asDataKey: true)
        guard string != Self.refusedKey else {
            let text = TextExcerpt.quote(document.stringValue(key))
            throw document.invalid(
                "key \(text) starts with $: in a plain property list only $data (with $bookmark or $alias beside it), $text, $date, $uid, $real and $integer stand alone in an object; write a data key that starts with $ as $$",
                at: key)
        }
        return string
    }
}
