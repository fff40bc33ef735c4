/// The one validating pass over an archive's object graph (see `KeyedArchive`). Works
/// without recursion: inline containers are walked with an explicit stack.
struct ArchiveAnalysis {
    var archiverRef = 0
    var versionRef = 0
    var topRef = 0
    var objectsRef = 0
    var objectCount = 0
    var forms: [ObjectForm] = []
    var classOf: [Int32] = []
    var referenceCounts: [UInt32] = []
    var carriesID: [Bool] = []
    var tieGroups: [Int32] = []
    var lists: [UInt64] = []
    var entryOffsets: [UInt32] = []
    var classInfos: [KeyedArchive.ClassInfo] = []
    var isPlainRoot = false
    let classKeys: ClassKeyRefs

    private let view: BinaryPlistView

    /// `sharedObjects`: `BinaryPlist.sharedObjects`. `parallelism`: how classifying the
    /// entries may be split (the result is the same for every choice).
    /// `placeholders`: a salvage's placeholder entries (`KeyedArchiveSalvage`), which no form
    /// may read as a value of its own.
    init(
        view: BinaryPlistView, top: Int, classKeys: ClassKeyRefs, sharedObjects: Bitmap, parallelism: Parallelism = .serial, placeholders: Set<Int> = []
    ) throws(CodecError) {
        self.view = view
        self.classKeys = classKeys
        try readEnvelope(top)
        // Every entry of these is written by the classifier job of its range: fresh memory
        // costs its page faults where it is first written, so there, in parallel, and once.
        forms = Self.unfilled(objectCount, placeholder: ObjectForm.null)
        classOf = Self.unfilled(objectCount, placeholder: 0)
        lists = Self.unfilled(objectCount, placeholder: 0)
        entryOffsets = Self.unfilled(objectCount, placeholder: 0)
        // Counted into from every job: zero before any starts.
        referenceCounts = Array(filledWith: 0, count: objectCount)
        try classifyObjects(parallelism)
        // The passes below are linear and cannot stop part way: the deadline is checked
        // between them.
        try ConversionDeadline.check()
        (carriesID, tieGroups) = ScalarIdentity.identityFlags(
            view: view, objectsRef: objectsRef, forms: forms, referenceCounts: referenceCounts, sharedObjects: sharedObjects,
            parallelism: parallelism)
        try ConversionDeadline.check()
        refineDictionaries(parallelism)
        if classInfos.contains(where: { $0.family == .timeZone }) {
            ValueObjectForms.refineTimeZones(&forms, view: view, entryOffsets: entryOffsets)
        }
        if !placeholders.isEmpty {
            ValueObjectForms.refineAroundPlaceholders(&forms, placeholders, view: view, entryOffsets: entryOffsets)
        }
    }

    /// A dictionary is written as a JSON object when every key is a string that needs no
    /// identity of its own and no key repeats; otherwise as `[key, value]` pairs. Decided
    /// in ranges of UIDs (jobs only read `forms`; the changes are made after).
    private mutating func refineDictionaries(_ parallelism: Parallelism) {
        let (view, forms, lists, carriesID) = (view, forms, lists, carriesID)
        let refined = parallelism.map(parallelism.chunks(of: objectCount)) { range -> [Int] in
            var refined: [Int] = []
            var seen = Set<Int>()
            for uid in range where forms[uid] == .pairDictionary {
                let keys = view.header(of: KeyedArchive.keyList(lists[uid]))
                var distinct = DistinctKeyCheck()
                var allStrings = true
                for index in 0..<keys.count {
                    let key = view.uidValue(of: view.childRef(keys, index))
                    if forms[key] != .string || carriesID[key] {
                        allStrings = false
                        break
                    }
                    distinct.note(key)
                }
                // Repeats are looked for only when the masks cannot rule them out.
                if allStrings && distinct.mayRepeat {
                    seen.reuse(forAbout: keys.count)
                    for index in 0..<keys.count where !seen.insert(view.uidValue(of: view.childRef(keys, index))).inserted {
                        allStrings = false
                        break
                    }
                }
                if allStrings { refined.append(uid) }
            }
            return refined
        }
        for uids in refined {
            for uid in uids { self.forms[uid] = .stringKeyDictionary }
        }
    }

    /// An array of `count` elements for a pass that writes each before anything reads it
    /// (trivial element types only): left as the allocator gave them when large, filled with
    /// `placeholder` when small (`Array.init(count:placeholder:writing:)`).
    static func unfilled<Element: BitwiseCopyable>(_ count: Int, placeholder: Element) -> [Element] {
        [Element](count: count, placeholder: placeholder) { _ in }
    }

    private func notArchive(_ message: String, at ref: Int? = nil) -> CodecError {
        CodecError(.notKeyedArchive, message, byteOffset: ref.map { view.offset(of: $0) })
    }

    /// What a property list without the keyed-archive envelope is, in words: its top-level
    /// value and, for a dictionary, its first keys, so that the refusal says what was sent.
    private func plainPlist(_ root: PlistObjectHeader) -> String {
        let what: String
        switch root.kind {
        case .dict:
            let shown = (0..<min(root.count, 4)).map { index -> String in
                let key = view.header(of: view.childRef(root, index))
                switch key.kind {
                case .asciiString: return String(decoding: view.payload(key).prefix(40), as: UTF8.self)
                case .utf16String:
                    let units = view.payload(key)
                    return String(
                        decoding: stride(from: 0, to: min(units.count, 80), by: 2).map { UInt16(units[$0]) << 8 | UInt16(units[$0 + 1]) },
                        as: UTF16.self)
                default: return "?"
                }
            }
            let keys = shown.joined(separator: ", ") + (root.count > shown.count ? ", …" : "")
            what = root.count == 0 ? "an empty dictionary" : "a dictionary of \(root.count) key\(root.count == 1 ? "" : "s") (\(keys))"
        case .array: what = "an array of \(root.count) element\(root.count == 1 ? "" : "s")"
        case .asciiString, .utf16String: what = "a string"
        case .int: what = "an integer"
        case .real: what = "a real number"
        case .bool: what = "a boolean"
        case .date: what = "a date"
        case .data: what = "\(root.count) bytes of data"
        case .uid: what = "a UID"
        }
        guard root.kind != .dict else { return "a property list whose top level is \(what) without $archiver: not a whole keyed archive" }
        return "a plain property list whose top level is \(what), not the dictionary with $archiver, $top and $objects that an archive has"
    }

    private mutating func readEnvelope(_ top: Int) throws(CodecError) {
        let root = view.header(of: top)
        guard root.kind == .dict else { throw notArchive(plainPlist(root), at: top) }
        guard let archiver = view.value(in: root, forKey: MappingKeys.archiver) else { throw notArchive(plainPlist(root), at: top) }
        guard let version = view.value(in: root, forKey: MappingKeys.version) else { throw notArchive("no $version key", at: top) }
        guard let topDict = view.value(in: root, forKey: MappingKeys.top) else { throw notArchive("no $top key", at: top) }
        guard let objects = view.value(in: root, forKey: ArchiverKeys.objects) else { throw notArchive("no $objects key", at: top) }
        let archiverKind = view.header(of: archiver).kind
        guard archiverKind == .asciiString || archiverKind == .utf16String else { throw notArchive("$archiver is not a string", at: archiver) }
        guard view.header(of: version).kind == .int else { throw notArchive("$version is not an integer", at: version) }
        guard view.header(of: topDict).kind == .dict else { throw notArchive("$top is not a dictionary", at: topDict) }
        let objectsHeader = view.header(of: objects)
        guard objectsHeader.kind == .array else { throw notArchive("$objects is not an array", at: objects) }
        guard objectsHeader.count >= 1 else { throw notArchive("$objects is empty (entry 0 must be $null)", at: objects) }
        archiverRef = archiver
        versionRef = version
        topRef = topDict
        objectsRef = objects
        objectCount = objectsHeader.count
        let topHeader = view.header(of: topDict)
        isPlainRoot =
            topHeader.count == 1 && view.isString(view.childRef(topHeader, 0), equalTo: "root")
            && view.header(of: view.childRef(topHeader, 1)).kind == .uid
            && view.isString(archiver, equalTo: "NSKeyedArchiver")
            && view.integer(view.header(of: version)) == PlistInteger(signed: 100_000)
    }

    /// Counts `$top`'s references and classifies every entry, as one job per range of UIDs
    /// (`ObjectClassifier`); then sums the jobs' reference counts and merges their classes
    /// in range order, so that the result and the first error do not depend on the split.
    private mutating func classifyObjects(_ parallelism: Parallelism) throws(CodecError) {
        // Cut by the entries' plist references: an entry's inline values follow it in the
        // object table, so the references between two entries measure the work between them.
        let objectsHeader = view.header(of: objectsRef)
        let ranges = parallelism.ranges(of: objectCount) { [view] in view.childRef(objectsHeader, $0) }
        // Copies of what the jobs read: capturing `self` would copy the tables it writes.
        let (view, objectsRef, topRef, classKeys) = (view, objectsRef, topRef, classKeys)
        let run = { (tables: ObjectClassifier.Tables, totals: UnsafeMutableBufferPointer<UInt32>) throws(CodecError) in
            try Self.classifyInJobs(ranges, parallelism, tables, totals) {
                ObjectClassifier(view: view, objectsRef: objectsRef, classKeys: classKeys, tables: tables, counts: $0)
            } countingTop: { (classifier: inout ObjectClassifier) throws(CodecError) in
                try classifier.countTopReferences(topRef)
            }
        }
        let jobs = try forms.withUnsafeMutableBufferPointer { (forms) throws(CodecError) in
            try classOf.withUnsafeMutableBufferPointer { (classOf) throws(CodecError) in
                try lists.withUnsafeMutableBufferPointer { (lists) throws(CodecError) in
                    try entryOffsets.withUnsafeMutableBufferPointer { (entryOffsets) throws(CodecError) in
                        try referenceCounts.withUnsafeMutableBufferPointer { (totals) throws(CodecError) in
                            try run(ObjectClassifier.Tables(forms: forms, classOf: classOf, lists: lists, entryOffsets: entryOffsets), totals)
                        }
                    }
                }
            }
        }
        // Classes in the order the jobs met them: the first job's indices stay as they are,
        // so one job's classes are taken as they come (no table of them for a small archive).
        if jobs.count == 1, classInfos.isEmpty {
            for (_, info) in jobs[0].classes { classInfos.append(info) }
            return
        }
        var indexOfClass: [Int: Int32] = [:]
        for (number, job) in jobs.enumerated() {
            var renumbered: [Int32] = []
            for (uid, info) in job.classes {
                if let known = indexOfClass[uid] {
                    renumbered.append(known)
                } else {
                    indexOfClass[uid] = Int32(classInfos.count)
                    renumbered.append(Int32(classInfos.count))
                    classInfos.append(info)
                }
            }
            guard renumbered.indices.contains(where: { renumbered[$0] != Int32($0) }) else { continue }
            for uid in ranges[number] where classOf[uid] >= 0 { classOf[uid] = renumbered[Int(classOf[uid])] }
        }
    }

    /// One `ObjectClassifier` job per range, writing `tables`; the first job counts into
    /// `totals` (and the references from `$top`), the others into their own counts, added
    /// to `totals` here.
    private static func classifyInJobs(
        _ ranges: Cuts, _ parallelism: Parallelism, _ tables: ObjectClassifier.Tables, _ totals: UnsafeMutableBufferPointer<UInt32>,
        classifier make: (UnsafeMutableBufferPointer<UInt32>) -> ObjectClassifier,
        countingTop countTop: (inout ObjectClassifier) throws(CodecError) -> Void
    ) throws(CodecError) -> [ObjectClassifier] {
        let objectCount = totals.count
        let ownsCounts = { (job: ObjectClassifier) in job.counts.baseAddress != totals.baseAddress }
        let jobs = try parallelism.mapOrFirstError(ranges) { (range) throws(CodecError) -> ObjectClassifier in
            let counts = range.lowerBound == 0 ? totals : UnsafeMutableBufferPointer<UInt32>.allocate(capacity: objectCount)
            if range.lowerBound != 0 { counts.initialize(repeating: 0) }
            var classifier = make(counts)
            do throws(CodecError) {
                if range.lowerBound == 0 { try countTop(&classifier) }
                try classifier.classify(range)
                return classifier
            } catch {
                if range.lowerBound != 0 { counts.deallocate() }
                throw error
            }
        } discardingOnFailure: { job in
            if ownsCounts(job) { job.counts.deallocate() }
        }
        // Every job but the one counting into `totals` owns its counts.
        for job in jobs where ownsCounts(job) {
            for uid in 0..<objectCount {
                let (sum, overflow) = totals[uid].addingReportingOverflow(job.counts[uid])
                totals[uid] = overflow ? .max : sum
            }
            job.counts.deallocate()
        }
        return jobs
    }
}
