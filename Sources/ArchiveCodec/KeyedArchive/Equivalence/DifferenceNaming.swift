/// Names a difference the equivalence walk found (`EquivalenceChecker.Mismatch`) in the first
/// archive's readable view: the place as a `DocumentPath` through the keys and `$id`s that
/// `archive-tool decode` prints, and both values as that view spells them (`ShownValue`).
///
/// The place of an entry's body is where `Placement` puts it: an entry written with `$id`
/// is named by it (`Placement.writtenID(of:)`, the only source of the number written), the
/// root object is the document itself, and any other entry has one reference, the one the
/// walk came through, so its body stands there. A scalar written without `$id` stands at
/// every reference: it is named by the walk's. Built only once a difference is found (it
/// places the whole archive); iterative, as the walk is.
struct DifferenceNaming {
    typealias Label = EquivalenceChecker.Label
    typealias Step = DocumentPath.Step

    let checker: EquivalenceChecker
    let places: ReadablePlaceSteps
    private var rootUID: Int { places.rootUID }
    private var placement: Placement { places.placement }
    private var left: KeyedArchive { checker.left }
    private var l: BinaryPlistView { checker.l }

    init(checker: EquivalenceChecker) {
        self.checker = checker
        places = ReadablePlaceSteps(archive: checker.left, view: checker.l, placement: checker.left.defaultPlacement())
    }

    typealias Context = ReadablePlaceSteps.Context

    /// A place in the readable view and how the value there is spelled.
    struct Place {
        var path: DocumentPath
        var context: Context
    }

    // MARK: Mismatches

    func name(_ mismatch: EquivalenceChecker.Mismatch, at: Int) -> DocumentDifference {
        switch mismatch {
        case .topKeys(let a, let b):
            return DocumentDifference(path: placement.envelope ? DocumentPath([.mapping(MappingKeys.top)]) : .root, detail: Self.keysDetail(a, b))
        case .values(let a, let b):
            return values(a, b, at: at)
        case .lengths(let a, let b):
            let place = place(of: at)
            let (x, y) = (l.header(of: a).count, checker.r.header(of: b).count)
            return DocumentDifference(path: place.path, detail: "\(x) \(place.context == .dictionaryKey ? "members" : "elements") ≠ \(y)")
        case .keys(let a, let b):
            let keys = { (list: [String]) in list.filter { $0 != String(describing: MappingKeys.className) } }
            return DocumentDifference(path: place(of: at).path, detail: Self.keysDetail(keys(a), keys(b)))
        case .nilAgainstObject(let a, let b):
            let place = place(of: at)
            return DocumentDifference(path: place.path, detail: ShownValue.pair(entry(a, side: .left, place.context), entry(b, side: .right, place.context)))
        case .sharedInFirst(let a, let b) where left.forms[a].isScalar, .sharedInSecond(_, let a, let b) where left.forms[a].isScalar:
            return sharedValue(a, b, at: at)
        case .sharedInFirst(let a, _):
            return DocumentDifference(path: place(of: at).path, detail: "$id \(placement.writtenID(of: a)) ≠ another object (the second does not share it here)")
        case .sharedInSecond(let other, _, _):
            let there = body(of: other, reference: checker.pairingStep(of: other)).map { "\($0)" } ?? "elsewhere"
            return DocumentDifference(path: place(of: at).path, detail: "an object of its own ≠ the object at \(there) (the second shares it here)")
        case .classes(let a, let b):
            return DocumentDifference(path: body(of: a, reference: at) ?? place(of: at).path, detail: classDetail(a, b))
        case .instanceAgainstPlain(let a, let b):
            let detail = ShownValue.pair(entry(a, side: .left, .reference), entry(b, side: .right, .reference))
            return DocumentDifference(path: body(of: a, reference: at) ?? place(of: at).path, detail: detail)
        }
    }

    /// Strings, numbers and data are values: one entry shared where the other archive has two
    /// (or the other way round) differ as values when the values differ, else as entries (an
    /// equal value kept apart is written with `$id`).
    private func sharedValue(_ a: Int, _ b: Int, at: Int) -> DocumentDifference {
        let place = place(of: at)
        let shown = (entry(a, side: .left, place.context), entry(b, side: .right, place.context))
        guard shown.0 == shown.1 else { return DocumentDifference(path: place.path, detail: ShownValue.pair(shown.0, shown.1)) }
        return DocumentDifference(path: place.path, detail: ShownValue.pair(shown.0, shown.1) + " (equal values, shared in one archive and not in the other)")
    }

    /// Two plist values of other types or contents at step `at` (an entry itself when its
    /// label is a UID).
    private func values(_ a: Int, _ b: Int, at: Int) -> DocumentDifference {
        let place = place(of: at)
        let r = checker.r
        var shown: (ShownValue, ShownValue)
        if case .uid = label(at), case .scalarBody = place.context {
            shown = (plain(a, side: .left, place.context), plain(b, side: .right, place.context))
        } else if case .uid(let uid) = label(at), let partner = checker.leftToRight[uid] {
            shown = (entry(uid, side: .left, place.context), entry(partner, side: .right, place.context))
        } else {
            shown = (plain(a, side: .left, place.context), plain(b, side: .right, place.context))
        }
        if place.context == .field(.decimal), let texts = decimalTexts(at: at) {
            return DocumentDifference(path: place.path, detail: ShownValue.pair(texts.0, texts.1))
        }
        let (x, y) = (l.header(of: a), r.header(of: b))
        guard x.kind == .data, y.kind == .data else { return DocumentDifference(path: place.path, detail: ShownValue.pair(shown.0, shown.1)) }
        // Where the base64 text stands: an NSData entry's `{"$data": …}` (its `$data` member
        // already when it carries `$id`), inline bytes' `{"$bytes": …}`, an NSMutableData's `$data`.
        var data = place.path
        if case .uid = label(at) {
            if case .scalarBody = place.context {} else { data.append(.mapping(MappingKeys.data)) }
        } else if place.context == .keyed {
            data.append(.mapping(MappingKeys.bytes))
        }
        return NestedPayload.differenceOfData(l.payload(x), r.payload(y), nesting: checker.payloadNesting, place: place.path, data: data, shown: shown)
    }

    /// Two decimals that differ in one of their folded keys, shown whole as `$decimal` writes
    /// them (a key alone, an exponent or a mantissa's bytes, says little); nil when the second
    /// has no decimal form.
    private func decimalTexts(at: Int) -> (ShownValue, ShownValue)? {
        var step = at
        while step >= 0 {
            if case .uid(let uid) = label(step) {
                guard let partner = checker.leftToRight[uid] else { return nil }
                func text(_ archive: KeyedArchive, _ view: BinaryPlistView, _ uid: Int) -> ShownValue? {
                    guard archive.forms[uid] == .decimal,
                        let (value, compact) = ValueObjectForms.decimal(view, view.header(at: Int(archive.entryOffsets[uid])), archive.classKeys)
                    else { return nil }
                    return ShownValue(json: DocumentPath.quoted(value.text) + (compact ? "" : " (\"$compact\": false)"))
                }
                guard let left = text(left, l, uid), let right = text(checker.right, checker.r, partner) else { return nil }
                return (left, right)
            }
            step = checker.steps[step].parent
        }
        return nil
    }

    /// `"a", "b" only in the first; "c" only in the second`.
    static func keysDetail(_ a: [String], _ b: [String]) -> String {
        let (x, y) = (Set(a), Set(b))
        func list(_ keys: [String]) -> String { keys.map { DocumentPath.quoted($0) }.joined(separator: ", ") }
        var parts: [String] = []
        let onlyFirst = a.filter { !y.contains($0) }
        let onlySecond = b.filter { !x.contains($0) }
        if !onlyFirst.isEmpty { parts.append("keys \(list(onlyFirst)) only in the first") }
        if !onlySecond.isEmpty { parts.append("keys \(list(onlySecond)) only in the second") }
        return parts.isEmpty ? "keys differ" : parts.joined(separator: "; ")
    }

    /// The classes of two instances: their names, else their chains, else their hints.
    private func classDetail(_ a: Int, _ b: Int) -> String {
        let (x, y) = (left.classInfos[Int(left.classOf[a])], checker.right.classInfos[Int(checker.right.classOf[b])])
        func names(_ list: [String]?) -> String { list.map { "[" + $0.map(DocumentPath.quoted).joined(separator: ", ") + "]" } ?? "null" }
        if x.name != y.name { return "{\"$class\": \(DocumentPath.quoted(x.name)), …} ≠ {\"$class\": \(DocumentPath.quoted(y.name)), …}" }
        if x.chain != y.chain { return "\"$classes\": \(names(x.chain)) ≠ \(names(y.chain))" }
        return "\"$classhints\": \(names(x.hints)) ≠ \(names(y.hints))"
    }

    // MARK: Places

    private func label(_ step: Int) -> Label { checker.steps[step].label }

    /// Where entry `uid`'s body stands, `reference` being the step of the walk's reference to
    /// it: the root, `$id n`, or that reference's place; nil without a reference.
    func body(of uid: Int, reference: Int?) -> DocumentPath? {
        if uid == rootUID { return .root }
        if placement.carriesID[uid] { return DocumentPath([.anchor(placement.writtenID(of: uid))]) }
        return reference.map { place(of: $0).path }
    }

    /// The place in the readable view of the value that step `at` reaches (−1: the `$top`
    /// dictionary), from the root or from the nearest body written with `$id`.
    func place(of at: Int) -> Place {
        guard at >= 0 else { return Place(path: placement.envelope ? DocumentPath([.mapping(MappingKeys.top)]) : .root, context: .reference) }
        var current = at
        var context: Context?
        if case .uid(let uid) = label(at), left.forms[uid].isScalar {
            // A scalar stands at its reference, unless it carries `$id`.
            if placement.carriesID[uid] {
                let form = left.forms[uid]
                return Place(path: DocumentPath([.anchor(placement.writtenID(of: uid)), .mapping(ReadableShape.scalarKey(form))]), context: .scalarBody(form))
            }
            current = checker.steps[at].parent
        }
        var reversed: [Step] = []
        while current >= 0 {
            if case .uid(let uid) = label(current) {
                if uid == rootUID { break }
                if placement.carriesID[uid] {
                    reversed.append(.anchor(placement.writtenID(of: uid)))
                    break
                }
                context = context ?? .reference
                current = checker.steps[current].parent
                continue
            }
            // The labels inside one entry's plist object (or `$top`), up to the entry's step.
            var relative: [Label] = []
            var owner = current
            while owner >= 0 {
                let step = checker.steps[owner]
                if case .uid = step.label { break }
                relative.append(step.label)
                owner = step.parent
            }
            relative.reverse()
            let (steps, found) = places.translate(relative, in: owner >= 0 ? ownerUID(owner) : nil)
            context = context ?? found
            reversed.append(contentsOf: steps.reversed())
            current = owner
        }
        return Place(path: DocumentPath(reversed.reversed()), context: context ?? .reference)
    }

    private func ownerUID(_ step: Int) -> Int {
        guard case .uid(let uid) = label(step) else { return 0 }
        return uid
    }

    // MARK: Values

    enum Side { case left, right }

    private func side(_ side: Side) -> (KeyedArchive, BinaryPlistView) {
        side == .left ? (checker.left, checker.l) : (checker.right, checker.r)
    }

    /// Entry `uid` where it is referenced, shortly: a scalar as the view writes it, any other
    /// object by its class (`{"$class": "Team", …}`, `[…]`, `{…}`).
    func entry(_ uid: Int, side which: Side, _ context: Context) -> ShownValue {
        let (archive, view) = side(which)
        guard uid != 0 else { return ShownValue(json: "null") }
        let form = archive.forms[uid]
        let ref = archive.entryRef(uid, view)
        if form.isScalar {
            let header = view.header(of: ref)
            switch form {
            case .string: return ShownValue(text: checker.string(view, ref) ?? "", prefix: context == .dictionaryKey ? "key " : "")
            case .data: return ShownValue(bytes: view.payload(header), prefix: "{\"$data\": ", suffix: "}")
            case .plistDate: return ShownValue(json: "{\"$plistDate\": \(Self.json(view, header))}")
            default: return ShownValue(json: context == .keyed ? "{\"$number\": \(Self.json(view, header))}" : Self.json(view, header))
            }
        }
        let classIndex = Int(archive.classOf[uid])
        let name = classIndex >= 0 ? archive.classInfos[classIndex].name : nil
        switch form {
        case .rawArray: return ShownValue(json: "{\"$plist\": […]}")
        case .rawDict: return ShownValue(json: "{\"$plist\": {…}}")
        case .array where name == FoundationClasses.defaultArrayClass: return ShownValue(json: "[…]")
        case .stringKeyDictionary where name == FoundationClasses.defaultDictionaryClass: return ShownValue(json: "{…}")
        default: return ShownValue(json: "{\"$class\": \(DocumentPath.quoted(name ?? "")), …}")
        }
    }

    /// Plist value `ref` of side `which`, spelled as `context` says.
    func plain(_ ref: Int, side which: Side, _ context: Context) -> ShownValue {
        let (archive, view) = side(which)
        let header = view.header(of: ref)
        if header.kind == .uid { return entry(Int(view.uid(header)), side: which, context) }
        switch context {
        case .keyed:
            switch header.kind {
            case .int, .real, .bool: return ShownValue(json: Self.json(view, header))
            case .data: return ShownValue(bytes: view.payload(header), prefix: "{\"$bytes\": ", suffix: "}")
            case .asciiString, .utf16String: return ShownValue(text: checker.string(view, ref) ?? "", prefix: "{\"$inline\": ", suffix: "}")
            case .date: return ShownValue(json: "{\"$inline\": {\"$plistDate\": \(Self.json(view, header))}}")
            case .array: return ShownValue(json: "{\"$inline\": […]}")
            default: return ShownValue(json: "{\"$inline\": {…}}")
            }
        case .dictionaryKey:
            return ShownValue(text: checker.string(view, ref) ?? "", prefix: "key ")
        case .field(.uuid) where header.kind == .data && header.count == 16:
            return ShownValue(json: "\"" + String(decoding: ReadableWriter.uuidText(view.payload(header)), as: UTF8.self) + "\"")
        case .field(.classData) where ReadableShape.writesText(header, archive: archive, view: view):
            // Written `{"$text": "…"}`: shown as the text it is.
            return ShownValue(text: String(decoding: view.payload(header), as: UTF8.self))
        case .field(.date) where header.kind == .real, .field(.calendarDate) where header.kind == .real:
            var out = JSONOutput(pretty: false)
            out.mappedTime(view.real(header), .nonFinite)
            return ShownValue(json: String(decoding: out.finish(), as: UTF8.self))
        default:
            switch header.kind {
            case .asciiString, .utf16String: return ShownValue(text: checker.string(view, ref) ?? "")
            case .data: return ShownValue(bytes: view.payload(header))
            case .array: return ShownValue(json: "[…]")
            case .dict: return ShownValue(json: "{…}")
            default: return ShownValue(json: Self.json(view, header))
            }
        }
    }

    /// A number, boolean or date as the view writes it.
    static func json(_ view: BinaryPlistView, _ header: PlistObjectHeader) -> String {
        var out = JSONOutput(pretty: false)
        switch header.kind {
        case .int: out.mappedInteger(view.integer(header), .nonFinite)
        case .real: out.mappedReal(view.real(header), .nonFinite)
        case .bool: out.bool(view.bool(header))
        case .date: out.mappedTime(view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8)), .nonFinite)
        default: out.null()
        }
        return String(decoding: out.finish(), as: UTF8.self)
    }
}
