/// The mapping's one convention for member keys (docs/mapping.md, "The `$` keys"): a key that
/// starts with a single `$` is the mapping's own (`$class`, `$id`, `$ref`, …); a data key that
/// starts with `$` is written with the `$` doubled, so no data key is ever read as a marker.
enum MappingKeys {
    /// The key of a shared object's identity, which a reference names.
    static let identity: StaticString = "$id"
    /// The key of a reference to an object written elsewhere: `{"$ref": n}`.
    static let reference: StaticString = "$ref"
    /// The key of a plain property list's document: `{"$propertyList": value}`.
    static let propertyList: StaticString = "$propertyList"
    /// The character that starts the mapping's keys, doubled at the start of a data key.
    static let marker = UInt8(ascii: "$")

    /// Whether a member key (its text, unescaped) is one of the mapping's: it starts with one
    /// `$`. A data key is plain or starts with `$$`, which stands for one `$`.
    @inline(__always)
    static func isMappingKey(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.first == marker && !(text.count > 1 && text[1] == marker)
    }
}
