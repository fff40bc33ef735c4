/// One change to a document's readable JSON at a path: what `archive-tool set`, `insert` and
/// `remove` make before the JSON is encoded again.
public enum PathEdit: Sendable {
    /// The value at the path becomes `json` (JSON text in the mapping: plain JSON reads as
    /// immutable Foundation values).
    case set(json: [UInt8])
    /// `json` goes in at the path: an index step puts it before that element (at the count:
    /// after the last), a key step adds that key, which must not be there yet.
    case insert(json: [UInt8])
    /// The element, member or dictionary entry at the path goes.
    case remove
}

/// Edits follow a path as `value(at:)` does (wrappers gone through, `$ref`s followed on the
/// way), but the last step names a *place*: an element of an array, a member of an object, an
/// entry of a `$dict`. A `{"$ref": n}` standing there is what `set` replaces and `remove`
/// takes away — the shared object stays for its other places; to change the shared object
/// itself, a path names one of its members. A place that holds an object other places refer
/// to (it carries `"$id"`) is refused for `set` and `remove`: those references would be left
/// pointing at nothing.
///
/// Linear: the path is followed once, the new text is made by one splice of the source, and
/// the reference check is one pass over the document's containers.
extension JSONDocument {
    /// The document's text with `edit` made at `path`.
    public func edited(at path: ReadablePath, _ edit: PathEdit) throws(PathFailure) -> [UInt8] {
        guard let last = path.steps.last else {
            throw PathFailure(description: "a path to change names a place in the document (.key or [n]), not the whole document (.)")
        }
        var newText: [UInt8] = []
        switch edit {
        case .set(let json), .insert(let json):
            do {
                _ = try JSONDocument(parsing: json)
            } catch {
                throw PathFailure(description: "the new value is not JSON: \(error.message)")
            }
            newText = json
        case .remove:
            break
        }
        let parentPath = path.prefix(path.steps.count - 1)
        var walk = PathWalk(document: self)
        var container = try value(at: parentPath, walk: &walk)
        var through = 0
        while true {
            container = try followingReference(container, walk: &walk, path: parentPath)
            if let splice = try place(last, in: container, edit, newText: newText, path: path) { return try applying(splice, path: path) }
            guard let inner = try wrapped(container, walk: &walk, for: last), through < 64 else {
                // At the last wrapper, a member by the name the plain view gives it (as `value(at:)`).
                if let renamed = renamedStep(last), let splice = try place(renamed, in: container, edit, newText: newText, path: path) {
                    return try applying(splice, path: path)
                }
                let verb = if case .insert = edit { "insert at" } else { "no value at" }
                throw PathFailure(description: "\(verb) \(path): \(parentPath) \(describe(container, for: last))")
            }
            through += 1
            container = inner
        }
    }

    /// The document's text with `splice` made, once no other place refers into what it removes,
    /// and without the colour space labels it did not write (`staleLabelSplices`).
    private func applying(_ splice: Splice, path: ReadablePath) throws(PathFailure) -> [UInt8] {
        try checkNoOtherReferences(into: splice.removed, path: path)
        var splices = staleLabelSplices(outside: splice.range)
        // Both lists are in source order and do not overlap: the edit goes in at its place.
        let position = splices.firstIndex { $0.range.lowerBound >= splice.range.upperBound } ?? splices.count
        splices.insert(splice, at: position)
        var text: [UInt8] = []
        text.reserveCapacity(source.count + splice.replacement.count)
        var done = 0
        for change in splices {
            text.append(contentsOf: source[done..<change.range.lowerBound])
            text.append(contentsOf: change.replacement)
            done = change.range.upperBound
        }
        text.append(contentsOf: source[done...])
        return text
    }

    /// Splices that take out each `$space` beside a colour's `$components` (`ColorSpaceLabel`)
    /// that does not overlap `edited`, in source order. A label is the decoder's account of
    /// other members of the colour (its `NSColorSpace`, its custom space's profile), which an
    /// edit may change (`.color.NSColorSpace` to 2): left in, the label would then disagree,
    /// and the encoder refuses a label that disagrees with its colour. It stands for no byte,
    /// and the next decode writes it again from the edited archive; a label the edit itself
    /// writes is kept, and checked. Linear: one look at each data value's object.
    private func staleLabelSplices(outside edited: Range<Int>) -> [Splice] {
        var splices: [Splice] = []
        for form in nestedPayloads {
            guard memberPosition(of: form, named: Self.componentsKeyBytes) != nil,
                let position = memberPosition(of: form, named: Self.spaceKeyBytes)
            else { continue }
            let splice = changing(entryAt: position, of: form, .remove, newText: [])
            if splice.range.upperBound <= edited.lowerBound || splice.range.lowerBound >= edited.upperBound { splices.append(splice) }
        }
        return splices
    }

    private static let componentsKeyBytes = BytesForm.componentsKey.withUTF8Buffer { Array($0) }
    private static let spaceKeyBytes = BytesForm.spaceKey.withUTF8Buffer { Array($0) }

    /// A change of the source: `range` becomes `replacement`; `removed` is the value that
    /// goes (nil for an insertion).
    private struct Splice {
        var range: Range<Int>
        var replacement: [UInt8]
        var removed: Value?
    }

    /// The splice that makes `edit` at `step` of `container` itself, or nil when `container`
    /// has no such place (the caller then looks inside the wrapper `container` may be).
    private func place(_ step: ReadablePath.Step, in container: Value, _ edit: PathEdit, newText: [UInt8], path: ReadablePath) throws(PathFailure) -> Splice? {
        let isInsert = if case .insert = edit { true } else { false }
        switch step {
        case .index(let index):
            guard kind(container) == .array else { return nil }
            let count = count(container)
            let position = index < 0 ? count + index : index
            if isInsert {
                guard (0...count).contains(position) else { return nil }
                return inserting(newText, at: position, of: container)
            }
            guard (0..<count).contains(position) else { return nil }
            return changing(entryAt: position, of: container, edit, newText: newText)
        case .key(let key):
            guard kind(container) == .object else { return nil }
            let bytes = Array(key.utf8)
            let isMapping = bytes.first == MappingKeys.marker
            // Where `value(at:)` would find it: a data key `$$…` first (among the members, then
            // in a `$dict` object), then the key as it is.
            let dictionary = member(of: container, MappingKeys.dict).flatMap { kind($0) == .object ? $0 : nil }
            var places: [(Value, [UInt8])] = isMapping ? [(container, [MappingKeys.marker] + bytes)] : []
            if isMapping, let dictionary { places.append((dictionary, [MappingKeys.marker] + bytes)) }
            places.append((container, bytes))
            for (object, name) in places {
                if let position = memberPosition(of: object, named: name) {
                    if isInsert {
                        throw PathFailure(description: "\(path) is there already: set it, or remove it first")
                    }
                    return changing(entryAt: position, of: object, edit, newText: newText)
                }
            }
            if let pairs = member(of: container, MappingKeys.dict), kind(pairs) == .array {
                if let position = try pairPosition(in: pairs, key: bytes) {
                    if isInsert {
                        throw PathFailure(description: "\(path) is there already: set it, or remove it first")
                    }
                    if case .remove = edit { return changing(entryAt: position, of: pairs, edit, newText: newText) }
                    var cursor = children(of: pairs)
                    for _ in 0..<position { _ = nextElement(&cursor) }
                    var parts = children(of: nextElement(&cursor)!)
                    _ = nextElement(&parts)
                    let value = nextElement(&parts)!
                    return Splice(range: sourceRange(of: value), replacement: newText, removed: value)
                }
                guard isInsert else { return nil }
                // A new entry: `[key, value]` at the end of the pairs.
                var pair = JSONOutput(pretty: false)
                pair.openArray()
                pair.string(key)
                pair.closeArray()
                var text = pair.finish()
                text.removeLast()
                text += [UInt8(ascii: ",")] + newText + [UInt8(ascii: "]")]
                return inserting(text, at: count(pairs), of: pairs)
            }
            guard isInsert, wrapped(container) == nil else { return nil }
            // A new member at the end; a key that begins with `$` is a data key, `$$…`.
            var name = JSONOutput(pretty: false)
            name.string(isMapping ? "$" + key : key)
            return inserting(name.finish() + [UInt8(ascii: ":")] + newText, at: count(container), of: container)
        }
    }

    /// Which member of object `value` (0, 1, …) has the key `key`.
    private func memberPosition(of value: Value, named key: [UInt8]) -> Int? {
        var cursor = children(of: value)
        var position = 0
        while let (name, _) = nextMember(&cursor) {
            if withString(name, { $0.elementsEqual(key) }) { return position }
            position += 1
        }
        return nil
    }

    /// Which entry of a `$dict`'s pairs has the string key `key` (an NSString's `$string`
    /// form counts as its string; a key given by `$ref` is not followed: it names a shared
    /// object, not text).
    private func pairPosition(in pairs: Value, key: [UInt8]) throws(PathFailure) -> Int? {
        var cursor = children(of: pairs)
        var position = 0
        while let pair = nextElement(&cursor) {
            defer { position += 1 }
            guard kind(pair) == .array, count(pair) == 2 else { continue }
            var parts = children(of: pair)
            let pairKey = nextElement(&parts)!
            let string = kind(pairKey) == .object ? member(of: pairKey, MappingKeys.string) ?? pairKey : pairKey
            if kind(string) == .string, withString(string, { $0.elementsEqual(key) }) { return position }
        }
        return nil
    }

    /// Sets or removes entry `position` of `container` (an element, or a member with its key),
    /// a separating comma going with a removed entry.
    private func changing(entryAt position: Int, of container: Value, _ edit: PathEdit, newText: [UInt8]) -> Splice {
        let isObject = kind(container) == .object
        var cursor = children(of: container)
        var previousEnd: Int?
        var entry: (start: Int, value: Value)?
        var nextStart: Int?
        var index = 0
        while index <= position + 1 {
            guard let (first, value) = nextEntry(&cursor, isObject: isObject) else { break }
            if index == position - 1 { previousEnd = sourceRange(of: value).upperBound }
            if index == position { entry = (sourceRange(of: first).lowerBound, value) }
            if index == position + 1 { nextStart = sourceRange(of: first).lowerBound }
            index += 1
        }
        let (start, value) = entry!
        guard case .remove = edit else {
            return Splice(range: sourceRange(of: value), replacement: newText, removed: value)
        }
        let end = sourceRange(of: value).upperBound
        // The entry and the comma after it; the last entry takes the comma before it.
        if let nextStart { return Splice(range: start..<nextStart, replacement: [], removed: value) }
        if let previousEnd { return Splice(range: previousEnd..<end, replacement: [], removed: value) }
        return Splice(range: start..<end, replacement: [], removed: value)
    }

    /// The next entry of a container: an element (where it begins, and itself), or a member
    /// (its key, where it begins, and its value).
    private func nextEntry(_ cursor: inout Cursor, isObject: Bool) -> (first: Value, value: Value)? {
        if isObject { return nextMember(&cursor).map { ($0.key, $0.value) } }
        return nextElement(&cursor).map { ($0, $0) }
    }

    /// Puts `text` (an element, or `"key":value`) into `container` before entry `position`
    /// (at its count: after the last).
    private func inserting(_ text: [UInt8], at position: Int, of container: Value) -> Splice {
        let isObject = kind(container) == .object
        var cursor = children(of: container)
        var lastEnd: Int?
        for index in 0...position {
            guard let (first, value) = nextEntry(&cursor, isObject: isObject) else { break }
            if index == position {
                let start = sourceRange(of: first).lowerBound
                return Splice(range: start..<start, replacement: text + [UInt8(ascii: ",")], removed: nil)
            }
            lastEnd = sourceRange(of: value).upperBound
        }
        guard let lastEnd else {
            let start = Int(container.offset) + 1
            return Splice(range: start..<start, replacement: text, removed: nil)
        }
        return Splice(range: lastEnd..<lastEnd, replacement: [UInt8(ascii: ",")] + text, removed: nil)
    }

    /// Refuses when `removed` holds an object with `"$id"` that a `$ref` outside it names (in
    /// the same document: a nested payload's identities are its own, `PathWalk.scope`).
    private func checkNoOtherReferences(into removed: Value?, path: ReadablePath) throws(PathFailure) {
        guard let removed, isContainer(removed) else { return }
        let inside = sourceRange(of: removed)
        var defined: Set<PathWalk.Identity> = []
        forEachContainer(under: removed, scope: identityScope(of: removed)) { container, scope in
            guard kind(container) == .object, let id = integerMember(of: container, MappingKeys.identity) else { return }
            defined.insert(PathWalk.Identity(scope: scope, number: id))
        }
        guard !defined.isEmpty else { return }
        var referring = 0
        var named: Int64 = 0
        forEachContainer(under: root, scope: 0) { container, scope in
            guard kind(container) == .object, !inside.contains(Int(container.offset)), count(container) == 1,
                let id = integerMember(of: container, MappingKeys.reference), defined.contains(PathWalk.Identity(scope: scope, number: id))
            else {
                return
            }
            referring += 1
            named = id
        }
        guard referring > 0 else { return }
        throw PathFailure(
            description:
                "\(path) holds the object with \"$id\": \(named), which \(referring == 1 ? "another place refers" : "\(referring) other places refer") to ({\"$ref\": \(named)}): change its members instead (\(path).key), or change those places first"
        )
    }
}
