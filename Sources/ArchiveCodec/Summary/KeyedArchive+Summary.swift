extension KeyedArchive {
    /// The counts of a keyed archive (`ArchiveSummary`): one pass over `$objects` that tallies
    /// each instance's keys and the kinds of their values, collects the largest strings and
    /// data values and the payloads among the data (inline values included, walked with an
    /// explicit stack; each string or data object of the plist read once, however many keys
    /// or entries refer to it), and lays out the references between entries; then the entries
    /// on a reference cycle (`ReferenceCycles`), and the shared ones from the reference counts the
    /// analysis made (`$class` is not a reference). Class entries are objects but not values:
    /// their names are not strings of the archive. The readable view's placement is made once,
    /// as a decode's depth probe makes it: its depth is the summary's readable nesting, and
    /// it names the largest values' places (`KeyedSummaryPaths`).
    func summary(payloads: inout PayloadScan, parallelism: Parallelism = .serial) -> ArchiveSummary {
        var summary = ArchiveSummary(format: .keyedArchive)
        summary.objects = objectCount - 1
        // Only a deadline stops a placement without a bound: the summary then ends here, short
        // (`Archive.summary` throws `timedOut` instead of answering).
        guard
            let placement = try? plist.withView({ (view) throws(CodecError) -> Placement in
                try Placement(archive: self, view: view, numbers: .nonFinite, bound: nil, parallelism: parallelism)
            })
        else { return summary }
        summary.readableNesting = placement.depth
        // A payload's nesting is not the document's (`absorb` keeps the outer one): not measured.
        if payloads.nesting == 0 { summary.rawNesting = plist.rawDepth }
        var tally = SummaryTally()
        let classIndex = classInfos.map { tally.classIndex(name: $0.name, chain: $0.chain ?? []) }
        var walk = KeyedValueWalk(objectCount: objectCount, plist: plist, references: referenceCounts.reduce(0) { $0 + Int($1) })
        plist.withView { view in
            walk.walk(topRef, owner: nil, view: view, payloads: &payloads)
            walk.targets.removeAll(keepingCapacity: true)
            let objects = view.header(of: objectsRef)
            // Past the deadline the rest of the objects are skipped (the tables stay whole, the
            // counts do not): `Archive.summary` throws `timedOut` instead of answering.
            var stopped = false
            for uid in 0..<objectCount {
                walk.edgeStart.append(Int32(walk.targets.count))
                guard uid > 0, !stopped else { continue }
                if ConversionDeadline.shouldStop(uid) {
                    stopped = true
                    continue
                }
                let ref = view.childRef(objects, uid)
                let header = view.header(of: ref)
                guard classOf[uid] >= 0 else {
                    if forms[uid] == .rawDict, view.value(in: header, forKey: ArchiverKeys.className) != nil { continue }
                    walk.walk(ref, owner: uid, view: view, payloads: &payloads)
                    continue
                }
                let owner = classIndex[Int(classOf[uid])]
                for index in 0..<header.count {
                    let key = view.childRef(header, index)
                    guard !classKeys.contains(key) else { continue }
                    let value = view.childRef(header, header.count + index)
                    tally.noteKey(owner: owner, keyID: key, name: { view.text(of: key) ?? "" }, kind: kind(of: value, view: view, classIndex: classIndex))
                    walk.walk(value, owner: uid, view: view, payloads: &payloads)
                }
            }
            walk.edgeStart.append(Int32(walk.targets.count))
        }
        let cyclic = ReferenceCycles.onCycle(edgeStart: walk.edgeStart, targets: walk.targets)
        for uid in 1..<objectCount {
            let isShared = referenceCounts[uid] > 1
            if isShared { summary.shared += 1 }
            if cyclic[uid] { summary.cyclic += 1 }
            if classOf[uid] >= 0 { tally.noteInstance(of: classIndex[Int(classOf[uid])], shared: isShared, cyclic: cyclic[uid]) }
        }
        tally.finish(into: &summary)
        summary.largestStrings = walk.values.strings.entries
        summary.largestData = walk.values.data.entries
        // Nothing found, nothing to add (`absorb` would only sort the sorted lists again).
        if !payloads.found.nestedPayloads.isEmpty || !payloads.found.dataKinds.isEmpty { summary.absorb(payloads.found) }
        plist.withView { view in
            let paths = KeyedSummaryPaths(archive: self, view: view, placement: placement, parents: walk.parents)
            LargestValues.name(&summary.largestStrings, paths.steps(to:))
            LargestValues.name(&summary.largestData, paths.steps(to:))
        }
        return summary
    }

    /// The kind a key's value counts under: a reference under its object's class (or, for an
    /// entry without a class, the kind of its plist value), `null` for `$null`; an inline
    /// value under its plist kind.
    private func kind(of value: Int, view: BinaryPlistView, classIndex: [Int]) -> Int {
        let header = view.header(of: value)
        guard header.kind == .uid else { return SummaryTally.kind(SummaryKind(header.kind)) }
        let target = Int(view.uid(header))
        if target == 0 { return SummaryTally.kind(.null) }
        if classOf[target] >= 0 { return SummaryTally.classKind(classIndex[Int(classOf[target])]) }
        return SummaryTally.kind(SummaryKind(view.header(of: entryRef(target, view)).kind))
    }
}

/// The values of a keyed archive's entries as the summary walks them: the references between
/// entries (laid end to end per entry, for `ReferenceCycles`), the first referrer of each
/// entry (for `KeyedSummaryPaths`), the largest strings and data values. Inline containers are
/// walked with a kept work list, at every reference (their UIDs are references of each
/// entry holding them; validation bounds what shared containers expand to).
///
/// A binary plist may point any number of keys, inline containers and `$objects` entries at
/// one string or data object: each is read once, where the walk first meets it (it enters
/// the largest values and the payload scan there, and only there), so the cost is linear in
/// the file however often a long value is referred to.
struct KeyedValueWalk {
    /// Per entry, where its references start in `targets` (and one past the last entry's).
    var edgeStart: [Int32] = []
    var targets: [Int32] = []
    /// Per entry, the entry holding the first reference met (`KeyedSummaryPaths.fromTop`,
    /// `unreached`).
    var parents: [Int32]
    var values: LargestPlistValues
    private var pending: [Int] = []
    /// The plist's string and data objects already read.
    private var read: Bitmap

    /// `objectCount`: the archive's entries; `plist`: its property list;
    /// `references`: about how many UIDs the walk will meet (the analysis's reference count).
    init(objectCount: Int, plist: BinaryPlist, references: Int) {
        edgeStart.reserveCapacity(objectCount + 1)
        targets.reserveCapacity(references)
        parents = [Int32](filledWith: KeyedSummaryPaths.unreached, count: objectCount)
        read = Bitmap(count: plist.objectCount)
        values = LargestPlistValues(documentSize: plist.bytes.count)
    }

    /// Walks value `ref`: an entry's object, a value of an instance's key (in entry `owner`),
    /// or `$top` (`owner` nil).
    mutating func walk(_ ref: Int, owner: Int?, view: BinaryPlistView, payloads: inout PayloadScan) {
        pending.append(ref)
        while let next = pending.popLast() {
            let header = view.header(of: next)
            let location = owner.map { ArchiveSummary.Location(owner: $0, ref: next) }
            switch header.kind {
            case .uid:
                let target = Int(view.uid(header))
                targets.append(Int32(truncatingIfNeeded: target))
                if parents[target] == KeyedSummaryPaths.unreached { parents[target] = owner.map { Int32($0) } ?? KeyedSummaryPaths.fromTop }
            case .asciiString, .utf16String, .data:
                // `$top`'s own strings are keys' names, not values.
                guard owner != nil || header.kind == .data, !read.contains(next) else { continue }
                read.insert(next)
                values.consider(header, view: view, at: location, payloads: &payloads)
            case .array:
                for index in (0..<header.count).reversed() { pending.append(view.childRef(header, index)) }
            case .dict:
                for index in (header.count..<(2 * header.count)).reversed() { pending.append(view.childRef(header, index)) }
            case .bool, .int, .real, .date: break
            }
        }
    }
}
