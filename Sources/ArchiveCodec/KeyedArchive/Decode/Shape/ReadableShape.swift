/// The shape of the readable view (docs/mapping.md, "Values"), written down once: for each
/// non-scalar entry, the brackets its body opens (`BodyLayout`) and where its children stand
/// (`ChildList`, read one `Child` at a time); for each value inside an object's own dictionary
/// or an inline container, the form it takes (`KeyedValueForm`).
///
/// Three readers follow it and nothing else: `ReadableWriter` writes the text, `BodyScanner`
/// measures it (the references placement decides and the brackets around them), and
/// `ResumeWalk` walks it to the reference where the split writer's second half starts. A new
/// readable form, or a new source format, is described here and all three follow.
///
/// Reads the archive only; a copy may be used on any thread.
struct ReadableShape {
    let archive: KeyedArchive
    let view: BinaryPlistView
    /// `archive.forms`, read for every reference.
    let forms: [ObjectForm]
    /// Per class index, what the layout needs of a `ClassInfo` (read per body, where a
    /// `ClassInfo` would be retained and released).
    private let classTraits: [ClassTraits]
    /// The `$objects` array, whose members a string-key dictionary's key UIDs index.
    let objectsHeader: PlistObjectHeader
    /// Whether `archive.bytesForms` marks anything (asked for every data value).
    let hasBytesForms: Bool

    init(archive: KeyedArchive, view: BinaryPlistView) {
        self.archive = archive
        self.view = view
        forms = archive.forms
        classTraits = archive.classInfos.map(ClassTraits.init)
        objectsHeader = view.header(of: archive.objectsRef)
        hasBytesForms = !archive.bytesForms.isEmpty
    }

    // MARK: Bodies

    /// The layout of non-scalar entry `uid`'s body, written with `$id` or without (`carriesID`).
    @inline(__always)
    func layout(of uid: Int, carriesID: Bool) -> BodyLayout {
        let form = forms[uid]
        let traits = classTraits(of: uid)
        switch form {
        case .array, .set:
            let items = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let children = ChildList(.references, items)
            if form == .array, !carriesID, traits.isBare(.array) { return BodyLayout(opening: .bare, children: children, defaultClass: .array) }
            return BodyLayout(opening: .wrapped, children: children, defaultClass: form == .array ? .array : .set)
        case .orderedSet:
            let header = view.header(at: Int(archive.entryOffsets[uid]))
            return BodyLayout(opening: .wrapped, children: ChildList(.ordered, header, count: max(header.count - 1, 0)), defaultClass: .orderedSet)
        case .stringKeyDictionary:
            let keys = view.header(of: KeyedArchive.keyList(archive.lists[uid]))
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            let children = ChildList(.keyedReferences, keys, values, count: keys.count)
            if !carriesID, traits.isBare(.dictionary) { return BodyLayout(opening: .bare, children: children, defaultClass: .dictionary) }
            return BodyLayout(opening: .wrapped, children: children, defaultClass: .dictionary)
        case .pairDictionary:
            let keys = view.header(of: KeyedArchive.keyList(archive.lists[uid]))
            let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
            return BodyLayout(opening: .wrapped, children: ChildList(.pairs, keys, values, count: 2 * keys.count), defaultClass: .dictionary)
        case .mutableString, .classData, .date, .uuid:
            return BodyLayout(opening: .value, children: .none, defaultClass: DefaultClass(valueForm: form))
        case .decimal, .calendarDate, .timeZone:
            // Folded members first (`ReadableWriter.writeFoldedMembers`), then the references (a
            // time zone's `$zoneInfo` between its two: `writeFormMembers`).
            let header = view.header(at: Int(archive.entryOffsets[uid]))
            return BodyLayout(opening: .members, children: .formMembers(of: header, count: form == .decimal ? 0 : 2), defaultClass: .none)
        case .generic:
            // Asked of the folds themselves: a flag here would grow the shape, which the
            // walkers copy often.
            if !archive.attributedRuns.isEmpty, let fold = archive.attributedRuns.index(of: uid) {
                let runs = archive.attributedRuns.folds[fold].lengths.count
                return BodyLayout(opening: .members, children: .attributedRuns(fold: fold, runs: runs), defaultClass: .none)
            }
            let header = view.header(at: Int(archive.entryOffsets[uid]))
            return BodyLayout(opening: .members, children: ChildList(.objectMembers, header), defaultClass: .none)
        default:
            let header = view.header(at: Int(archive.entryOffsets[uid]))
            return BodyLayout(opening: .plist, children: ChildList(.inlineMembers, header), defaultClass: .none)
        }
    }

    /// The mapping key under which body `layout` of entry `uid` holds what it holds: a wrapped
    /// collection's container (`BodyLayout.wrapperKey`: `$array`, `$set`, `$orderedSet`,
    /// `$dict`), a stored plist's `$plist`, a value class's one value
    /// (`ObjectForm.valueClassMembers`; the writer spells data that is text `$text`, as
    /// `JSONOutput.dataMembers` does everywhere); nil when the children stand in the body itself
    /// (bare, or an instance's archived keys as members). The writer opens a body with it and
    /// the readers of places (`ReadablePlaceSteps`) step through it: one answer for both.
    @inline(__always)
    func contentKey(of uid: Int, _ layout: BodyLayout) -> StaticString? {
        switch layout.opening {
        case .bare, .members: nil
        case .wrapped: layout.wrapperKey
        case .plist: MappingKeys.plist
        case .value: valueKey(of: uid)
        }
    }

    /// The key of value class entry `uid`'s one value: `ObjectForm.valueClassMembers`'s, but
    /// `$text` for data that is text and has no readable form, as the writer writes it
    /// (`JSONOutput.dataMembers`).
    func valueKey(of uid: Int) -> StaticString {
        let form = forms[uid]
        let (key, field) = form.valueClassMembers
        guard form == .classData, let ref = view.value(in: view.header(at: Int(archive.entryOffsets[uid])), forKey: field) else { return key }
        return writesText(view.header(of: ref)) ? MappingKeys.text : key
    }

    /// Whether data object `header` is written as text (`$text`, `$bytesText`): text, and no
    /// readable form of its bytes (`JSONOutput.dataMembers`). False for anything but data.
    func writesText(_ header: PlistObjectHeader) -> Bool {
        Self.writesText(header, archive: archive, view: view)
    }

    /// `writesText` for a reader that has the archive and its view but no shape.
    static func writesText(_ header: PlistObjectHeader, archive: KeyedArchive, view: BinaryPlistView) -> Bool {
        header.kind == .data && (archive.bytesForms.isEmpty || archive.bytesForms.mark(at: header.start) == nil) && DataText.isText(view.payload(header))
    }

    /// The member that holds a scalar written with `$id` (`{"$id": n, "$string": …}`; data
    /// that is text is `$text`, as `JSONOutput.dataMembers` writes it).
    static func scalarKey(_ form: ObjectForm) -> StaticString {
        switch form {
        case .string: MappingKeys.string
        case .data: MappingKeys.data
        case .plistDate: MappingKeys.plistDate
        default: MappingKeys.number
        }
    }

    /// The `$top` dictionary's entries, the document's own children in the envelope form.
    func topChildren() -> ChildList {
        ChildList(.topEntries, view.header(of: archive.topRef))
    }

    /// Child `position` of `list` (nil for a member the view leaves out: `$class`). An ordered
    /// set's children are read with `orderedChild` from its values in index order
    /// (`orderedSetValues`), which callers keep while they walk it; a folded attributed
    /// string's with `runChild`; a decimal's, calendar date's or time zone's with `formChild`
    /// (a call here, on the path every walk inlines for every body, costs every body).
    @inline(__always)
    func child(_ list: ChildList, at position: Int) -> Child? {
        switch list.walk {
        case .references:
            return Child(key: -1, value: view.childRef(from: list.first, position), role: .reference)
        case .keyedReferences:
            let keyUID = view.uidValue(of: view.childRef(from: list.first, position))
            return Child(key: view.childRef(objectsHeader, keyUID), value: view.childRef(from: list.second, position), role: .reference)
        case .pairs:
            return Child(key: -1, value: view.childRef(from: position & 1 == 0 ? list.first : list.second, position >> 1), role: .reference)
        case .ordered:
            preconditionFailure("an ordered set's children are read with orderedChild")
        case .objectMembers:
            let key = view.childRef(from: list.first, position)
            if archive.classKeys.contains(key) { return nil }
            return Child(key: key, value: view.childRef(from: list.first, list.count &+ position), role: .keyedValue)
        case .inlineMembers:
            if !list.isDictionary { return Child(key: -1, value: view.childRef(from: list.first, position), role: .keyedValue) }
            return Child(key: view.childRef(from: list.first, position), value: view.childRef(from: list.first, list.count &+ position), role: .keyedValue)
        case .topEntries:
            return Child(key: view.childRef(from: list.first, position), value: view.childRef(from: list.first, list.count &+ position), role: .topValue)
        case .attributedRuns:
            preconditionFailure("a folded attributed string's children are read with runChild")
        case .formMembers:
            preconditionFailure("a decimal's, calendar date's or time zone's children are read with formChild")
        }
    }

    /// Child `position` of a folded attributed string (`ChildList.attributedRuns`, from
    /// `archive.attributedRuns`): its text (0), or the attributes run `position - 1` brings
    /// (nil when it uses an earlier run's). Kept out of `child`, which every walk inlines for
    /// every body: this case is rare. Static and out of line, as `orderedSetValues`.
    @inline(never)
    static func runChild(_ folds: AttributedRunFolds, _ list: ChildList, at position: Int) -> Child? {
        let fold = folds.folds[list.first]
        if position == 0 { return Child(key: -1, value: fold.string, role: .keyedValue) }
        let attributes = fold.attributes(ofRun: position - 1)
        return attributes >= 0 ? Child(key: -1, value: attributes, role: .reference) : nil
    }

    /// Child `position` of a folded list (`ChildList.Walk.isFolded`): `runChild`'s or
    /// `formChild`'s. One call out of line for both, so that a walk that meets either pays one
    /// test per child for them.
    @inline(never)
    static func foldedChild(_ folds: AttributedRunFolds, _ view: BinaryPlistView, _ list: ChildList, at position: Int) -> Child? {
        list.walk == .attributedRuns ? runChild(folds, list, at: position) : formChild(view, list, at: position)
    }

    /// Child `position` of a decimal, calendar date or time zone (`ChildList.formMembers`): its
    /// reference members in the form's order (`ValueObjectForms.referenceMembers`). Static and
    /// out of line, as `runChild`.
    @inline(never)
    static func formChild(_ view: BinaryPlistView, _ list: ChildList, at position: Int) -> Child? {
        let header = PlistObjectHeader(kind: .dict, marker: 0, start: list.first, count: list.second)
        let member = ValueObjectForms.referenceMembers(view, header)[position]
        guard let value = view.value(in: header, forKey: member.key) else { return nil }
        return Child(key: -1, value: value, role: .reference)
    }

    /// Run `position - 1` of a folded attributed string's children (`ChildList.attributedRuns`,
    /// position 1 or more): its length, and the run whose attributes it uses (nil: its own,
    /// the child at `position`).
    @inline(__always)
    func run(_ list: ChildList, at position: Int) -> (length: Int, attributesOf: Int?) {
        let fold = archive.attributedRuns.folds[list.first]
        let slot = fold.slots[position - 1]
        return (fold.lengths[position - 1], slot >= 0 ? nil : -1 - slot)
    }

    /// Child `position` of an ordered set, from its `orderedSetValues`.
    @inline(__always)
    func orderedChild(_ values: [Int], at position: Int) -> Child {
        Child(key: -1, value: values[position], role: .reference)
    }

    /// The values of an ordered set's `NS.object.N` keys in index order (shape checked at
    /// parse). Not inlined: its temporaries would sit in the caller's frame, on the recursion.
    /// Static: a method would take the shape, copied, as its `self`.
    @inline(never)
    static func orderedSetValues(_ list: ChildList, _ view: BinaryPlistView) -> [Int] {
        guard list.walk == .ordered else { return [] }
        let header = PlistObjectHeader(kind: .dict, marker: 0, start: list.first, count: list.count + 1)
        var values = [Int](filledWith: 0, count: max(header.count - 1, 0))
        for index in 0..<header.count {
            var scalars: [UInt32] = []
            ScalarIdentity.forEachScalar(view, view.header(of: view.childRef(header, index))) { scalars.append($0) }
            guard scalars.count > 10, scalars[0] == UInt32(UInt8(ascii: "N")) else { continue }  // skips "$class"
            var position = 0
            for scalar in scalars[10...] { position = position * 10 + Int(scalar) - 0x30 }
            values[position] = view.childRef(header, header.count + index)
        }
        return values
    }

    // MARK: Classes

    /// The brackets `$class`, `$classes` and `$classhints` open in a body: 1 (its own braces),
    /// or 2 when a chain or hints array is written.
    @inline(__always)
    func metaHeight(_ uid: Int) -> Int { classTraits(of: uid).metaHeight }

    /// Whether `uid`'s class is `defaultClass`, so its body goes without `$class`.
    @inline(__always)
    func namesDefault(_ uid: Int, _ defaultClass: DefaultClass) -> Bool { classTraits(of: uid).names(defaultClass) }

    /// Whether entry `uid`, written without `$id` as a bare array or dictionary, takes a
    /// wrapper (one level more) when it carries one.
    func wrapsWhenCarryingID(_ uid: Int) -> Bool {
        let traits = classTraits(of: uid)
        switch forms[uid] {
        case .array: return traits.isBare(.array)
        case .stringKeyDictionary: return traits.isBare(.dictionary)
        default: return false
        }
    }

    @inline(__always)
    private func classTraits(of uid: Int) -> ClassTraits {
        let index = Int(archive.classOf[uid])
        return index >= 0 ? classTraits[index] : ClassTraits.none
    }

    // MARK: Values

    /// The form a value stored in an object's own dictionary or an inline container takes.
    @inline(__always)
    func keyedValueForm(_ header: PlistObjectHeader) -> KeyedValueForm {
        switch header.kind {
        case .uid: return .reference
        case .int, .real, .bool: return .number
        case .data: return .bytes
        default: return .inline
        }
    }

    /// The readable form data object `header`'s bytes take inside their `$bytes` or `$data`
    /// wrapper (`BytesFormMarks`), with the colour space label of its components
    /// (`ColorSpaceLabel`), or nil for base64 text.
    @inline(__always)
    func bytesFormMark(_ header: PlistObjectHeader) -> (form: BytesForm, label: ColorSpaceLabel.Text?)? {
        guard hasBytesForms, let mark = archive.bytesForms.mark(at: header.start) else { return nil }
        return (mark.form, archive.bytesForms.label(of: mark))
    }

    /// The brackets data object `header`'s content opens inside its wrapper: 0 for base64
    /// text, `formHeight` for a readable form.
    @inline(__always)
    func bytesFormHeight(_ header: PlistObjectHeader, _ numbers: NumberWrapping) -> Int {
        guard hasBytesForms, let mark = archive.bytesForms.mark(at: header.start) else { return 0 }
        return mark.height(numbers)
    }

    /// The brackets a readable form with `content` opens: its object, its array, the pairs'
    /// arrays (`$ranges`, `$runs`), and a number's own wrapper where the mapping's number
    /// writers write one (`NumberWrapping`: `$integer` with `exactIntegers`, `$real` for a
    /// whole component with `exactNumbers`). `ReadableWriter.writeBytesForm` writes exactly this.
    static func formHeight(_ form: BytesForm, _ content: BytesForm.Content, _ numbers: NumberWrapping) -> Int {
        switch content {
        case .components(let text):
            return 2 + (text.components.contains { numbers.wraps($0) } ? 1 : 0)
        case .varints(let values):
            let wrapped = values.contains { numbers.wraps(PlistInteger(unsigned: $0)) }
            return (form == .indexes ? 2 : 3) + (wrapped ? 1 : 0)
        }
    }

    /// The form of the content of an `$inline` wrapper (or of a `$top` value that is not a UID).
    @inline(__always)
    func inlineBodyForm(_ header: PlistObjectHeader) -> InlineBodyForm {
        switch header.kind {
        case .asciiString, .utf16String: return .string
        case .date: return .plistDate
        case .array, .dict: return .container
        default: return .keyedValue
        }
    }
}

/// How a body opens and closes, and where its children stand (`ReadableShape.layout`).
struct BodyLayout {
    enum Opening: UInt8 {
        /// `[…]` or `{…}` itself: an NSArray or string-key NSDictionary of the default class without `$id`.
        case bare
        /// `{$class…, $id…, "$array": […]}` (`$set`, `$orderedSet`, `$dict` with `{…}` or
        /// `[[key, value], …]`): a collection with a class or an identity to say.
        case wrapped
        /// `{$class…, $id…, key: value, …}`: a class instance's archived keys as members.
        case members
        /// `{$class…, $id…, "$string": …}`: one value and no children (NSMutableString, NSData
        /// kept as a class, NSDate, NSUUID).
        case value
        /// `{$id…, "$plist": container}`: a plain plist array or dictionary stored as an object.
        case plist
    }

    let opening: Opening
    let children: ChildList
    /// The class whose name goes without `$class`; for `wrapped`, also the wrapper's key.
    let defaultClass: DefaultClass

    /// The key of a `wrapped` body's container.
    var wrapperKey: StaticString {
        switch defaultClass {
        case .array: return MappingKeys.array
        case .set: return MappingKeys.set
        case .orderedSet: return MappingKeys.orderedSet
        default: return MappingKeys.dict
        }
    }

    /// The brackets open around each child inside the body: 1 bare or as a member, 2 in a
    /// wrapper's container, 3 in a `$dict` pair; an inline container's members stand in the
    /// container, inside the `$plist` or `$inline` wrapper.
    var childLevel: Int {
        switch opening {
        case .bare, .members, .value: return 1
        case .wrapped: return children.walk == .pairs ? 3 : 2
        case .plist: return 2
        }
    }

    /// The brackets a body leaves open after its last child, innermost first.
    struct Closing: OptionSet {
        let rawValue: UInt8
        /// The children's container, an array or an object.
        static let array = Closing(rawValue: 1)
        static let object = Closing(rawValue: 2)
        /// The wrapper object around the container, or the body's own object.
        static let wrapper = Closing(rawValue: 4)
    }

    /// What `closing` writes, in one byte: the writer keeps it, not the layout, across the
    /// children's recursion.
    var closing: Closing {
        let container: Closing = containerIsObject ? .object : .array
        switch opening {
        case .bare: return container
        case .wrapped, .plist: return [container, .wrapper]
        case .members, .value: return children.walk == .attributedRuns ? [.array, .wrapper] : .wrapper
        }
    }

    /// Whether the children's container is a JSON object (keys) rather than an array.
    var containerIsObject: Bool { children.walk == .keyedReferences || (children.walk == .inlineMembers && children.isDictionary) }
}

/// Where the children of a body or container are, and how many positions it has (a position
/// may be a member the view leaves out, or one half of a `$dict` pair). Four words of plain
/// values: walkers stack them without reference counting, and the writer's frames, one per
/// nesting level, stay small (`StackBudget`).
struct ChildList {
    enum Walk: UInt8 {
        /// UIDs in one plist array (NSArray, NSSet items).
        case references
        /// Key UIDs (their strings written as keys) and value UIDs in two arrays (string-key NSDictionary).
        case keyedReferences
        /// Keys and values alternately, each a reference, two positions per `[key, value]` pair.
        case pairs
        /// A class instance's own dictionary, `$class` left out.
        case objectMembers
        /// A plist array or dictionary written in place.
        case inlineMembers
        /// The `$top` dictionary.
        case topEntries
        /// An ordered set's values in index order (`ReadableShape.orderedSetValues`).
        case ordered
        /// A folded attributed string (`AttributedRunFolds`): position 0 its text, written under
        /// `$string`; position 1 + k run k, written `{"$length": n, "$attributes": child}` in
        /// `$runs` (or `{"$length": n, "$attributesOf": j}`, no child), read with
        /// `ReadableShape.runChild`. `first` is the fold's index in `AttributedRunFolds.folds`.
        case attributedRuns
        /// A decimal's, calendar date's or time zone's own dictionary (`ValueObjectForms`): the
        /// keys that stay references, in the form's order whatever the archive's (so that the
        /// encoder, which writes that order, gives the same text back), each a `reference`
        /// child written under its readable member (`ValueObjectForms.referenceMembers`);
        /// `first` is the dictionary's start, `second` its count (`ReadableShape.formChild`).
        case formMembers

        /// `attributedRuns` or `formMembers`: children read out of line (`foldedChild`), not
        /// with `child`. (The last cases: one comparison.)
        var isFolded: Bool { rawValue >= Self.attributedRuns.rawValue }

        /// `ordered`, `attributedRuns` or `formMembers`: children not read with `child`. (The
        /// last cases: the walks ask one comparison of every list.)
        var readsOutOfLine: Bool { rawValue >= Self.ordered.rawValue }
    }

    let walk: Walk
    /// Whether the plist container walked is a dictionary (`inlineMembers`).
    let isDictionary: Bool
    let count: Int
    /// Where the references of the keys (or the only list) and of the values begin
    /// (`BinaryPlistView.childRef(from:_:)`).
    let first: Int
    let second: Int

    /// No children.
    static let none = ChildList(walk: .references, isDictionary: false, count: 0, first: 0, second: 0)

    private init(walk: Walk, isDictionary: Bool, count: Int, first: Int, second: Int) {
        self.walk = walk
        self.isDictionary = isDictionary
        self.count = count
        self.first = first
        self.second = second
    }

    /// Keys and values in two plist arrays.
    init(_ walk: Walk, _ keys: PlistObjectHeader, _ values: PlistObjectHeader, count: Int) {
        self.init(walk: walk, isDictionary: false, count: count, first: keys.start, second: values.start)
    }

    /// The members of one plist array or dictionary: a dictionary's values follow its `count` keys.
    init(_ walk: Walk, _ container: PlistObjectHeader, count: Int? = nil) {
        let isDictionary = container.kind == .dict
        self.init(walk: walk, isDictionary: isDictionary, count: count ?? container.count, first: container.start, second: container.start)
    }

    static func inlineMembers(of header: PlistObjectHeader) -> ChildList { ChildList(.inlineMembers, header) }

    /// The `count` reference members of a decimal, calendar date or time zone whose own
    /// dictionary is `header` (`Walk.formMembers`).
    static func formMembers(of header: PlistObjectHeader, count: Int) -> ChildList {
        ChildList(walk: .formMembers, isDictionary: true, count: count, first: header.start, second: header.count)
    }

    /// The text and `runs` runs of fold number `fold` (`AttributedRunFolds.folds`).
    static func attributedRuns(fold: Int, runs: Int) -> ChildList {
        ChildList(walk: .attributedRuns, isDictionary: false, count: 1 + runs, first: fold, second: 0)
    }
}

/// One child: its key text (a plist string), its value, and how the value is read.
struct Child {
    enum Role {
        /// A UID: an object reference, numbers bare.
        case reference
        /// An archived key's value or an inline container's member (`KeyedValueForm`): a UID is
        /// a reference in key context (numbers `$number`), numbers and booleans are inline.
        case keyedValue
        /// A `$top` value: a UID is a reference, anything else `{"$inline": …}`.
        case topValue
    }

    /// The plist string written as the child's key, or −1.
    var key: Int
    /// The child's plist object.
    var value: Int
    var role: Role
}

/// The form of a value stored in an object's own dictionary or an inline container.
enum KeyedValueForm {
    /// A UID: a reference in key context.
    case reference
    /// An integer, real or boolean written bare (`$integer`, `$real` when it must).
    case number
    /// `{"$bytes": …}`.
    case bytes
    /// `{"$inline": …}`.
    case inline
}

/// The form of an `$inline` wrapper's content.
enum InlineBodyForm {
    case string
    /// `{"$plistDate": …}`.
    case plistDate
    /// A plist array or dictionary, its members `keyedValue`s.
    case container
    /// Anything else, as a keyed value.
    case keyedValue
}

/// What a body's layout reads of its class: whether the name is the default of a wrapper
/// (bit per `DefaultClass`), whether a plain chain allows the bare form, and the brackets its
/// meta keys open.
struct ClassTraits {
    private let namesDefault: UInt8
    private let isPlain: Bool
    let metaHeight: Int

    /// No class (a plain plist stored as an object).
    static let none = ClassTraits(namesDefault: 0, isPlain: false, metaHeight: 1)

    private init(namesDefault: UInt8, isPlain: Bool, metaHeight: Int) {
        self.namesDefault = namesDefault
        self.isPlain = isPlain
        self.metaHeight = metaHeight
    }

    init(_ info: KeyedArchive.ClassInfo) {
        var names: UInt8 = 0
        for candidate in [DefaultClass.array, .set, .orderedSet, .dictionary, .date, .uuid] where info.name == candidate.name {
            names |= 1 << candidate.rawValue
        }
        namesDefault = names
        isPlain = info.isPlain
        metaHeight = (!info.isDefaultChain && info.chain != nil) || info.hints != nil ? 2 : 1
    }

    /// Whether `$class` may go unwritten in a body whose wrapper's default is `defaultClass`.
    @inline(__always)
    func names(_ defaultClass: DefaultClass) -> Bool { defaultClass != .none && namesDefault & (1 << defaultClass.rawValue) != 0 }

    /// Whether an instance without `$id` is written bare (an array or dictionary of the default class, plain chain).
    @inline(__always)
    func isBare(_ defaultClass: DefaultClass) -> Bool { isPlain && names(defaultClass) }
}
