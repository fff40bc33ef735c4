/// Inline values: the values of an instance's archived keys (key context), where numbers and
/// strings are stored in the instance itself and `$plist` containers are built with an
/// explicit stack; and the plist values the document's scalars become.
extension ArchiveEncoder {
    /// Encodes the value of an instance's archived key: numbers and booleans inline,
    /// `$bytes` inline data, `$inline` anything inline, everything else a UID reference.
    mutating func encodeKeyValue(_ value: Value) throws(CodecError) -> UInt32 {
        switch document.kind(value) {
        case .number, .bool:
            return try scalarNumber(value)
        case .object:
            // The member of a one-member object is read once for the three wrappers that
            // stay in place (a `{"$ref":…}` is the usual one-member value, and goes on).
            if let only = document.onlyMember(value) {
                if document.stringEquals(only.key, "$bytes") { return try dataValue(only.value) }
                if document.stringEquals(only.key, "$real") { return try tree.real(document.nonFinite(only.value)) }
                if document.stringEquals(only.key, "$inline") { return try encodeInlineBody(only.value) }
                if document.stringEquals(only.key, "$integer") { return try tree.integer(document.exactInteger(only.value)) }
            }
            return try tree.uid(UInt64(encodeObject(value)))
        default:
            return try tree.uid(UInt64(encodeObject(value)))
        }
    }

    /// The content of `$inline`: a plist value held in place.
    mutating func encodeInlineBody(_ value: Value) throws(CodecError) -> UInt32 {
        if let leaf = try inlineLeaf(value) { return leaf }
        return try encodeInlineContainers(value)
    }

    /// An inline value that is not a container, or nil for an array or a dictionary.
    mutating func inlineLeaf(_ value: Value) throws(CodecError) -> UInt32? {
        switch document.kind(value) {
        case .null: throw fail("$inline cannot hold null (a plist has no null)", at: value)
        case .string: return try stringValue(value)
        case .number, .bool: return try scalarNumber(value)
        case .array: return nil
        case .object:
            guard document.count(value) == 1 else { return nil }
            var cursor = document.children(of: value)
            let (key, inner) = document.nextMember(&cursor)!
            if document.stringEquals(key, "$bytes") || document.stringEquals(key, "$data") { return try dataValue(inner) }
            if document.stringEquals(key, "$real") { return try tree.real(document.nonFinite(inner)) }
            if document.stringEquals(key, "$plistDate") { return try tree.date(document.time(inner)) }
            if document.stringEquals(key, "$integer") { return try tree.integer(document.exactInteger(inner)) }
            return nil
        }
    }

    /// An inline plist array or dictionary (the content of `$inline` or `$plist`), with any
    /// `$inline` containers nested in it, built children first with an explicit stack.
    mutating func encodeInlineContainers(_ root: Value) throws(CodecError) -> UInt32 {
        typealias Frame = InlineContainerFrame
        func open(_ container: Value) throws(CodecError) -> Frame {
            if document.kind(container) == .array {
                return Frame(isArray: true, children: document.elements(of: container), keys: [])
            }
            let members = document.members(of: container)
            var keys: [UInt32] = []
            for member in members { keys.append(try dataKeyString(member.key)) }
            return Frame(isArray: false, children: members.map(\.value), keys: keys)
        }
        var stack = [try open(root)]
        while true {
            let top = stack.count - 1
            let next = stack[top].values.count
            if next == stack[top].children.count {
                let frame = stack.removeLast()
                let built = frame.isArray ? try tree.array(frame.values) : try tree.dict(keys: frame.keys, values: frame.values)
                if stack.isEmpty { return built }
                stack[stack.count - 1].values.append(built)
                continue
            }
            let child = stack[top].children[next]
            if let inline = document.singleMember(child, named: "$inline") {
                if let leaf = try inlineLeaf(inline.value) {
                    stack[top].values.append(leaf)
                } else {
                    stack.append(try open(inline.value))
                }
            } else {
                stack[top].values.append(try encodeKeyValue(child))
            }
        }
    }

    /// The plist string of string `value`, interned straight from the document's text.
    mutating func stringValue(_ value: Value) throws(CodecError) -> UInt32 {
        try Self.intern(document, value, into: &tree, asDataKey: false)
    }

    /// The plist string of data key `key`: `$$name` stands for `$name`; a key with a single
    /// leading `$` belongs to the mapping and is refused here.
    mutating func dataKeyString(_ key: Value) throws(CodecError) -> UInt32 {
        let string = try Self.intern(document, key, into: &tree, asDataKey: true)
        guard string != Self.refusedKey else {
            let text = document.stringValue(key)
            throw fail("key \(text) starts with $; write a data key that starts with $ as $$", at: key)
        }
        return string
    }

    /// Not a value index: both builders refuse to grow past `UInt32.max - 1` values.
    static var refusedKey: UInt32 { .max }

    /// Interns the text of string `value` into `tree`; as a data key, without its escaping `$`
    /// (`refusedKey` for a key with a single leading `$`). Static, so that the closure holds
    /// `tree` alone: one that captured the encoder would copy the document (three retains).
    static func intern(_ document: JSONDocument, _ value: Value, into tree: inout Tree, asDataKey: Bool) throws(CodecError) -> UInt32 {
        try document.withString(value) { (text) throws(CodecError) -> UInt32 in
            guard asDataKey, text.first == UInt8(ascii: "$") else { return try tree.string(text) }
            guard !MappingKeys.isMappingKey(text) else { return refusedKey }
            return try tree.string(UnsafeBufferPointer(rebasing: text[1...]))
        }
    }

    mutating func scalarNumber(_ value: Value) throws(CodecError) -> UInt32 {
        switch document.kind(value) {
        case .bool: return try tree.bool(document.bool(value))
        case .number:
            switch document.number(value) {
            case .signed(let integer): return try tree.integer(PlistInteger(signed: integer))
            case .unsigned(let integer): return try tree.integer(PlistInteger(unsigned: integer))
            case .real(let real): return try tree.real(real)
            }
        default: throw fail("expected a number or a boolean", at: value)
        }
    }

    mutating func numberValue(_ value: Value) throws(CodecError) -> UInt32 {
        if let real = document.singleMember(value, named: "$real") { return try tree.real(document.nonFinite(real.value)) }
        if let exact = document.singleMember(value, named: "$integer") { return try tree.integer(document.exactInteger(exact.value)) }
        return try scalarNumber(value)
    }

    @inline(never)
    mutating func dataValue(_ value: Value) throws(CodecError) -> UInt32 {
        let bytes = try document.base64Bytes(value)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
    }
}
