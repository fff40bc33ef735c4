/// Where the readable view writes each object's body, and how deeply the view then nests.
///
/// **Shallowest placement** (docs/mapping.md, "Placement"): an object written with `$id`
/// (shared, cyclic, or moved to the table) has its body at its shallowest reference,
/// breadth-first over the object graph from the `$top` keys, references taken in the order
/// the document writes them (the first one reached wins). Every other reference to it is
/// `{"$ref": n}`, including references that come before the body in the text. A cyclic save
/// therefore nests as deep as its schema, not as its object count.
///
/// **Bounded nesting** (`bound`): an object whose body would nest deeper than the bound is
/// written in the document's top-level `$table` instead, with `$id`, and referenced from
/// where it would have stood; the document then takes the envelope form (`$top`). A table
/// entry's body opens at level 3, so an archive fits every bound of at least `minimumBound`
/// (at most 6 for anything NSKeyedArchiver writes; deeper only with nested inline plist
/// containers, which no class archives).
///
/// **The unit** of `depth` is JSON nesting: the most arrays and objects open at any point of
/// the text (`"x"` is 0, `[]` 1, `[{}]` 2). It is what JSON parsers limit, and at least the
/// writer's recursion depth (every level the writer recurses opens a bracket), so comparing it
/// with `StackBudget` keeps the writer within its stack.
///
/// Found without recursion in one pass over the references, breadth-first. The writer and the
/// split writer's walk (`ResumeWalk`) decide body or `$ref` from `homes` and the document
/// order alone, so every writer agrees.
struct Placement: Sendable {
    /// `homes[uid]` for an entry nothing has placed (an entry written without `$id` has its
    /// body at its one reference; an unreachable one has none).
    static let unplaced = UInt32.max
    /// `homes[uid]` for an entry written in `$table`.
    static let inTable = UInt32.max - 1
    /// The body that holds the `$top` values (UID 0, `$null`, is never a body itself).
    static let topBody: UInt32 = 0
    /// The smallest integer magnitude written as `$integer` with `exactIntegers`: 2^53.
    static let exactIntegerBound: UInt64 = 1 << 53

    /// Per entry written with `$id`: the object whose body holds its body (at the first
    /// reference from there in document order), `topBody`, `inTable` or `unplaced`.
    let homes: [UInt32]
    /// Per entry, whether it is written with `$id`: `KeyedArchive.needsIdentity` plus the
    /// entries moved to the table.
    let identity: [Bool]
    /// The entries written in `$table`, in table order.
    let table: [Int32]
    /// The JSON nesting of the document.
    let depth: Int
    /// Whether the document is the `$top` envelope rather than the root object itself.
    let envelope: Bool
    /// Integers beyond ±(2^53 − 1) written as `{"$integer": "…"}`.
    let exactIntegers: Bool

    /// `bound`: the deepest nesting the client accepts (nil: no bound). Throws
    /// `depthBoundTooSmall` when some body cannot fit under it even in the table.
    init(archive: KeyedArchive, view: BinaryPlistView, exactIntegers: Bool, bound: Int?) throws(CodecError) {
        var pass = PlacementPass(archive: archive, view: view, exactIntegers: exactIntegers, envelope: !archive.isPlainRoot)
        pass.place(bound: nil)
        if let bound, pass.depth > bound {
            // Too deep: place again in the envelope, moving what passes the bound to the table.
            pass = PlacementPass(archive: archive, view: view, exactIntegers: exactIntegers, envelope: true)
            pass.place(bound: bound)
            guard pass.depth <= bound else {
                let fits = Self.smallestFittingBound(archive: archive, view: view, exactIntegers: exactIntegers, above: bound, atMost: pass.minimumBound)
                throw CodecError(
                    .depthBoundTooSmall,
                    "maxDepth \(bound) is too small for this archive: with its deepest objects moved to the top-level $table it still nests \(pass.depth) levels; maxDepth \(fits) fits",
                    found: fits, limit: bound)
            }
        }
        homes = pass.homes
        identity = pass.identity
        table = pass.table
        depth = pass.depth
        envelope = pass.envelope
        self.exactIntegers = exactIntegers
    }

    /// The smallest bound above `refused` that the archive fits (`known` fits by construction:
    /// every body fits in the table under it); tried upwards, at most eight passes.
    private static func smallestFittingBound(archive: KeyedArchive, view: BinaryPlistView, exactIntegers: Bool, above refused: Int, atMost known: Int) -> Int {
        var bound = refused + 1
        while bound < known, bound <= refused + 8 {
            var pass = PlacementPass(archive: archive, view: view, exactIntegers: exactIntegers, envelope: true)
            pass.place(bound: bound)
            if pass.depth <= bound { return bound }
            bound += 1
        }
        return known
    }

    /// Whether a JSON reader that keeps numbers as doubles could change the integer.
    static func isInexact(_ value: PlistInteger) -> Bool {
        if value.isUnsigned { return value.bits >= exactIntegerBound }
        return Int64(bitPattern: value.bits).magnitude >= exactIntegerBound
    }
}

/// The breadth-first pass behind `Placement`.
private struct PlacementPass {
    var homes: [UInt32] = []
    var identity: [Bool]
    var table: [Int32] = []
    var depth = 0
    /// The smallest bound every entry's body fits under in the table, with the envelope.
    var minimumBound = 0
    let envelope: Bool
    let exactIntegers: Bool

    private let archive: KeyedArchive
    private let view: BinaryPlistView
    /// Breadth-first queue: entry and the number of brackets open around its body.
    private var queue: [(uid: Int32, level: Int32)] = []
    /// The references of the body being scanned: entry, levels open around the value
    /// (relative to the body's own), and whether it is an archived key's value.
    private var slots: [(uid: Int32, level: Int32, keyContext: Bool)] = []
    /// Inline plist containers being scanned: container and its levels.
    private var inlineStack: [(header: PlistObjectHeader, level: Int32)] = []

    init(archive: KeyedArchive, view: BinaryPlistView, exactIntegers: Bool, envelope: Bool) {
        self.archive = archive
        self.view = view
        self.exactIntegers = exactIntegers
        self.envelope = envelope
        identity = archive.needsIdentity
    }

    // MARK: Breadth-first pass

    mutating func place(bound: Int?) {
        homes = [UInt32](repeating: Placement.unplaced, count: archive.objectCount)
        table = []
        queue.removeAll(keepingCapacity: true)
        let topHeight = scanTop()
        depth = finishSlots(body: Placement.topBody, level: 0, own: topHeight)
        minimumBound = max(depth, 3)
        var next = 0
        while next < queue.count {
            let (uid32, natural) = queue[next]
            next += 1
            let uid = Int(uid32)
            let tracked = identity[uid]
            var level = Int(natural)
            var own = scanBody(uid, tracked: tracked)
            if let bound {
                // The body's height with every reference a `$ref` (an upper bound when a
                // shared scalar's body stands here): whether it passes the bound, and what
                // it needs in the table, where it has `$id` (a bare array or dictionary
                // takes a wrapper, one level more).
                let height = heightWithReferences(own)
                let wrapped = tracked ? height : height + (wrapsWhenMoved(uid) ? 1 : 0)
                minimumBound = max(minimumBound, 2 + wrapped)
                if level > 2, level + height > bound {
                    if !tracked {
                        identity[uid] = true
                        own = scanBody(uid, tracked: true)
                    }
                    homes[uid] = Placement.inTable
                    table.append(uid32)
                    level = 2
                }
            }
            depth = max(depth, finishSlots(body: UInt32(truncatingIfNeeded: uid), level: level, own: own))
        }
    }

    /// Whether entry `uid`, written without `$id` as a bare array or dictionary, takes a
    /// wrapper when it has one.
    private func wrapsWhenMoved(_ uid: Int) -> Bool {
        let form = archive.forms[uid]
        guard form == .array || form == .stringKeyDictionary else { return false }
        let info = archive.classOf[uid] >= 0 ? archive.classInfos[Int(archive.classOf[uid])] : nil
        let defaultClass = form == .array ? FoundationClasses.defaultArrayClass : FoundationClasses.defaultDictionaryClass
        return isBare(info, defaultClass: defaultClass, tracked: false)
    }

    /// The height of the body whose references are in `slots`, each counted as the most it
    /// can be there: `{"$ref": n}` or a shared scalar's own body.
    private func heightWithReferences(_ own: Int) -> Int {
        var height = own
        for (uid32, relative, keyContext) in slots {
            let uid = Int(uid32)
            guard uid != 0 else { continue }
            let form = archive.forms[uid]
            let leaf: Int
            if !form.isScalar {
                leaf = 1
            } else if identity[uid] {
                leaf = 1 + scalarHeight(view.header(at: Int(archive.entryOffsets[uid])))
            } else {
                leaf = untrackedScalarHeight(uid, form: form, keyContext: keyContext)
            }
            height = max(height, Int(relative) + leaf)
        }
        return height
    }

    /// Places the references in `slots` (found in the body of `body`, whose body opens
    /// inside `level` brackets); returns the deepest nesting of that body, its children's
    /// own bodies aside.
    private mutating func finishSlots(body: UInt32, level: Int, own: Int) -> Int {
        var height = own
        for (uid32, relative, keyContext) in slots {
            let uid = Int(uid32)
            let at = Int(relative)
            guard uid != 0 else { continue }
            let form = archive.forms[uid]
            var leaf: Int
            if identity[uid] {
                if homes[uid] == Placement.unplaced {
                    homes[uid] = body
                    if form.isScalar {
                        leaf = 1 + scalarHeight(view.header(at: Int(archive.entryOffsets[uid])))
                    } else {
                        leaf = 1
                        queue.append((uid32, Int32(truncatingIfNeeded: level + at)))
                    }
                } else {
                    leaf = 1  // {"$ref": n}
                }
            } else if form.isScalar {
                leaf = untrackedScalarHeight(uid, form: form, keyContext: keyContext)
            } else {
                leaf = 1
                queue.append((uid32, Int32(truncatingIfNeeded: level + at)))
            }
            height = max(height, at + leaf)
        }
        slots.removeAll(keepingCapacity: true)
        return level + height
    }

    // MARK: One body

    /// The `$top` values into `slots`, in document order (plain root: the root's one
    /// reference at level 0); returns the envelope's own height: `{"$top": {…}}` and the
    /// `$inline` top values (`$version` as `$integer` stays at level 2).
    private mutating func scanTop() -> Int {
        slots.removeAll(keepingCapacity: true)
        let top = view.header(of: archive.topRef)
        if !envelope {
            slots.append((Int32(truncatingIfNeeded: view.uidValue(of: view.childRef(top, 1))), 0, false))
            return 0
        }
        var height = 2
        for index in 0..<top.count {
            let value = view.childRef(top, top.count + index)
            if view.header(of: value).kind == .uid {
                slots.append((Int32(truncatingIfNeeded: view.uidValue(of: value)), 2, false))
            } else {
                height = max(height, inlineBodyHeight(value, level: 3))
            }
        }
        return height
    }

    /// Scans the body of entry `uid` (a non-scalar) as the writer writes it: its references go
    /// to `slots`; returns its own height (brackets of the body and of its scalar members).
    private mutating func scanBody(_ uid: Int, tracked: Bool) -> Int {
        slots.removeAll(keepingCapacity: true)
        let form = archive.forms[uid]
        let header = view.header(at: Int(archive.entryOffsets[uid]))
        let info = archive.classOf[uid] >= 0 ? archive.classInfos[Int(archive.classOf[uid])] : nil
        let meta = metaHeight(info)
        switch form {
        case .array, .set:
            let items = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let bare = form == .array && isBare(info, defaultClass: FoundationClasses.defaultArrayClass, tracked: tracked)
            addUIDs(items, level: bare ? 1 : 2)
            return bare ? 1 : max(meta, 2)
        case .orderedSet:
            for value in ReadableWriter.orderedSetValues(view, header) {
                slots.append((Int32(truncatingIfNeeded: view.uidValue(of: value)), 2, false))
            }
            return max(meta, 2)
        case .stringKeyDictionary:
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let bare = isBare(info, defaultClass: FoundationClasses.defaultDictionaryClass, tracked: tracked)
            addUIDs(values, level: bare ? 1 : 2)
            return bare ? 1 : max(meta, 2)
        case .pairDictionary:
            let keys = view.header(of: KeyedArchive.keyList(archive.lists[uid]))
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            for index in 0..<keys.count {
                slots.append((Int32(truncatingIfNeeded: view.uidValue(of: view.childRef(keys, index))), 3, false))
                slots.append((Int32(truncatingIfNeeded: view.uidValue(of: view.childRef(values, index))), 3, false))
            }
            return max(meta, keys.count > 0 ? 3 : 2)
        case .mutableString, .classData, .uuid:
            return meta
        case .date:
            let time = view.real(view.header(of: view.value(in: header, forKey: "NS.time")!))
            return max(meta, time.isFinite ? 1 : 2)
        case .generic:
            var height = meta
            for index in 0..<header.count {
                let key = view.childRef(header, index)
                if archive.classKeys.contains(key) { continue }
                height = max(height, keyValueHeight(view.childRef(header, header.count + index), level: 1))
            }
            return height
        default:
            // `{"$plist": container}` (`$id` beside it when tracked).
            return max(1, inlineContainerHeight(header, level: 2))
        }
    }

    private mutating func addUIDs(_ list: PlistObjectHeader, level: Int32) {
        for index in 0..<list.count {
            slots.append((Int32(truncatingIfNeeded: view.uidValue(of: view.childRef(list, index))), level, false))
        }
    }

    /// `$class`, `$classes` and `$classhints` (arrays one level down), `$id`: the body's own brackets.
    private func metaHeight(_ info: KeyedArchive.ClassInfo?) -> Int {
        guard let info else { return 1 }
        return (!info.isDefaultChain && info.chain != nil) || info.hints != nil ? 2 : 1
    }

    private func isBare(_ info: KeyedArchive.ClassInfo?, defaultClass: String, tracked: Bool) -> Bool {
        guard let info, !tracked, info.isPlain else { return false }
        return info.name == defaultClass
    }

    // MARK: Values inside a body

    /// An archived key's value (or an inline container's member) at `level` within the body:
    /// references go to `slots`; returns the nesting it reaches itself.
    private mutating func keyValueHeight(_ ref: Int, level: Int) -> Int {
        let header = view.header(of: ref)
        switch header.kind {
        case .uid:
            slots.append((Int32(truncatingIfNeeded: view.uid(header)), Int32(truncatingIfNeeded: level), true))
            return level
        case .int: return level + (exactIntegers && isInexact(view.integer(header)) ? 1 : 0)
        case .real: return level + (view.real(header).isFinite ? 0 : 1)
        case .bool: return level
        case .data: return level + 1  // {"$bytes": …}
        default: return inlineBodyHeight(ref, level: level + 1)  // {"$inline": …}
        }
    }

    /// The content of an `$inline` wrapper whose brackets make `level`.
    private mutating func inlineBodyHeight(_ ref: Int, level: Int) -> Int {
        let header = view.header(of: ref)
        switch header.kind {
        case .asciiString, .utf16String: return level
        case .date: return level + 1 + (view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8)).isFinite ? 0 : 1)
        case .array, .dict: return inlineContainerHeight(header, level: level + 1)
        default: return keyValueHeight(ref, level: level)
        }
    }

    /// A plist array or dictionary written in place, whose own brackets make `level`; nested
    /// `$inline` containers are walked with `inlineStack`, not recursion.
    private mutating func inlineContainerHeight(_ container: PlistObjectHeader, level: Int) -> Int {
        var height = level
        inlineStack.append((container, Int32(truncatingIfNeeded: level)))
        while let (header, at) = inlineStack.popLast() {
            let level = Int(at)
            height = max(height, level)
            let values = header.kind == .dict ? header.count : 0
            for index in 0..<header.count {
                let ref = view.childRef(header, values + index)
                let member = view.header(of: ref)
                if member.kind == .array || member.kind == .dict {
                    // {"$inline": [ … ]}: the wrapper at level + 1, the container at level + 2.
                    inlineStack.append((member, Int32(truncatingIfNeeded: level + 2)))
                } else {
                    height = max(height, keyValueHeight(ref, level: level))
                }
            }
        }
        return height
    }

    // MARK: Scalars

    /// The brackets inside a plain value: `{"$integer": …}`, `{"$real": …}`.
    private func scalarHeight(_ header: PlistObjectHeader) -> Int {
        switch header.kind {
        case .int: return exactIntegers && isInexact(view.integer(header)) ? 1 : 0
        case .real: return view.real(header).isFinite ? 0 : 1
        case .date: return view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8)).isFinite ? 0 : 1
        default: return 0
        }
    }

    /// A scalar entry written without `$id`: bare, or `$data`, `$plistDate`, `$number` (in key context).
    private func untrackedScalarHeight(_ uid: Int, form: ObjectForm, keyContext: Bool) -> Int {
        let inner = scalarHeight(view.header(at: Int(archive.entryOffsets[uid])))
        switch form {
        case .string: return 0
        case .data: return 1
        case .plistDate: return 1 + inner
        default: return (keyContext ? 1 : 0) + inner
        }
    }

    func isInexact(_ value: PlistInteger) -> Bool {
        Placement.isInexact(value)
    }
}
