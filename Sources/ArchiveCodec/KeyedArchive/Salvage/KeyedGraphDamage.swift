/// What of a keyed archive's object graph cannot be read, found in one pass for salvage
/// (docs/mapping.md, "Salvage"): the places the readable view marks `$broken`, and how many
/// of them the document reaches. Used only once a strict read has refused (or a salvaged
/// binary plist holds an archive): a whole archive never pays for it.
///
/// Two kinds of mark:
/// - a **broken entry**, an `$objects` entry that cannot be read as an object: a UID where an
///   object must be; a `$class` that is not a UID, is out of range or UID 0, or points at an
///   entry that is no class (no `$classname`, an empty one or one that is not a string, a key
///   other than `$classname`, `$classes` and `$classhints`, `$classes` or `$classhints` not an
///   array of strings); a dictionary whose `NS.keys` and `NS.objects` differ in count; a
///   dictionary written as `[key, value]` pairs one of whose keys is broken (a key has no
///   place for a mark), or in the generic form one of whose list elements is (leaving it out
///   would leave the lists unequal), which may break in turn a dictionary using it so; an
///   entry a salvaged binary plist marked. It is marked at every place that references it.
/// - a **broken reference**: a UID past `$objects`, or a value a salvaged binary plist
///   marked, where a value stands (a `$top` value, an instance's value, an element or value
///   of an array or dictionary, inline or as an entry). The plist object is marked at every
///   place that holds it (an archive's writer shares one UID object among all its places).
///
/// A mark's `offset` is the byte offset of the bad entry's or reference's plist object (the
/// binary plist salvage's own mark where that found the damage), `rest` the object's bytes up
/// to the next object the offset table places; without byte offsets (an XML property list,
/// read as a tree) `offset` is −1 and `rest` empty, and the reason names the entry or UID.
///
/// Refused (nil): an envelope that is not an archive's (`$top`, `$objects` missing, of the
/// wrong kind, or marked), a plain root (`$top` holding only `root`) that is itself marked
/// (nothing else would be read), no mark the top reaches. Linear: each entry and inline
/// container is read once per pass (three passes: entries, values, the walk from `$top`),
/// each class entry once; nothing is sized before the file's own counts bound it.
struct KeyedGraphDamage {
    typealias Mark = BinaryPlistSalvage.Mark

    /// Every mark, in the order found.
    private(set) var marks: [Mark] = []
    /// Per entry, its mark's index in `marks` (−1: readable).
    private(set) var brokenEntries: [Int32]
    /// The plist objects marked as references, in the order found, and their marks' indices.
    private(set) var brokenReferences: [Int] = []
    private(set) var referenceMarks: [Int: Int32] = [:]
    /// Each marked plist object's mark.
    private var markOfObject: [Int: Int32] = [:]
    /// How many marks the readable document reaches (each shared one once).
    private(set) var reachedMarks = 0
    /// More places are broken than a salvage marks (`SalvageLimit.marks`): those past the
    /// limit were not marked, and the file is refused.
    private(set) var tooMany = false

    let objectsRef: Int
    let topRef: Int
    let objectCount: Int

    private let view: BinaryPlistView
    private let plist: BinaryPlist
    private let plistMarks: [Int: Mark]
    private let knowsOffsets: Bool
    /// Where the objects end in the bytes `plist` was read from (a mark's `rest` stops there).
    private let areaEnd: Int
    /// The offsets of all objects, sorted; made when a mark first needs its extent.
    private var sortedStarts: [Int]?
    /// Each class entry's verdict, read once: its family, or why it is no class.
    private var classVerdicts: [Int: Result<FoundationClasses.Family?, ClassProblem>] = [:]
    /// Inline containers already walked in the current pass (plist objects).
    private var walked: Bitmap
    private var pending: [Int] = []

    private struct ClassProblem: Error { let reason: String }

    /// `plistMarks`: the marks a salvaged binary plist holds, by object reference; `areaEnd`:
    /// the end of the input's object area. nil when refused (above).
    init?(plist: BinaryPlist, view: BinaryPlistView, knowsOffsets: Bool, plistMarks: [Int: Mark], areaEnd: Int) {
        self.plist = plist
        self.view = view
        self.knowsOffsets = knowsOffsets
        self.plistMarks = plistMarks
        self.areaEnd = areaEnd
        let root = view.header(of: plist.topObject)
        guard plistMarks[plist.topObject] == nil, root.kind == .dict,
            let objects = view.value(in: root, forKey: ArchiverKeys.objects), plistMarks[objects] == nil,
            let top = view.value(in: root, forKey: MappingKeys.top), plistMarks[top] == nil,
            view.header(of: objects).kind == .array, view.header(of: objects).count >= 1, view.header(of: top).kind == .dict
        else { return nil }
        objectsRef = objects
        topRef = top
        objectCount = view.header(of: objects).count
        brokenEntries = [Int32](filledWith: -1, count: objectCount)
        walked = Bitmap(count: view.objectCount)
        findBrokenEntries()
        breakDictionariesWithBrokenKeys()
        findBrokenReferences()
        guard !tooMany else { return }
        guard !rootIsBroken() else { return nil }
        countReachedMarks()
        guard reachedMarks > 0 else { return nil }
    }

    // MARK: Marks

    /// The mark of plist object `ref`, made once: entries that share one object, or an
    /// object that is both an entry and a reference, share its mark (counted once).
    private mutating func mark(_ ref: Int, _ reason: String) -> Int32 {
        if let known = markOfObject[ref] { return known }
        guard marks.count < SalvageLimit.marks else {
            // Past the limit nothing more is held: the index stands for a mark never written.
            tooMany = true
            return 0
        }
        let made: Mark
        if let known = plistMarks[ref] {
            made = known
        } else if knowsOffsets {
            let position = view.offset(of: ref)
            made = Mark(offset: position, reason: reason, rest: plist.bytes[position..<extentEnd(from: position)])
        } else {
            made = Mark(offset: -1, reason: reason, rest: [])
        }
        marks.append(made)
        markOfObject[ref] = Int32(marks.count - 1)
        return Int32(marks.count - 1)
    }

    /// The offset of the object after `position` in the file (or the object area's end).
    private mutating func extentEnd(from position: Int) -> Int {
        if sortedStarts == nil { sortedStarts = (0..<view.objectCount).map { view.offset(of: $0) }.sorted() }
        let starts = sortedStarts!
        var (low, high) = (0, starts.count)
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        let end = low < starts.count ? min(starts[low], areaEnd) : areaEnd
        return max(end, position)
    }

    private func entryRef(_ uid: Int) -> Int { view.childRef(view.header(of: objectsRef), uid) }

    // MARK: Entries

    private mutating func findBrokenEntries() {
        for uid in 1..<max(objectCount, 1) {
            let ref = entryRef(uid)
            if plistMarks[ref] != nil {
                brokenEntries[uid] = mark(ref, "")
                continue
            }
            if let reason = problem(ofEntry: uid, ref: ref) { brokenEntries[uid] = mark(ref, reason) }
        }
    }

    /// Why entry `uid` (at `ref`) cannot be read as an object; nil when it can.
    private mutating func problem(ofEntry uid: Int, ref: Int) -> String? {
        let header = view.header(of: ref)
        if header.kind == .uid { return "$objects entry \(uid) is a UID, not an object" }
        guard header.kind == .dict, let classRef = classValue(header) else { return nil }
        if let damage = plistMarks[classRef] { return "$class of object \(uid) could not be read: \(damage.reason)" }
        let classHeader = view.header(of: classRef)
        guard classHeader.kind == .uid else { return "$class of object \(uid) is not a UID" }
        let classUID = view.uid(classHeader)
        guard classUID < UInt64(objectCount), classUID != 0 else {
            return "$class of object \(uid) is UID \(classUID), outside $objects (\(objectCount) entries)"
        }
        switch verdict(ofClass: Int(classUID)) {
        case .failure(let problem): return "$class of object \(uid) points at entry \(classUID), which is not a class: \(problem.reason)"
        case .success(let family):
            guard family == .dictionary, let (keys, values) = dictionaryLists(header) else { return nil }
            let (keyList, valueList) = (view.header(of: keys), view.header(of: values))
            guard keyList.kind == .array, valueList.kind == .array, keyList.count != valueList.count else { return nil }
            let classEntry = view.header(of: entryRef(Int(classUID)))
            let name = view.value(in: classEntry, forKey: ArchiverKeys.className).flatMap { view.text(of: $0) } ?? "dictionary"
            return "\(name) object \(uid) has \(keyList.count) NS.keys but \(valueList.count) NS.objects"
        }
    }

    /// The value of `header`'s `$class` key, if it has one.
    private func classValue(_ header: PlistObjectHeader) -> Int? {
        for index in 0..<header.count where plist.classKeys.contains(view.childRef(header, index)) {
            return view.childRef(header, header.count + index)
        }
        return nil
    }

    /// The first `NS.keys` and `NS.objects` values of an instance, when it has both.
    private func dictionaryLists(_ header: PlistObjectHeader) -> (keys: Int, values: Int)? {
        var (keys, values): (Int?, Int?) = (nil, nil)
        for index in 0..<header.count {
            let key = view.childRef(header, index)
            if keys == nil, view.isString(key, equalTo: "NS.keys") { keys = view.childRef(header, header.count + index) }
            if values == nil, view.isString(key, equalTo: "NS.objects") { values = view.childRef(header, header.count + index) }
        }
        guard let keys, let values else { return nil }
        return (keys, values)
    }

    /// What `ObjectClassifier` asks of a class entry, read once per entry.
    private mutating func verdict(ofClass uid: Int) -> Result<FoundationClasses.Family?, ClassProblem> {
        if let known = classVerdicts[uid] { return known }
        let header = view.header(of: entryRef(uid))
        let result: Result<FoundationClasses.Family?, ClassProblem>
        if header.kind != .dict {
            result = .failure(ClassProblem(reason: "not a dictionary"))
        } else if let nameRef = view.value(in: header, forKey: ArchiverKeys.className), let name = view.text(of: nameRef), !name.isEmpty {
            result = Self.classShapeProblem(header, view).map { .failure($0) } ?? .success(FoundationClasses.family(of: name))
        } else {
            result = .failure(ClassProblem(reason: "$classname missing, empty or not a string"))
        }
        classVerdicts[uid] = result
        return result
    }

    private static func classShapeProblem(_ header: PlistObjectHeader, _ view: BinaryPlistView) -> ClassProblem? {
        for index in 0..<header.count {
            let key = view.childRef(header, index)
            guard
                view.isString(key, equalTo: ArchiverKeys.className) || view.isString(key, equalTo: MappingKeys.classes)
                    || view.isString(key, equalTo: MappingKeys.classHints)
            else { return ClassProblem(reason: "it holds a key other than $classname, $classes and $classhints") }
        }
        for names in [view.value(in: header, forKey: MappingKeys.classes), view.value(in: header, forKey: MappingKeys.classHints)] {
            guard let names else { continue }
            let list = view.header(of: names)
            guard list.kind == .array, (0..<list.count).allSatisfy({ view.text(of: view.childRef(list, $0)) != nil }) else {
                return ClassProblem(reason: "$classes or $classhints is not an array of strings")
            }
        }
        return nil
    }

    // MARK: Dictionaries' lists

    /// A dictionary the readable view writes as pairs has no place for a marked key, and one
    /// written in the generic form (`NS.keys` and `NS.objects` as they are) none for a marked
    /// element of either list (leaving it out would leave the lists of unequal counts): it is
    /// broken when such an element is, and so is a dictionary using it there, and so on (a work
    /// list over those references, each followed once).
    private mutating func breakDictionariesWithBrokenKeys() {
        var users: [(key: Int32, dictionary: Int32)] = []
        var broken: [Int] = []
        for uid in 1..<max(objectCount, 1) where brokenEntries[uid] < 0 {
            /// The list and index of an element that cannot be read.
            var bad: (list: String, index: Int)?
            for (name, ref) in watchedLists(uid) where bad == nil {
                let list = view.header(of: ref)
                for index in 0..<list.count {
                    let element = view.childRef(list, index)
                    if plistMarks[element] != nil {
                        bad = (name, index)
                        break
                    }
                    let header = view.header(of: element)
                    guard header.kind == .uid else { continue }
                    let target = view.uid(header)
                    guard target < UInt64(objectCount) else {
                        bad = (name, index)
                        break
                    }
                    users.append((Int32(target), Int32(uid)))
                }
            }
            if let bad {
                brokenEntries[uid] = mark(entryRef(uid), "element \(bad.index) of \(bad.list) of dictionary object \(uid) could not be read")
                broken.append(uid)
            }
        }
        guard !users.isEmpty else { return }
        // Users by key entry (counting sort: linear).
        var starts = [Int](filledWith: 0, count: objectCount + 1)
        for user in users { starts[Int(user.key) + 1] += 1 }
        for index in 0..<objectCount { starts[index + 1] += starts[index] }
        var next = starts
        var byKey = [Int32](filledWith: 0, count: users.count)
        for user in users {
            byKey[next[Int(user.key)]] = user.dictionary
            next[Int(user.key)] += 1
        }
        var seen = Bitmap(count: objectCount)
        for uid in broken { seen.insert(uid) }
        for uid in 1..<max(objectCount, 1) where brokenEntries[uid] >= 0 && !seen.contains(uid) {
            seen.insert(uid)
            broken.append(uid)
        }
        while let key = broken.popLast() {
            for index in starts[key]..<starts[key + 1] {
                let user = Int(byKey[index])
                guard !seen.contains(user) else { continue }
                seen.insert(user)
                if brokenEntries[user] < 0 {
                    brokenEntries[user] = mark(entryRef(user), "entry \(key), in NS.keys or NS.objects of dictionary object \(user), could not be read")
                }
                broken.append(user)
            }
        }
    }

    /// The lists of a dictionary instance whose elements need a place of their own: `NS.keys`
    /// when the readable view writes it as `[key, value]` pairs or a JSON object (a dictionary
    /// class, those two keys only, both arrays of UIDs), both lists when it writes the generic
    /// form (both arrays otherwise); none for any other instance.
    private mutating func watchedLists(_ uid: Int) -> [(name: String, ref: Int)] {
        let header = view.header(of: entryRef(uid))
        guard header.kind == .dict, let classRef = classValue(header), view.header(of: classRef).kind == .uid,
            case .success(.dictionary)? = classVerdicts[Int(view.uid(view.header(of: classRef)))],
            let (keys, values) = dictionaryLists(header), view.header(of: keys).kind == .array, view.header(of: values).kind == .array
        else { return [] }
        if header.count == 3, isUIDArray(keys), isUIDArray(values) { return [("NS.keys", keys)] }
        return [("NS.keys", keys), ("NS.objects", values)]
    }

    /// Whether `ref` is an array of UIDs once repaired (a marked element becomes one).
    private func isUIDArray(_ ref: Int) -> Bool {
        let list = view.header(of: ref)
        return list.kind == .array
            && (0..<list.count).allSatisfy { view.header(of: view.childRef(list, $0)).kind == .uid || plistMarks[view.childRef(list, $0)] != nil }
    }

    // MARK: References

    private mutating func findBrokenReferences() {
        walked = Bitmap(count: view.objectCount)
        forEachValue(ofTop: true, uid: 0) { damage, ref in damage.noteReference(ref) }
        for uid in 1..<max(objectCount, 1) where brokenEntries[uid] < 0 {
            forEachValue(ofTop: false, uid: uid) { damage, ref in damage.noteReference(ref) }
        }
    }

    private mutating func noteReference(_ ref: Int) {
        guard referenceMarks[ref] == nil, !tooMany else { return }
        if plistMarks[ref] != nil {
            referenceMarks[ref] = mark(ref, "")
        } else {
            let header = view.header(of: ref)
            guard header.kind == .uid, view.uid(header) >= UInt64(objectCount) else { return }
            referenceMarks[ref] = mark(ref, "UID \(view.uid(header)) is out of range: $objects has \(objectCount) entries")
        }
        brokenReferences.append(ref)
    }

    /// Calls `body` with every value `$top` (`ofTop`) or entry `uid` holds that is not an
    /// inline container: its values, an instance's but `$class`; inline containers' elements
    /// and values, each container walked once per pass. A value a salvaged plist marked is
    /// handed over as it is (never walked into).
    private mutating func forEachValue(ofTop: Bool, uid: Int, _ body: (inout KeyedGraphDamage, Int) -> Void) {
        let ref = ofTop ? topRef : entryRef(uid)
        let header = view.header(of: ref)
        guard header.kind == .array || header.kind == .dict else { return }
        pending.removeAll(keepingCapacity: true)
        pending.append(ref)
        var isEntry = true
        while let next = pending.popLast() {
            let container = view.header(of: next)
            let values = container.kind == .dict ? container.count..<(2 * container.count) : 0..<container.count
            for index in values {
                if isEntry, !ofTop, container.kind == .dict, plist.classKeys.contains(view.childRef(container, index - container.count)) { continue }
                let child = view.childRef(container, index)
                let kind = view.header(of: child).kind
                if plistMarks[child] == nil, kind == .array || kind == .dict {
                    if !walked.contains(child) {
                        walked.insert(child)
                        pending.append(child)
                    }
                } else {
                    body(&self, child)
                }
            }
            isEntry = false
        }
    }

    // MARK: What the document reaches

    /// Whether the document is a plain root (`$top` holding `root` only) that is marked.
    private func rootIsBroken() -> Bool {
        let top = view.header(of: topRef)
        guard top.count == 1, view.isString(view.childRef(top, 0), equalTo: "root") else { return false }
        let value = view.childRef(top, 1)
        if referenceMarks[value] != nil { return true }
        let header = view.header(of: value)
        return header.kind == .uid && view.uid(header) < UInt64(objectCount) && brokenEntries[Int(view.uid(header))] >= 0
    }

    /// Counts the marks reached from `$top`, each once: breadth-first over the entries, a
    /// broken entry not entered.
    private mutating func countReachedMarks() {
        var reachedMark = Bitmap(count: marks.count)
        var seen = Bitmap(count: objectCount)
        var queue: [Int] = []
        var found = 0
        func visit(_ damage: inout KeyedGraphDamage, _ ref: Int) {
            if let index = damage.referenceMarks[ref] {
                if !reachedMark.contains(Int(index)) {
                    reachedMark.insert(Int(index))
                    found += 1
                }
                return
            }
            let header = damage.view.header(of: ref)
            guard header.kind == .uid else { return }
            let target = Int(damage.view.uid(header))
            guard !seen.contains(target) else { return }
            seen.insert(target)
            let index = damage.brokenEntries[target]
            if index >= 0 {
                if !reachedMark.contains(Int(index)) {
                    reachedMark.insert(Int(index))
                    found += 1
                }
            } else {
                queue.append(target)
            }
        }
        walked = Bitmap(count: view.objectCount)
        forEachValue(ofTop: true, uid: 0, visit)
        var head = 0
        while head < queue.count {
            let uid = queue[head]
            head += 1
            forEachValue(ofTop: false, uid: uid, visit)
        }
        reachedMarks = found
    }
}
