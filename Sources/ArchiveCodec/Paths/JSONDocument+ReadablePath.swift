/// Following a `ReadablePath` through a document's readable JSON.
///
/// At each step a `{"$ref": n}` is followed to the object that carries `"$id": n`, and a
/// wrapper the step does not name is gone through: a collection's `$array`, `$set` or
/// `$orderedSet`, a `$dict`'s pairs (a key step finds the pair whose key is that string), an
/// envelope's `$top`, a nested payload's `$data`, `$keyedArchive` or `$propertyList`, bytes read
/// as numbers (`$bytes` holding `$components`, `$ranges`, …), a typedstream's `$typedstream`. A key that begins with `$` is looked for as
/// a data key first (written `$$…`), then as the mapping's own key. So `.teams[1].name` reads a
/// save whether `teams` is an NSArray or an NSMutableArray and whether the team is written
/// there or referred to.
///
/// Linear: each step looks through one container; the `$id` index is made once, on the first
/// `$ref` met, by one pass over the document's containers.
extension JSONDocument {
    /// Why a path leads nowhere, naming the deepest place it reached.
    public struct PathFailure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The JSON text of the value at `path` (a `$ref` at its end followed).
    public func valueText(at path: ReadablePath) throws(PathFailure) -> [UInt8] {
        let value = try value(at: path)
        return Array(source[sourceRange(of: value)])
    }

    /// The text of the string at `path`, unescaped, or nil when the value there is not a
    /// string (an NSString's `{"$string": …}` form counts as its string).
    public func stringText(at path: ReadablePath) throws(PathFailure) -> [UInt8]? {
        var value = try value(at: path)
        if kind(value) == .object, let content = member(of: value, MappingKeys.string), count(value) <= 3, kind(content) == .string {
            value = content
        }
        return kind(value) == .string ? withString(value) { Array($0) } : nil
    }

    /// The bytes of the data value at `path` (`{"$data": …}`, `{"$bytes": …}` in any of their
    /// forms, `{"$text": …}`, a bookmark's or alias record's bytes beside their account), or nil
    /// when the value there is not data. A nested payload's bytes are its document encoded
    /// again, as encode writes them.
    public func dataBytes(at path: ReadablePath) throws(PathFailure) -> [UInt8]? {
        let value = try value(at: path)
        guard kind(value) == .object else { return nil }
        do {
            for key in [MappingKeys.data, MappingKeys.bytes] {
                if let content = member(of: value, key) { return try dataBytes(content) }
            }
            if let text = member(of: value, MappingKeys.text) { return try textBytes(text) }
        } catch {
            throw PathFailure(description: "the data at \(path) cannot be read: \(error)")
        }
        return nil
    }

    func value(at path: ReadablePath) throws(PathFailure) -> Value {
        var identities: [Int64: Value]?
        var current = root
        for (position, step) in path.steps.enumerated() {
            var through = 0
            while true {
                current = try followingReference(current, identities: &identities, path: path.prefix(position))
                if let next = try take(step, from: current, identities: &identities) {
                    current = next
                    break
                }
                // Not here: through the wrapper, if the value is one, and again.
                guard let inner = wrapped(current), through < 64 else {
                    throw PathFailure(description: "no value at \(path.prefix(position + 1)): \(path.prefix(position)) \(describe(current, for: step))")
                }
                through += 1
                current = inner
            }
        }
        return try followingReference(current, identities: &identities, path: path)
    }

    /// `value`, or the object its `$ref` names.
    func followingReference(_ value: Value, identities: inout [Int64: Value]?, path: ReadablePath) throws(PathFailure) -> Value {
        guard kind(value) == .object, let reference = singleMember(value, named: MappingKeys.reference) else { return value }
        guard kind(reference.value) == .number, case .signed(let id) = number(reference.value) else { return value }
        if identities == nil { identities = identityIndex() }
        guard let target = identities?[id] else { throw PathFailure(description: "\(path) is {\"$ref\": \(id)}, and no object has \"$id\": \(id)") }
        return target
    }

    /// Every object that carries `$id`, by its number.
    private func identityIndex() -> [Int64: Value] {
        var index: [Int64: Value] = [:]
        var pending = isContainer(root) ? [root] : []
        while let container = pending.popLast() {
            var cursor = children(of: container)
            if kind(container) == .object {
                while let (key, value) = nextMember(&cursor) {
                    if stringEquals(key, MappingKeys.identity), kind(value) == .number, case .signed(let id) = number(value) { index[id] = container }
                    if isContainer(value) { pending.append(value) }
                }
            } else {
                while let element = nextElement(&cursor) {
                    if isContainer(element) { pending.append(element) }
                }
            }
        }
        return index
    }

    /// `step` taken from `value` itself, or nil when `value` has no such member or element.
    private func take(_ step: ReadablePath.Step, from value: Value, identities: inout [Int64: Value]?) throws(PathFailure) -> Value? {
        switch step {
        case .index(let index):
            guard kind(value) == .array else { return nil }
            let count = count(value)
            let position = index < 0 ? count + index : index
            guard (0..<count).contains(position) else { return nil }
            var cursor = children(of: value)
            for _ in 0..<position { _ = nextElement(&cursor) }
            return nextElement(&cursor)
        case .key(let key):
            guard kind(value) == .object else { return nil }
            let bytes = Array(key.utf8)
            let isMapping = bytes.first == MappingKeys.marker
            // A data key starting with `$` is written `$$…`.
            if let found = member(of: value, isMapping ? [MappingKeys.marker] + bytes : bytes) { return found }
            if isMapping, let found = member(of: value, bytes) { return found }
            if let pairs = member(of: value, MappingKeys.dict), kind(pairs) == .array {
                var cursor = children(of: pairs)
                while let pair = nextElement(&cursor) {
                    guard kind(pair) == .array, count(pair) == 2 else { continue }
                    var parts = children(of: pair)
                    let pairKey = try followingReference(nextElement(&parts)!, identities: &identities, path: ReadablePath(steps: []))
                    let string = kind(pairKey) == .object ? member(of: pairKey, MappingKeys.string) ?? pairKey : pairKey
                    if kind(string) == .string, withString(string, { $0.elementsEqual(bytes) }) { return nextElement(&parts) }
                }
            }
            return nil
        }
    }

    /// What `value` wraps, when it is one of the mapping's wrappers.
    func wrapped(_ value: Value) -> Value? {
        guard kind(value) == .object else { return nil }
        for key in [MappingKeys.array, MappingKeys.set, MappingKeys.orderedSet, MappingKeys.top, MappingKeys.keyedArchive, MappingKeys.propertyList, MappingKeys.typedStream] {
            if let content = member(of: value, key) { return content }
        }
        // A nested payload, `{"$data": {…}}`, or bytes read as numbers, `{"$bytes": {…}}`: a
        // readable content, not base64 text.
        for key in [MappingKeys.data, MappingKeys.bytes] {
            if let content = member(of: value, key), isContainer(content) { return content }
        }
        return nil
    }

    /// The member of object `value` whose key is `key`.
    func member(of value: Value, _ key: StaticString) -> Value? {
        key.withUTF8Buffer { member(of: value, Array($0)) }
    }

    func member(of value: Value, _ key: [UInt8]) -> Value? {
        var cursor = children(of: value)
        while let (name, member) = nextMember(&cursor) {
            if withString(name, { $0.elementsEqual(key) }) { return member }
        }
        return nil
    }

    /// Why `step` is not in `value`, in words.
    func describe(_ value: Value, for step: ReadablePath.Step) -> String {
        switch (kind(value), step) {
        case (.array, .index): return "holds \(count(value)) elements"
        case (.object, .key(let key)): return "has no key \(key.debugDescription)"
        case (.array, .key): return "is an array: index it with [n]"
        case (.object, .index): return "is an object: name a key"
        case (let other, _): return "is \(other == .string ? "a string" : other == .number ? "a number" : other == .bool ? "true or false" : "null")"
        }
    }
}
