/// JSON → a plain property list (docs/mapping.md, "Plain property lists"): the value inside a
/// `{"$propertyList": …}` document, built bottom-up into any `PlistBuilding` with an explicit
/// stack, so any depth the parser accepts encodes on any stack.
///
/// Strings, numbers (integer or real as written: a real has `.` or an exponent), booleans,
/// arrays and objects (dictionaries, their data keys with a leading `$$` standing for `$`) are
/// themselves; a one-member object with a mapping key is a value the JSON cannot say:
/// `$data` (base64), `$date` (ISO 8601 text or seconds since 2001), `$uid`, `$real` (NaN and
/// infinities), `$integer` (decimal text). `null` and any other mapping key are refused: a plist
/// has no null, and a key the mapping does not define would be lost.
struct PlainPlistEncoder<Tree: PlistBuilding> {
    typealias Value = JSONDocument.Value

    let document: JSONDocument
    var tree: Tree

    /// One container being built: its children in the document, the keys of a dictionary,
    /// the values built so far.
    private struct Frame {
        var isArray: Bool
        var children: [Value]
        var keys: [UInt32]
        var values: [UInt32] = []
    }

    /// The plist value of `root`, children built first.
    mutating func encode(_ root: Value) throws(CodecError) -> UInt32 {
        if let leaf = try leaf(root) { return leaf }
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
            if let leaf = try leaf(child) {
                stack[top].values.append(leaf)
            } else {
                stack.append(try open(child))
            }
        }
    }

    /// A value that is not a container (a scalar, or a one-member wrapper), or nil for an
    /// array or a dictionary.
    private mutating func leaf(_ value: Value) throws(CodecError) -> UInt32? {
        switch document.kind(value) {
        case .null:
            throw document.invalid("null has no property list value (leave the key out, or write a value)", at: value)
        case .string:
            return try document.withString(value) { (text) throws(CodecError) -> UInt32 in try tree.string(text) }
        case .bool:
            return try tree.bool(document.bool(value))
        case .number:
            switch document.number(value) {
            case .signed(let integer): return try tree.integer(PlistInteger(signed: integer))
            case .unsigned(let integer): return try tree.integer(PlistInteger(unsigned: integer))
            case .real(let real): return try tree.real(real)
            }
        case .array:
            return nil
        case .object:
            guard let (key, inner) = document.onlyMember(value), document.withString(key, MappingKeys.isMappingKey) else { return nil }
            if document.stringEquals(key, "$data") {
                let bytes = try document.base64Bytes(inner)
                return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
            }
            if document.stringEquals(key, "$date") { return try tree.date(document.time(inner)) }
            if document.stringEquals(key, "$real") { return try tree.real(document.nonFinite(inner)) }
            if document.stringEquals(key, "$integer") { return try tree.integer(document.exactInteger(inner)) }
            if document.stringEquals(key, "$uid") {
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

    /// The frame for an array or a dictionary; a dictionary's keys are interned here.
    private mutating func open(_ container: Value) throws(CodecError) -> Frame {
        if document.kind(container) == .array {
            return Frame(isArray: true, children: document.elements(of: container), keys: [])
        }
        let members = document.members(of: container)
        var keys: [UInt32] = []
        keys.reserveCapacity(members.count)
        for member in members { keys.append(try dataKey(member.key)) }
        return Frame(isArray: false, children: members.map(\.value), keys: keys)
    }

    /// A data key: `$$name` stands for `$name`; a key with one leading `$` is refused, since a
    /// value with it would have been a wrapper.
    private mutating func dataKey(_ key: Value) throws(CodecError) -> UInt32 {
        let refused = UInt32.max
        let string = try document.withString(key) { (text) throws(CodecError) -> UInt32 in
            guard text.first == MappingKeys.marker else { return try tree.string(text) }
            guard !MappingKeys.isMappingKey(text) else { return refused }
            return try tree.string(UnsafeBufferPointer(rebasing: text[1...]))
        }
        guard string != refused else {
            let text = document.stringValue(key)
            throw document.invalid(
                "key \(text) starts with $: in a plain property list only $data, $date, $uid, $real and $integer stand alone in an object; write a data key that starts with $ as $$",
                at: key)
        }
        return string
    }
}
