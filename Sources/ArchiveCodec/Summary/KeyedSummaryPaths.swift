/// Names the places of a keyed archive's largest values in its readable view, as
/// `archive-tool compare` names places (`DocumentPath`), without writing or walking the view:
/// from the value up through the entries that hold it to the root or to the nearest entry
/// written with `$id` (`Placement`), each step inside an entry's plist object found by looking
/// through that object alone and translated as `DifferenceNaming` translates it
/// (`ReadablePlaceSteps`).
///
/// An entry written without `$id` has one reference (the one the summary's walk recorded in
/// `parents`), so its body stands there; a scalar written without `$id` stands at every
/// reference, and is named at the first one.
///
/// Cost per value: the plist objects of the entries on its way up, at most
/// `DocumentPath.shownSteps + 1` steps of them (a longer path is not written, so the walk
/// stops there: a chain of entries as long as the archive would otherwise be walked, and its
/// keys copied, for each value named), and the text of only the keys on the path, each cut
/// off past `ArchiveSummary.listedPathLength` (a path holding a longer key is not written).
struct KeyedSummaryPaths {
    typealias Step = DocumentPath.Step
    typealias Label = EquivalenceChecker.Label

    /// `parents[uid]`: the entry holding the first reference to `uid` met, `fromTop`, or
    /// `unreached`.
    static let fromTop: Int32 = -1
    static let unreached: Int32 = -2

    let places: ReadablePlaceSteps
    let parents: [Int32]
    private var archive: KeyedArchive { places.archive }
    private var view: BinaryPlistView { places.view }
    private var placement: Placement { places.placement }
    private var rootUID: Int { places.rootUID }

    init(archive: KeyedArchive, view: BinaryPlistView, placement: Placement, parents: [Int32]) {
        self.parents = parents
        places = ReadablePlaceSteps(archive: archive, view: view, placement: placement)
    }

    /// The steps to the value at `location` (for data, to the member holding its bytes or
    /// text); nil when it cannot be reached from the root.
    func steps(to location: ArchiveSummary.Location) -> [Step]? {
        let entry = archive.entryRef(location.owner, view)
        let isEntry = location.ref == entry
        var place: (steps: [Step], context: ReadablePlaceSteps.Context)
        if isEntry {
            guard let found = reference(to: location.owner) else { return nil }
            place = found
        } else {
            guard let body = body(of: location.owner), let labels = labels(in: entry, owner: location.owner, to: location.ref, isUID: false) else { return nil }
            let inner = places.translate(labels, in: location.owner)
            place = (body + inner.0, inner.1)
        }
        // An attributed string's run data (inline or an entry) is written as its runs
        // (`AttributedRunFolds`): the place is `$runs` itself.
        if !archive.attributedRuns.isEmpty, place.steps.last == .mapping(MappingKeys.runs) { return place.steps }
        let header = view.header(of: location.ref)
        // Bytes in a readable form (`BytesForm`) stand under `$bytes` whatever they hold.
        let isText = places.shape.writesText(header)
        switch (header.kind, place.context, isEntry) {
        case (.data, .keyed, false): place.steps.append(.mapping(isText ? MappingKeys.bytesText : MappingKeys.bytes))
        case (.data, .field, _): break
        case (.data, .scalarBody, _): place.steps[place.steps.count - 1] = .mapping(isText ? MappingKeys.text : MappingKeys.data)
        case (.data, _, _): place.steps.append(.mapping(isText ? MappingKeys.text : MappingKeys.data))
        case (_, .keyed, false): place.steps.append(.mapping(MappingKeys.inline))
        default: break
        }
        return place.steps
    }

    /// Where entry `uid`'s body stands: the root, `$id n`, or its reference's place.
    private func body(of uid: Int) -> [Step]? {
        reference(to: uid)?.steps
    }

    /// The place of the reference to entry `uid` (its body, unless it carries `$id`: then the
    /// body, `$id n`, and for a scalar the member holding its value) and how the value there
    /// is spelled.
    private func reference(to uid: Int) -> (steps: [Step], context: ReadablePlaceSteps.Context)? {
        var segments: [[Step]] = []
        var context: ReadablePlaceSteps.Context?
        var current = uid
        var steps = 0
        for _ in 0...archive.objectCount {
            // Past the steps a written path holds: the path leads nowhere (`Archive.summary`).
            guard steps <= DocumentPath.shownSteps else { return nil }
            if current == rootUID { return (segments.reversed().flatMap { $0 }, context ?? .reference) }
            if placement.carriesID[current] {
                let form = archive.forms[current]
                let anchor: [Step] = [.anchor(placement.writtenID(of: current))]
                segments.append(form.isScalar ? anchor + [.mapping(ReadableShape.scalarKey(form))] : anchor)
                return (segments.reversed().flatMap { $0 }, context ?? (form.isScalar ? .scalarBody(form) : .reference))
            }
            let parent = parents[current]
            if parent == Self.fromTop {
                guard let labels = labels(in: archive.topRef, owner: nil, to: current, isUID: true) else { return nil }
                let (steps, found) = places.translate(labels, in: nil)
                segments.append(steps)
                return (segments.reversed().flatMap { $0 }, context ?? found)
            }
            guard parent >= 0, let labels = labels(in: archive.entryRef(Int(parent), view), owner: Int(parent), to: current, isUID: true) else { return nil }
            let (segment, found) = places.translate(labels, in: Int(parent))
            context = context ?? found
            segments.append(segment)
            steps += segment.count
            current = Int(parent)
        }
        // Only a cycle of entries without `$id`, which nothing reachable is, gets here.
        return nil
    }

    /// The labels from plist object `container` (an entry's, or `$top` when `owner` is nil) to
    /// `target`: a UID of that number (`isUID`), else that plist object. Looks through the
    /// object's inline containers with an explicit stack; `$class` is not looked in. Keys are
    /// read as text only on the path found; nil also when one of them is longer than a
    /// written path (`ArchiveSummary.listedPathLength`, in UTF-16 units, each one byte of
    /// UTF-8 or more).
    private func labels(in container: Int, owner: Int?, to target: Int, isUID: Bool) -> [Label]? {
        // Per container entered: the dictionary or array holding it, and its position there.
        var path: [(holder: PlistObjectHeader, position: Int)] = []
        var stack: [(ref: Int, next: Int)] = [(container, 0)]
        func found(_ last: (holder: PlistObjectHeader, position: Int)) -> [Label]? {
            var labels: [Label] = []
            for (depth, (holder, position)) in (path + [last]).enumerated() {
                guard holder.kind == .dict else {
                    labels.append(.index(position))
                    continue
                }
                let key = view.childRef(holder, position)
                guard view.header(of: key).count <= ArchiveSummary.listedPathLength else { return nil }
                let text = view.text(of: key) ?? ""
                labels.append(depth == 0 && owner == nil ? .top(text) : .key(text))
            }
            return labels
        }
        while let (ref, next) = stack.last {
            let header = view.header(of: ref)
            let values = header.kind == .dict ? header.count : 0
            guard header.kind == .dict || header.kind == .array, next < header.count else {
                stack.removeLast()
                if !path.isEmpty { path.removeLast() }
                continue
            }
            stack[stack.count - 1].next = next + 1
            if header.kind == .dict, archive.classKeys.contains(view.childRef(header, next)) { continue }
            let child = view.childRef(header, values + next)
            let childHeader = view.header(of: child)
            if isUID ? childHeader.kind == .uid && Int(view.uid(childHeader)) == target : child == target { return found((header, next)) }
            if childHeader.kind == .dict || childHeader.kind == .array {
                path.append((header, next))
                stack.append((child, 0))
            }
        }
        return nil
    }
}
