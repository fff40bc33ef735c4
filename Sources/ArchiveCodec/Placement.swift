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

/// The breadth-first pass behind `Placement`. Without a bound each reference is placed as
/// its body is scanned; with one, a body's references are held in `slots` until its height
/// has decided whether it moves to the table. The per-entry tables are read and written
/// through buffers the pass owns (`run`), so its inner loop does no reference counting.
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
    /// Per class index: the height of `$class`/`$classes`/`$classhints` (1 or 2), and
    /// whether instances of the class are written bare when they carry no `$id` (bit 2: as
    /// an array, bit 3: as a dictionary). Read per body, where a `ClassInfo` would be retained.
    private let classTraits: [UInt8]
    /// The references of the body being scanned, with a bound: entry, levels open around the
    /// value (relative to the body's own), and whether it is an archived key's value.
    private var slots: [(uid: Int32, level: Int32, keyContext: Bool)] = []
    /// Whether references go to `slots` (a bound is set) rather than being placed at once.
    private var deferring = false
    /// Inline plist containers being scanned: container and its levels.
    private var inlineStack: [(header: PlistObjectHeader, level: Int32)] = []

    /// The body being scanned: its entry, the brackets open around it, and the deepest its
    /// own text reaches (relative), its children's own bodies aside.
    private var body: UInt32 = 0
    private var bodyLevel = 0
    private var bodyHeight = 0

    /// During `place`: `homes`, and the breadth-first queue (entry, brackets open around its
    /// body). Every non-scalar entry is queued at most once (`homes` marks it placed), so
    /// `objectCount` slots hold any queue.
    private var homeSlots = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
    private var queue = UnsafeMutableBufferPointer<(uid: Int32, level: Int32)>(start: nil, count: 0)
    private var queued = 0

    init(archive: KeyedArchive, view: BinaryPlistView, exactIntegers: Bool, envelope: Bool) {
        self.archive = archive
        self.view = view
        self.exactIntegers = exactIntegers
        self.envelope = envelope
        identity = archive.needsIdentity
        classTraits = archive.classInfos.map { info in
            var traits: UInt8 = (!info.isDefaultChain && info.chain != nil) || info.hints != nil ? 2 : 1
            if info.isPlain, info.name == FoundationClasses.defaultArrayClass { traits |= 4 }
            if info.isPlain, info.name == FoundationClasses.defaultDictionaryClass { traits |= 8 }
            return traits
        }
    }

    // MARK: Breadth-first pass

    mutating func place(bound: Int?) {
        let count = archive.objectCount
        deferring = bound != nil
        table = []
        queue = .allocate(capacity: count + 1)
        defer { queue.deallocate() }
        queued = 0
        homes = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: Placement.unplaced)
            initialized = count
            homeSlots = buffer
            run(bound: bound)
            homeSlots = UnsafeMutableBufferPointer(start: nil, count: 0)
        }
    }

    private mutating func run(bound: Int?) {
        begin(body: Placement.topBody, level: 0)
        bodyHeight = scanTop()
        finishBody()
        minimumBound = max(depth, 3)
        var next = 0
        while next < queued {
            let (uid32, natural) = queue[next]
            next += 1
            let uid = Int(uid32)
            begin(body: UInt32(truncatingIfNeeded: uid), level: Int(natural))
            guard let bound else {
                bodyHeight = scanBody(uid, tracked: identity[uid])
                finishBody()
                continue
            }
            let tracked = identity[uid]
            var own = scanBody(uid, tracked: tracked)
            // The body's height with every reference a `$ref` (an upper bound when a shared
            // scalar's body stands here): whether it passes the bound, and what it needs in
            // the table, where it has `$id` (a bare array or dictionary takes a wrapper).
            let height = heightWithReferences(own)
            let wraps = !tracked && wrapsWhenMoved(uid)
            minimumBound = max(minimumBound, 2 + height + (wraps ? 1 : 0))
            if bodyLevel > 2, bodyLevel + height > bound {
                if wraps {
                    identity[uid] = true
                    own = scanBody(uid, tracked: true)
                } else {
                    identity[uid] = true
                }
                homeSlots[uid] = Placement.inTable
                table.append(uid32)
                bodyLevel = 2
            }
            bodyHeight = own
            for (child, relative, keyContext) in slots { placeChild(Int(child), at: Int(relative), keyContext: keyContext) }
            slots.removeAll(keepingCapacity: true)
            finishBody()
        }
    }

    @inline(__always)
    private mutating func begin(body: UInt32, level: Int) {
        self.body = body
        bodyLevel = level
        bodyHeight = 0
    }

    @inline(__always)
    private mutating func finishBody() {
        depth = max(depth, bodyLevel + bodyHeight)
    }

    /// Whether entry `uid`, written without `$id` as a bare array or dictionary, takes a
    /// wrapper when it has one.
    private func wrapsWhenMoved(_ uid: Int) -> Bool {
        let form = archive.forms[uid]
        guard form == .array || form == .stringKeyDictionary else { return false }
        return isBare(uid, form: form, tracked: false)
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

    /// A reference met in the body being scanned, `relative` levels inside it.
    @inline(__always)
    private mutating func visit(_ uid: Int, at relative: Int, keyContext: Bool) {
        if deferring {
            slots.append((Int32(truncatingIfNeeded: uid), Int32(truncatingIfNeeded: relative), keyContext))
        } else {
            placeChild(uid, at: relative, keyContext: keyContext)
        }
    }

    /// Places the reference: the first to reach an unplaced entry holds its body (queued,
    /// or written here for a scalar); counts what it writes here into `bodyHeight`.
    private mutating func placeChild(_ uid: Int, at relative: Int, keyContext: Bool) {
        guard uid != 0 else { return }
        let form = archive.forms[uid]
        let leaf: Int
        if form.isScalar {
            if identity[uid] {
                if homeSlots[uid] == Placement.unplaced {
                    homeSlots[uid] = body
                    leaf = 1 + scalarHeight(view.header(at: Int(archive.entryOffsets[uid])))
                } else {
                    leaf = 1  // {"$ref": n}
                }
            } else {
                leaf = untrackedScalarHeight(uid, form: form, keyContext: keyContext)
            }
        } else {
            // Written with `$id` or not, a body is placed once (an entry without `$id` has
            // one reference); every later reference is `{"$ref": n}`.
            if homeSlots[uid] == Placement.unplaced, queued < queue.count {
                homeSlots[uid] = body
                queue[queued] = (Int32(truncatingIfNeeded: uid), Int32(truncatingIfNeeded: bodyLevel + relative))
                queued += 1
            }
            leaf = 1
        }
        bodyHeight = max(bodyHeight, relative + leaf)
    }

    // MARK: One body

    /// The `$top` values into `slots`, in document order (plain root: the root's one
    /// reference at level 0); returns the envelope's own height: `{"$top": {…}}` and the
    /// `$inline` top values (`$version` as `$integer` stays at level 2).
    private mutating func scanTop() -> Int {
        let top = view.header(of: archive.topRef)
        let deferred = deferring
        deferring = false  // the envelope never moves
        defer { deferring = deferred }
        if !envelope {
            placeChild(view.uidValue(of: view.childRef(top, 1)), at: 0, keyContext: false)
            return bodyHeight
        }
        var height = 2
        for index in 0..<top.count {
            let value = view.childRef(top, top.count + index)
            if view.header(of: value).kind == .uid {
                placeChild(view.uidValue(of: value), at: 2, keyContext: false)
            } else {
                height = max(height, inlineBodyHeight(value, level: 3))
            }
        }
        return max(height, bodyHeight)
    }

    /// Scans the body of entry `uid` (a non-scalar) as the writer writes it: its references go
    /// to `slots`; returns its own height (brackets of the body and of its scalar members).
    private mutating func scanBody(_ uid: Int, tracked: Bool) -> Int {
        slots.removeAll(keepingCapacity: true)
        bodyHeight = 0
        let own = scanOwn(uid, tracked: tracked)
        return max(own, bodyHeight)
    }

    private mutating func scanOwn(_ uid: Int, tracked: Bool) -> Int {
        let form = archive.forms[uid]
        let header = view.header(at: Int(archive.entryOffsets[uid]))
        let meta = metaHeight(uid)
        switch form {
        case .array, .set:
            let items = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let bare = form == .array && isBare(uid, form: form, tracked: tracked)
            addUIDs(items, level: bare ? 1 : 2)
            return bare ? 1 : max(meta, 2)
        case .orderedSet:
            for value in ReadableWriter.orderedSetValues(view, header) {
                visit(view.uidValue(of: value), at: 2, keyContext: false)
            }
            return max(meta, 2)
        case .stringKeyDictionary:
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let bare = isBare(uid, form: form, tracked: tracked)
            addUIDs(values, level: bare ? 1 : 2)
            return bare ? 1 : max(meta, 2)
        case .pairDictionary:
            let keys = view.header(of: KeyedArchive.keyList(archive.lists[uid]))
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            for index in 0..<keys.count {
                visit(view.uidValue(of: view.childRef(keys, index)), at: 3, keyContext: false)
                visit(view.uidValue(of: view.childRef(values, index)), at: 3, keyContext: false)
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

    private mutating func addUIDs(_ list: PlistObjectHeader, level: Int) {
        for index in 0..<list.count {
            visit(view.uidValue(of: view.childRef(list, index)), at: level, keyContext: false)
        }
    }

    /// `$class`, `$classes` and `$classhints` (arrays one level down), `$id`: the body's own brackets.
    private func metaHeight(_ uid: Int) -> Int {
        let index = Int(archive.classOf[uid])
        return index >= 0 ? Int(classTraits[index] & 3) : 1
    }

    /// Whether the array or string-key dictionary `uid` is written bare (`ReadableWriter.isBare`).
    private func isBare(_ uid: Int, form: ObjectForm, tracked: Bool) -> Bool {
        let index = Int(archive.classOf[uid])
        guard !tracked, index >= 0 else { return false }
        return classTraits[index] & (form == .array ? 4 : 8) != 0
    }

    // MARK: Values inside a body

    /// An archived key's value (or an inline container's member) at `level` within the body:
    /// references go to `slots`; returns the nesting it reaches itself.
    private mutating func keyValueHeight(_ ref: Int, level: Int) -> Int {
        let header = view.header(of: ref)
        switch header.kind {
        case .uid:
            visit(Int(truncatingIfNeeded: view.uid(header)), at: level, keyContext: true)
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
