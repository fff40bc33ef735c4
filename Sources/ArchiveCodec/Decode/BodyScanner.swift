/// Reads the shape of one body as `ReadableWriter` writes it, without writing: the brackets
/// its own text opens (its *own height*, relative to the body) and, in document order, the
/// references whose place `Placement` decides (`slots`): non-scalar entries and scalars
/// written with `$id`. A scalar written without `$id` stands where it is referenced, so it
/// only adds to the own height. Scanning only reads the archive, so bodies may be scanned on
/// several threads at once, each with its own scanner.
///
/// Every case here mirrors a writer function (`writeCollection`, `writeGeneric`,
/// `writeKeyValue`, …); `PlacementTests` checks that the nesting found equals the nesting
/// written for every fixture, form and random graph.
struct BodyScanner {
    /// One reference to place: the entry, the brackets open around the value inside the
    /// body, and whether it is an archived key's value (numbers there take `$number`).
    struct Slot {
        var uid: Int32
        var level: Int32
        var keyContext: Bool
    }

    let archive: KeyedArchive
    let view: BinaryPlistView
    let exactIntegers: Bool
    /// `archive.forms` and `archive.carriesID`, read for every reference. A scalar's
    /// `carriesID` never changes during placement (only non-scalar bodies move to `$table`).
    private let forms: [ObjectForm]
    private let scalarCarriesID: [Bool]
    /// Per class index: the height of `$class`/`$classes`/`$classhints` (1, or 2 with an
    /// array), and whether instances without `$id` are written bare (bit 2: as an array, bit 3:
    /// as a dictionary). Read per body, where a `ClassInfo` would be retained and released.
    private let classTraits: [UInt8]
    /// The references found, appended body after body until the caller clears them.
    var slots: [Slot] = []
    /// The height reached by the scalars of the body being scanned.
    private var scalarHeight = 0
    /// Nested inline plist containers still to scan, with their levels.
    private var inlineStack: [(header: PlistObjectHeader, level: Int32)] = []

    init(archive: KeyedArchive, view: BinaryPlistView, exactIntegers: Bool) {
        self.archive = archive
        self.view = view
        self.exactIntegers = exactIntegers
        forms = archive.forms
        scalarCarriesID = archive.carriesID
        classTraits = archive.classInfos.map { info in
            var traits: UInt8 = (!info.isDefaultChain && info.chain != nil) || info.hints != nil ? 2 : 1
            if info.isPlain, info.name == FoundationClasses.defaultArrayClass { traits |= 4 }
            if info.isPlain, info.name == FoundationClasses.defaultDictionaryClass { traits |= 8 }
            return traits
        }
    }

    // MARK: Bodies

    /// The document's own part: the root's one reference (level 0), or the envelope
    /// `{"$top": {…}}` with its references at level 2 and its `$inline` values (`$version`
    /// as `$integer` stays at level 2). Returns its own height.
    mutating func scanTop(envelope: Bool) -> Int {
        scalarHeight = 0
        let top = view.header(of: archive.topRef)
        guard envelope else {
            visit(view.uidValue(of: view.childRef(top, 1)), at: 0, keyContext: false)
            return scalarHeight
        }
        var height = 2
        for index in 0..<top.count {
            let value = view.childRef(top, top.count + index)
            if view.header(of: value).kind == .uid {
                visit(view.uidValue(of: value), at: 2, keyContext: false)
            } else {
                height = max(height, inlineBodyHeight(value, level: 3))
            }
        }
        return max(height, scalarHeight)
    }

    /// The body of non-scalar entry `uid`, with `$id` (`carriesID`) or without: its own height,
    /// its references to place appended to `slots`.
    mutating func scan(_ uid: Int, carriesID: Bool) -> Int {
        scalarHeight = 0
        return max(scanOwn(uid, carriesID: carriesID), scalarHeight)
    }

    private mutating func scanOwn(_ uid: Int, carriesID: Bool) -> Int {
        let form = forms[uid]
        let header = view.header(at: Int(archive.entryOffsets[uid]))
        let meta = metaHeight(uid)
        switch form {
        case .array, .set:
            // Bare `[…]`, or `{meta, "$array": […]}`.
            let items = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let bare = form == .array && isBare(uid, form: form, carriesID: carriesID)
            visitList(items, level: bare ? 1 : 2)
            return bare ? 1 : max(meta, 2)
        case .orderedSet:
            for value in ReadableWriter.orderedSetValues(view, header) {
                visit(view.uidValue(of: value), at: 2, keyContext: false)
            }
            return max(meta, 2)
        case .stringKeyDictionary:
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let bare = isBare(uid, form: form, carriesID: carriesID)
            visitList(values, level: bare ? 1 : 2)
            return bare ? 1 : max(meta, 2)
        case .pairDictionary:
            // `{meta, "$dict": [[key, value], …]}`.
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
            // `{"$plist": container}` (`$id` beside it when it carries one).
            return max(1, inlineContainerHeight(header, level: 2))
        }
    }

    /// Whether entry `uid`, written without `$id` as a bare array or dictionary, takes a
    /// wrapper (one level more) when it has one.
    func wrapsWhenCarryingID(_ uid: Int) -> Bool {
        let form = forms[uid]
        guard form == .array || form == .stringKeyDictionary else { return false }
        return isBare(uid, form: form, carriesID: false)
    }

    /// The height of scalar entry `uid` where it is referenced: `{"$ref": n}` is 1; its body
    /// is `{"$id": n, …}` when `carriesID`, else bare or in a wrapper (`$data`, `$plistDate`,
    /// `$number` in key context).
    func scalarLeafHeight(_ uid: Int, form: ObjectForm, carriesID: Bool, keyContext: Bool) -> Int {
        if carriesID { return 1 + innerHeight(view.header(at: Int(archive.entryOffsets[uid]))) }
        switch form {
        case .string: return 0
        case .data: return 1
        case .bool: return keyContext ? 1 : 0
        case .integer where !exactIntegers: return keyContext ? 1 : 0
        default:
            // Integers with `exactIntegers`, reals and plist dates: read the value.
            let inner = innerHeight(view.header(at: Int(archive.entryOffsets[uid])))
            return (form == .plistDate || keyContext ? 1 : 0) + inner
        }
    }

    // MARK: References and values

    /// A reference at `level` within the body: an untracked scalar adds its height, anything
    /// else goes to `slots`.
    @inline(__always)
    private mutating func visit(_ uid: Int, at level: Int, keyContext: Bool) {
        guard uid != 0 else { return }
        let form = forms[uid]
        if form.isScalar, !scalarCarriesID[uid] {
            scalarHeight = max(scalarHeight, level + scalarLeafHeight(uid, form: form, carriesID: false, keyContext: keyContext))
            return
        }
        slots.append(Slot(uid: Int32(truncatingIfNeeded: uid), level: Int32(truncatingIfNeeded: level), keyContext: keyContext))
    }

    private mutating func visitList(_ list: PlistObjectHeader, level: Int) {
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
    private func isBare(_ uid: Int, form: ObjectForm, carriesID: Bool) -> Bool {
        let index = Int(archive.classOf[uid])
        guard !carriesID, index >= 0 else { return false }
        return classTraits[index] & (form == .array ? 4 : 8) != 0
    }

    /// An archived key's value (or an inline container's member) at `level` within the body:
    /// returns the nesting it reaches itself; references are visited.
    private mutating func keyValueHeight(_ ref: Int, level: Int) -> Int {
        let header = view.header(of: ref)
        switch header.kind {
        case .uid:
            visit(Int(truncatingIfNeeded: view.uid(header)), at: level, keyContext: true)
            return level
        case .int: return level + (exactIntegers && Placement.isInexact(view.integer(header)) ? 1 : 0)
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
        case .date: return level + 1 + innerHeight(header)
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

    /// The brackets inside a plain value: `{"$integer": …}`, `{"$real": …}`.
    private func innerHeight(_ header: PlistObjectHeader) -> Int {
        switch header.kind {
        case .int: return exactIntegers && Placement.isInexact(view.integer(header)) ? 1 : 0
        case .real: return view.real(header).isFinite ? 0 : 1
        case .date: return view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8)).isFinite ? 0 : 1
        default: return 0
        }
    }
}
