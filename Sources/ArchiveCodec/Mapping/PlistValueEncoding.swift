/// What the encoders of JSON into a property list share, the keyed archive's (for its inline
/// values) and the plain property list's: numbers, data, data keys, and plist arrays and
/// dictionaries built children first with an explicit stack, so any depth the parser accepts
/// encodes on any stack.
protocol PlistValueEncoding {
    associatedtype Tree: PlistBuilding
    var document: JSONDocument { get }
    var tree: Tree { get set }
    /// The plist string of a dictionary's key (`intern(…, asDataKey: true)`, refusing what
    /// the format refuses).
    mutating func containerKey(_ key: JSONDocument.Value) throws(CodecError) -> UInt32
    /// A member of an array or dictionary being built: its plist value, or the array or
    /// dictionary to build for it.
    mutating func containerMember(_ member: JSONDocument.Value) throws(CodecError) -> ContainerMember
}

/// What `PlistValueEncoding.containerMember` found.
enum ContainerMember {
    case built(UInt32)
    case container(JSONDocument.Value)
}

/// One array or dictionary being built by `PlistValueEncoding.encodeContainers`: its members in
/// the document, a dictionary's keys, the values built so far.
struct ContainerFrame {
    var isArray: Bool
    var children: [JSONDocument.Value]
    var keys: [UInt32]
    var values: [UInt32] = []
}

extension PlistValueEncoding {
    /// The plist array or dictionary of `root`, with the containers nested in it.
    mutating func encodeContainers(_ root: JSONDocument.Value) throws(CodecError) -> UInt32 {
        var stack = [try openContainer(root)]
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
            switch try containerMember(stack[top].children[next]) {
            case .built(let value): stack[top].values.append(value)
            case .container(let container): stack.append(try openContainer(container))
            }
        }
    }

    private mutating func openContainer(_ container: JSONDocument.Value) throws(CodecError) -> ContainerFrame {
        if document.kind(container) == .array {
            return ContainerFrame(isArray: true, children: document.elements(of: container), keys: [])
        }
        let members = document.members(of: container)
        var keys: [UInt32] = []
        keys.reserveCapacity(members.count)
        for member in members { keys.append(try containerKey(member.key)) }
        return ContainerFrame(isArray: false, children: members.map(\.value), keys: keys)
    }

    // The value helpers below are static and take the document and the tree as arguments: as
    // protocol-extension methods reading `document` through the requirement's getter, each call
    // copied the document (a retain and a release of each of its arrays), four per number.

    /// A number or boolean as itself: an integer (signed or unsigned as written) or a real.
    static func scalarNumber(_ document: JSONDocument, _ value: JSONDocument.Value, into tree: inout Tree) throws(CodecError) -> UInt32 {
        switch document.kind(value) {
        case .bool: return try tree.bool(document.bool(value))
        case .number:
            switch document.number(value) {
            case .signed(let integer): return try tree.integer(PlistInteger(signed: integer))
            case .unsigned(let integer): return try tree.integer(PlistInteger(unsigned: integer))
            case .real(let real): return try tree.real(real)
            }
        default: throw document.invalid("expected a number or a boolean", at: value)
        }
    }

    /// The plist data of base64 text `value` (or a nested payload's document), checked against
    /// `account` when one stands beside it.
    @inline(never)
    static func dataValue(
        _ document: JSONDocument, _ value: JSONDocument.Value, account: (kind: DataAccountKind, value: JSONDocument.Value)? = nil,
        into tree: inout Tree
    ) throws(CodecError) -> UInt32 {
        if account == nil, document.kind(value) == .string {
            // Base64 text, the usual data value: decoded into a buffer, not an array.
            return try document.withBase64Bytes(value) { (bytes) throws(CodecError) -> UInt32 in try tree.data(bytes) }
        }
        let bytes = try document.dataBytes(value)
        if let account { try document.checkAccount(account.kind, account.value, against: bytes) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
    }

    /// The plist data of `{"$text": …}` or `{"$bytesText": …}`: the string's UTF-8.
    @inline(never)
    static func textDataValue(_ document: JSONDocument, _ value: JSONDocument.Value, into tree: inout Tree) throws(CodecError) -> UInt32 {
        let bytes = try document.textBytes(value)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
    }

    /// The plist data of a data value of two members (`JSONDocument.pairedData`): bytes with
    /// an account, checked against them, or text after a byte order mark; nil when `value` is
    /// neither.
    static func pairedDataValue(
        _ document: JSONDocument, _ value: JSONDocument.Value, dataKey: StaticString, textKey: StaticString, into tree: inout Tree
    ) throws(CodecError) -> UInt32? {
        switch document.pairedData(value, dataKey: dataKey, textKey: textKey) {
        case .accounted(let data, let kind, let account)?:
            return try dataValue(document, data, account: (kind, account), into: &tree)
        case .marked(let text, let mark)?:
            let bytes = try document.markedTextBytes(text, mark: mark)
            return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
        case nil:
            return nil
        }
    }

    /// Not a value index: both builders refuse to grow past `UInt32.max - 1` values.
    static var refusedKey: UInt32 { .max }

    /// Interns the text of string `value` into `tree`; as a data key, without its escaping `$`
    /// (`refusedKey` for a key with a single leading `$`, the mapping's). Static, so that the
    /// closure holds `tree` alone: one that captured the encoder would copy the document.
    static func intern(_ document: JSONDocument, _ value: JSONDocument.Value, into tree: inout Tree, asDataKey: Bool) throws(CodecError) -> UInt32 {
        try document.withString(value) { (text) throws(CodecError) -> UInt32 in
            guard asDataKey, text.first == MappingKeys.marker else { return try tree.string(text) }
            guard !MappingKeys.isMappingKey(text) else { return refusedKey }
            return try tree.string(UnsafeBufferPointer(rebasing: text[1...]))
        }
    }
}
