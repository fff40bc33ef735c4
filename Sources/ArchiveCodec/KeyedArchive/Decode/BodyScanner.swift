/// Measures one body as `ReadableShape` lays it out, without writing: the brackets its own
/// text opens (its *own height*, relative to the body) and, in document order, the references
/// whose place `Placement` decides (`slots`): non-scalar entries and scalars written with
/// `$id`. A scalar written without `$id` stands where it is referenced, so it only adds to
/// the own height. Scanning only reads the archive, so bodies may be scanned on several
/// threads at once, each with its own scanner.
///
/// The layout and the children come from the shape; what is measured here is the height of
/// the values the writer writes in place (scalars, `$number`, `$bytes`, `$inline`, …).
/// `PlacementTests` checks that the nesting found equals the nesting written for every
/// fixture, form and random graph.
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
    let shape: ReadableShape
    let numbers: NumberWrapping
    /// Whether data values carry their accounts (`Placement.accounts`).
    let accounts: Bool
    /// `archive.forms` and `archive.carriesID`, read for every reference. Every scalar that
    /// `archive.carriesID` marks gets a slot, the tied ones that placement then writes bare
    /// included (`ScalarIdentity`, "Ties"): placement settles their height.
    private let forms: [ObjectForm]
    private let scalarCarriesID: [Bool]
    /// The references found, appended body after body until the caller clears them.
    var slots: [Slot] = []
    /// The height reached by the scalars of the body being scanned.
    private var scalarHeight = 0
    /// Nested inline plist containers still to scan, with their levels.
    private var inlineStack: [(header: PlistObjectHeader, level: Int32)] = []
    /// The height of each account measured, by where the data's bytes start. A data value is
    /// written (and measured) at every reference to it, and an account costs its bytes to read,
    /// so one bookmark referenced from everywhere would cost the references times its size:
    /// each is read once per scanner. Only bytes that may carry an account are looked up.
    private var accountHeights: [Int: Int] = [:]

    init(archive: KeyedArchive, view: BinaryPlistView, numbers: NumberWrapping, accounts: Bool) {
        self.archive = archive
        self.view = view
        shape = ReadableShape(archive: archive, view: view)
        self.numbers = numbers
        self.accounts = accounts
        forms = archive.forms
        scalarCarriesID = archive.carriesID
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
        return max(2, visitChildren(shape.topChildren(), level: 2), scalarHeight)
    }

    /// The body of non-scalar entry `uid`, with `$id` (`carriesID`) or without: its own height,
    /// its references to place appended to `slots`.
    mutating func scan(_ uid: Int, carriesID: Bool) -> Int {
        scalarHeight = 0
        return max(scanOwn(uid, carriesID: carriesID), scalarHeight)
    }

    private mutating func scanOwn(_ uid: Int, carriesID: Bool) -> Int {
        let layout = shape.layout(of: uid, carriesID: carriesID)
        let meta = shape.metaHeight(uid)
        switch layout.opening {
        case .bare:
            return max(1, visitChildren(layout.children, level: 1))
        case .wrapped:
            let level = layout.childLevel
            let height = visitChildren(layout.children, level: level)
            return max(meta, layout.children.count > 0 ? max(height, level) : 2)
        case .members:
            let height = max(meta, visitChildren(layout.children, level: 1))
            return layout.children.walk == .formMembers ? max(height, foldedHeight(uid)) : height
        case .value:
            if forms[uid] == .classData {
                // `$data` (or `$text`) beside the meta keys, its account one level in.
                return max(meta, 1 + innerHeight(view.header(of: view.value(in: view.header(at: Int(archive.entryOffsets[uid])), forKey: "NS.data")!)))
            }
            guard forms[uid] == .date else { return meta }
            let time = view.real(view.header(of: view.value(in: view.header(at: Int(archive.entryOffsets[uid])), forKey: "NS.time")!))
            return max(meta, time.isFinite ? 1 : 2)
        case .plist:
            // `{"$plist": container}` (`$id` beside it when it carries one).
            return max(1, inlineContainerHeight(view.header(at: Int(archive.entryOffsets[uid])), level: 2))
        }
    }

    /// The height of the members a decimal, calendar date or time zone `uid` folds its keys
    /// into (`ValueObjectForms.foldedHeight`). Out of line, off every other body's path.
    @inline(never)
    private func foldedHeight(_ uid: Int) -> Int {
        ValueObjectForms.foldedHeight(forms[uid]) {
            numbers.wrapsTime(view.real(view.header(of: view.value(in: view.header(at: Int(archive.entryOffsets[uid])), forKey: ValueObjectForms.time)!)))
        }
    }

    /// Whether entry `uid`, written without `$id` as a bare array or dictionary, takes a
    /// wrapper (one level more) when it has one.
    func wrapsWhenCarryingID(_ uid: Int) -> Bool { shape.wrapsWhenCarryingID(uid) }

    /// The height of scalar entry `uid` where it is referenced: `{"$ref": n}` is 1; its body
    /// is `{"$id": n, …}` when `carriesID`, else bare or in a wrapper (`$data`, `$plistDate`,
    /// `$number` in key context).
    mutating func scalarLeafHeight(_ uid: Int, form: ObjectForm, carriesID: Bool, keyContext: Bool) -> Int {
        if carriesID { return 1 + innerHeight(view.header(at: Int(archive.entryOffsets[uid]))) }
        switch form {
        case .string: return 0
        case .data: return 1 + innerHeight(view.header(at: Int(archive.entryOffsets[uid])))
        case .bool: return keyContext ? 1 : 0
        case .integer where numbers == .nonFinite: return keyContext ? 1 : 0
        default:
            // Integers that may be wrapped, reals and plist dates: read the value.
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

    /// Visits the children of a body at `level`; returns the most the values written in place
    /// reach (`level` itself at most for references, which `slots` and the scalar height count).
    private mutating func visitChildren(_ list: ChildList, level: Int) -> Int {
        if list.walk.readsOutOfLine { return visitOutOfLine(list, level: level) }
        var height = 0
        for position in 0..<list.count {
            guard let child = shape.child(list, at: position) else { continue }
            switch child.role {
            case .reference:
                visit(view.uidValue(of: child.value), at: level, keyContext: false)
            case .keyedValue:
                height = max(height, keyValueHeight(child.value, level: level))
            case .topValue:
                if view.header(of: child.value).kind == .uid {
                    visit(view.uidValue(of: child.value), at: level, keyContext: false)
                } else {
                    height = max(height, inlineBodyHeight(child.value, level: level + 1))  // {"$inline": …}
                }
            }
        }
        return height
    }

    /// `visitChildren` of an ordered set, a folded attributed string, or a decimal, calendar
    /// date or time zone (`ChildList.Walk.readsOutOfLine`). Out of line: the common lists pay
    /// one test for the three.
    @inline(never)
    private mutating func visitOutOfLine(_ list: ChildList, level: Int) -> Int {
        switch list.walk {
        case .ordered:
            let values = ReadableShape.orderedSetValues(list, view)
            for position in 0..<list.count { visit(view.uidValue(of: shape.orderedChild(values, at: position).value), at: level, keyContext: false) }
            return 0
        case .attributedRuns:
            // `$string` at `level`; each run's attributes in `$runs`' array and the run's object.
            let folds = archive.attributedRuns
            let height = keyValueHeight(ReadableShape.runChild(folds, list, at: 0)!.value, level: level)
            for position in 1..<list.count {
                guard let child = ReadableShape.runChild(folds, list, at: position) else { continue }
                visit(view.uidValue(of: child.value), at: level + 2, keyContext: false)
            }
            // The array's brackets; a run's object inside it, when there is a run.
            return max(height, list.count > 1 ? level + 2 : level + 1)
        default:
            // A decimal's, calendar date's or time zone's references, as `ReadableWriter.writeFormMembers`.
            for position in 0..<list.count {
                guard let child = ReadableShape.formChild(view, list, at: position) else { continue }
                visit(view.uidValue(of: child.value), at: level, keyContext: false)
            }
            return 0
        }
    }

    /// An archived key's value (or an inline container's member) at `level` within the body:
    /// returns the nesting it reaches itself; references are visited.
    private mutating func keyValueHeight(_ ref: Int, level: Int) -> Int {
        let header = view.header(of: ref)
        switch shape.keyedValueForm(header) {
        case .reference:
            visit(Int(truncatingIfNeeded: view.uid(header)), at: level, keyContext: true)
            return level
        case .number: return level + innerHeight(header)
        case .bytes: return level + 1 + innerHeight(header)  // {"$bytes": …}, its account inside
        case .inline: return inlineBodyHeight(ref, level: level + 1)  // {"$inline": …}
        }
    }

    /// The content of an `$inline` wrapper whose brackets make `level`.
    private mutating func inlineBodyHeight(_ ref: Int, level: Int) -> Int {
        let header = view.header(of: ref)
        switch shape.inlineBodyForm(header) {
        case .string: return level
        case .plistDate: return level + 1 + innerHeight(header)
        case .container: return inlineContainerHeight(header, level: level + 1)
        case .keyedValue: return keyValueHeight(ref, level: level)
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
            let members = ChildList.inlineMembers(of: header)
            for position in 0..<members.count {
                let ref = shape.child(members, at: position)!.value
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

    /// The brackets inside a plain value: `{"$integer": …}`, `{"$real": …}`, a data value's
    /// readable form where its class key has one (`ReadableShape.bytesFormHeight`), else its
    /// account (`DataForm.accountHeight`, once per data object: `accountHeights`).
    private mutating func innerHeight(_ header: PlistObjectHeader) -> Int {
        switch header.kind {
        case .data:
            let form = shape.bytesFormHeight(header, numbers)
            if form > 0 { return form }
            guard accounts, DataForm.mayCarryAccount(view.payload(header)) else { return 0 }
            if let known = accountHeights[header.start] { return known }
            let height = DataForm.accountHeight(view.payload(header), numbers)
            accountHeights[header.start] = height
            return height
        // Integers are wrapped only with exactIntegers or exactNumbers: the default reads none.
        case .int: return numbers != .nonFinite && numbers.wraps(view.integer(header)) ? 1 : 0
        case .real: return numbers.wraps(view.real(header)) ? 1 : 0
        case .date: return numbers.wrapsTime(view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8))) ? 1 : 0
        default: return 0
        }
    }
}
