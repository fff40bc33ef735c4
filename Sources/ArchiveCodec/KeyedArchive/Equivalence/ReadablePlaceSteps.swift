/// The steps of the readable view (`DocumentPath`) that lead from an entry's body to a value
/// inside its plist object: the key the body holds its content under (`$array`/`$set`/`$dict`/
/// `$orderedSet` where the form wraps its list, `$plist`, a value class's field), taken from
/// `ReadableShape.contentKey` as the writer takes it, then a member by its data key, an
/// element, `$inline` around plain plist values. Shared by the names of differences
/// (`DifferenceNaming`) and the summary's paths of the largest values (`KeyedSummaryPaths`), so
/// both name a place as the readable writer lays it out (`ReadableShape`).
struct ReadablePlaceSteps {
    typealias Label = EquivalenceChecker.Label
    typealias Step = DocumentPath.Step

    let archive: KeyedArchive
    let view: BinaryPlistView
    let placement: Placement
    let shape: ReadableShape
    /// The root object's UID when the document is the root object itself (−1: the envelope).
    let rootUID: Int

    init(archive: KeyedArchive, view: BinaryPlistView, placement: Placement) {
        self.archive = archive
        self.view = view
        self.placement = placement
        shape = ReadableShape(archive: archive, view: view)
        rootUID = placement.envelope ? -1 : view.uidValue(of: view.childRef(view.header(of: archive.topRef), 1))
    }

    /// How a value at a place is spelled in the readable view.
    enum Context: Equatable {
        /// Inside an object's archived keys or an inline container: numbers bare, data
        /// `{"$bytes": …}`, other plist values `{"$inline": …}`, a UID the entry in key context.
        case keyed
        /// A reference from a collection or `$top`: the entry it names.
        case reference
        /// The one value of a Foundation value class (`$string`, `$data`, `$date`, `$uuid`).
        case field(ObjectForm)
        /// The value of a scalar written with `$id` (`{"$id": n, "$string": …}`).
        case scalarBody(ObjectForm)
        /// A key of a dictionary written with string keys.
        case dictionaryKey
    }

    /// The readable steps of `relative`, labels inside entry `owner`'s plist object (nil: the
    /// `$top` dictionary), and how the value they reach is spelled.
    func translate(_ relative: [Label], in owner: Int?) -> ([Step], Context) {
        guard let owner else {
            guard placement.envelope, case .top(let key)? = relative.first else { return ([], .reference) }
            let rest = relative.dropFirst()
            return ([.mapping(MappingKeys.top), DocumentPath.dataKey(key)] + Self.inlineSteps(rest), rest.isEmpty ? .reference : .keyed)
        }
        let form = archive.forms[owner]
        let index: Int? = relative.count > 1 ? { if case .index(let i) = relative[1] { return i } else { return nil } }() : nil
        if !archive.attributedRuns.isEmpty, let runs = attributedRunSteps(relative, in: owner, index: index) { return runs }
        // The key the writer opens the body with (`ReadableShape.contentKey`); a scalar has no body.
        let hasBody = !form.isScalar && form != .null
        let content: [Step] = hasBody ? shape.contentKey(of: owner, shape.layout(of: owner, carriesID: placement.carriesID[owner])).map { [.mapping($0)] } ?? [] : []
        switch form {
        case .array, .set:
            var steps = content
            if let index { steps.append(.index(index)) }
            return (steps, .reference)
        case .orderedSet:
            guard case .key(let key)? = relative.first, let position = Int(key.dropFirst("NS.object.".count)) else { return (content, .reference) }
            return (content + [.index(position)], .reference)
        case .stringKeyDictionary:
            var steps = content
            guard let index, case .key(let list)? = relative.first else { return (steps, .dictionaryKey) }
            let keys = view.header(of: KeyedArchive.keyList(archive.lists[owner]))
            let key = view.text(of: archive.entryRef(view.uidValue(of: view.childRef(keys, index)), view)) ?? ""
            steps.append(DocumentPath.dataKey(key))
            return (steps, list == "NS.keys" ? .dictionaryKey : .reference)
        case .pairDictionary:
            var steps = content
            guard let index, case .key(let list)? = relative.first else { return (steps, .reference) }
            steps += [.index(index), .index(list == "NS.keys" ? 0 : 1)]
            return (steps, .reference)
        case .mutableString, .classData, .date, .uuid:
            return (content, .field(form))
        case .decimal, .calendarDate, .timeZone:
            // A reference under its readable member; a folded key in the member it is folded into.
            guard case .key(let key)? = relative.first else { return ([], .reference) }
            if let member = ValueObjectForms.referenceMember(named: key) { return ([.mapping(member)], .reference) }
            return ([.mapping(ValueObjectForms.foldedMember(form))], .field(form))
        default:
            // An instance's members stand in its body; a stored plist's in `$plist`.
            guard let first = relative.first else { return (content, .keyed) }
            return (content + [Self.step(first)] + Self.inlineSteps(relative.dropFirst()), .keyed)
        }
    }

    /// The steps inside a folded attributed string (`AttributedRunFolds`) or the array and data
    /// entries its runs stand for: `NSString` is `$string`, an attribute dictionary the
    /// `$attributes` of the run that brings it, the runs' data `$runs` itself; nil elsewhere.
    private func attributedRunSteps(_ relative: [Label], in owner: Int, index: Int?) -> ([Step], Context)? {
        let folds = archive.attributedRuns
        if let fold = folds.index(of: owner) {
            guard case .key(let key)? = relative.first else { return nil }
            switch key {
            case "NSString": return ([.mapping(MappingKeys.string)], .keyed)
            case "NSAttributes" where folds.folds[fold].array < 0: return ([.mapping(MappingKeys.runs), .index(0), .mapping(MappingKeys.attributes)], .reference)
            default: return ([.mapping(MappingKeys.runs)], .reference)
            }
        }
        guard let fold = folds.index(ofPart: owner) else { return nil }
        guard owner == folds.folds[fold].array, let index, let run = folds.folds[fold].firstRun(ofSlot: index) else { return ([], .reference) }
        return ([.index(run), .mapping(MappingKeys.attributes)], .reference)
    }

    /// Members and elements of inline containers: each inside its `{"$inline": …}`.
    static func inlineSteps(_ labels: ArraySlice<Label>) -> [Step] {
        labels.flatMap { [.mapping(MappingKeys.inline), step($0)] }
    }

    static func step(_ label: Label) -> Step {
        switch label {
        case .top(let key), .key(let key): return DocumentPath.dataKey(key)
        case .index(let index): return .index(index)
        case .uid: preconditionFailure("a UID ends a run of labels inside one entry")
        }
    }
}
