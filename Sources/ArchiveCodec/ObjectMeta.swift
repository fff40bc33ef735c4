/// The mapping's `$` keys of one JSON object, sorted out from its data keys (README.md,
/// "JSON mapping"). Holds node indices only: reading it allocates nothing, so the encoder can
/// read it for every object, twice.
struct ObjectMeta {
    /// Value nodes of `$id`, `$ref`, `$class`, `$classes`, `$classhints`.
    var id: Int?
    var ref: Int?
    var className: Int?
    var chain: Int?
    /// `$classes` is present (its value may be null: a class entry without `$classes`).
    var chainGiven = false
    var hints: Int?
    var wrapper: (kind: ValueWrapper, node: Int)?
    /// Members that are data keys (plain, or `$$`-escaped).
    var dataKeyCount = 0
}

/// The value wrappers of the mapping; an object holds at most one.
enum ValueWrapper: CaseIterable {
    case array, set, orderedSet, dict, string, data, number, real, plistDate, date, uuid, plist, bytes, inline

    var name: StaticString {
        switch self {
        case .array: "$array"
        case .set: "$set"
        case .orderedSet: "$orderedSet"
        case .dict: "$dict"
        case .string: "$string"
        case .data: "$data"
        case .number: "$number"
        case .real: "$real"
        case .plistDate: "$plistDate"
        case .date: "$date"
        case .uuid: "$uuid"
        case .plist: "$plist"
        case .bytes: "$bytes"
        case .inline: "$inline"
        }
    }
}

/// The `$` keys an object may hold, besides the wrappers.
private enum MetaKey {
    case id, ref, className, classes, classHints, wrapper(ValueWrapper), topOnly
}

extension JSONDocument {
    /// An `invalidDocument` error at `node`, with its byte offset and JSON path.
    func invalid(_ message: String, at node: Int) -> CodecError {
        CodecError(.invalidDocument, message, byteOffset: Int(self.node(node).offset), jsonPath: path(to: node))
    }

    /// Whether string node `index` holds exactly `literal` (asked for nearly every member:
    /// lengths first, then the bytes in place).
    func stringEquals(_ index: Int, _ literal: StaticString) -> Bool {
        let node = node(index)
        let count = literal.utf8CodeUnitCount
        guard node.kind == .string, Int(node.count) == count else { return false }
        guard count > 0 else { return true }
        guard literal.hasPointerRepresentation else { return string(index).elementsEqual(literal.description.utf8) }
        return text.withUnsafeBufferPointer { text in
            ByteStringTable.bytesEqual(text.baseAddress! + Int(node.start), literal.utf8Start, count: count)
        }
    }

    /// Whether member key `index` is a data key: plain, or starting with `$$` (which stands
    /// for a key starting with `$`). Any other key starting with `$` belongs to the mapping.
    func isDataKey(_ index: Int) -> Bool {
        let key = string(index)
        return key.first != UInt8(ascii: "$") || key.dropFirst().first == UInt8(ascii: "$")
    }

    private func metaKey(_ index: Int) -> MetaKey? {
        let key = string(index)
        switch key.count {
        case 3 where stringEquals(index, "$id"): return .id
        case 4 where stringEquals(index, "$ref"): return .ref
        case 4 where stringEquals(index, "$top"): return .topOnly
        case 6 where stringEquals(index, "$class"): return .className
        case 8 where stringEquals(index, "$classes"): return .classes
        case 8 where stringEquals(index, "$version"), 9 where stringEquals(index, "$archiver"): return .topOnly
        case 11 where stringEquals(index, "$classhints"): return .classHints
        default:
            for wrapper in ValueWrapper.allCases where wrapper.name.utf8CodeUnitCount == key.count && stringEquals(index, wrapper.name) {
                return .wrapper(wrapper)
            }
            return nil
        }
    }

    /// Reads and checks the `$` keys of object `index`.
    func meta(of index: Int) throws(CodecError) -> ObjectMeta {
        var meta = ObjectMeta()
        let memberCount = Int(node(index).count)
        var key = index + 1  // members are walked in place
        for _ in 0..<memberCount {
            let value = key + 1
            defer { key = value + Int(node(value).size) }
            if isDataKey(key) {
                meta.dataKeyCount += 1
                continue
            }
            switch metaKey(key) {
            case .id:
                try checkID(value)
                meta.id = value
            case .ref:
                guard memberCount == 1 else { throw invalid("$ref stands alone in its object", at: index) }
                try checkID(value)
                meta.ref = value
            case .className:
                guard node(value).kind == .string, node(value).count > 0 else { throw invalid("$class takes a class name", at: value) }
                meta.className = value
            case .classes:
                meta.chainGiven = true
                if node(value).kind != .null {
                    try checkStringList(value)
                    meta.chain = value
                }
            case .classHints:
                try checkStringList(value)
                meta.hints = value
            case .wrapper(let wrapper):
                guard meta.wrapper == nil else { throw invalid("an object holds one value wrapper, not two", at: value) }
                meta.wrapper = (wrapper, value)
            case .topOnly:
                throw invalid("\(stringValue(key)) belongs only at the top of the document", at: value)
            case nil:
                throw invalid("unknown key \(stringValue(key)); a data key that starts with $ is written with $$", at: key)
            }
        }
        if let wrapper = meta.wrapper, meta.dataKeyCount > 0 {
            throw invalid("\(wrapper.kind.name) objects hold no data keys", at: index)
        }
        return meta
    }

    /// `$id` and `$ref` values are integers or strings.
    func checkID(_ index: Int) throws(CodecError) {
        switch node(index).kind {
        case .int, .uint, .string: return
        default: throw CodecError(.invalidDocument, "$id and $ref take an integer or a string", byteOffset: Int(node(index).offset))
        }
    }

    private func checkStringList(_ index: Int) throws(CodecError) {
        guard node(index).kind == .array else { throw invalid("expected an array of class names", at: index) }
        var element = index + 1
        for _ in 0..<Int(node(index).count) {
            guard node(element).kind == .string else { throw invalid("expected an array of class names", at: element) }
            element += 1
        }
    }

    /// The strings of an array checked by `meta(of:)` (`$classes`, `$classhints`).
    func stringList(_ index: Int) -> [String] {
        (0..<Int(node(index).count)).map { stringValue(index + 1 + $0) }
    }

    /// The member `name` of object `index` when it is the only member, as (key, value).
    func singleMember(_ index: Int, named name: StaticString) -> (key: Int, value: Int)? {
        guard node(index).kind == .object, node(index).count == 1, stringEquals(index + 1, name) else { return nil }
        return (index + 1, index + 2)
    }
}
