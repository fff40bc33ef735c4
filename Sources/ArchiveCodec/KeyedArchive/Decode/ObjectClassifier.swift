/// Classifies the `$objects` entries of one range of UIDs, as one job of `ArchiveAnalysis`:
/// each entry's readable form, its class, its collection lists, and the references it makes.
///
/// Jobs over disjoint ranges may run at once. Each writes the shared `Tables` at the UIDs
/// of its own range only, and counts references (which may point anywhere) in its own
/// `counts`; `ArchiveAnalysis` sums the counts and merges the classes afterwards,
/// in range order. A job stops at the first error of its range, which is the error a
/// serial pass would meet first there.
struct ObjectClassifier {
    private let view: BinaryPlistView
    private let objectsHeader: PlistObjectHeader
    private let objectCount: Int
    private let classKeys: ClassKeyRefs
    /// The per-entry tables jobs share, each job writing the entries of its own range.
    struct Tables {
        let forms: UnsafeMutableBufferPointer<ObjectForm>
        /// Until the merge: an index into the job's `classes`.
        let classOf: UnsafeMutableBufferPointer<Int32>
        let lists: UnsafeMutableBufferPointer<UInt64>
        let entryOffsets: UnsafeMutableBufferPointer<UInt32>
    }
    private let tables: Tables
    private var forms: UnsafeMutableBufferPointer<ObjectForm> { tables.forms }
    private var classOf: UnsafeMutableBufferPointer<Int32> { tables.classOf }
    private var lists: UnsafeMutableBufferPointer<UInt64> { tables.lists }
    private var entryOffsets: UnsafeMutableBufferPointer<UInt32> { tables.entryOffsets }
    /// References to each entry counted by this job (saturating at `UInt32.max`).
    let counts: UnsafeMutableBufferPointer<UInt32>

    /// The class entries this job's instances use, in the order it met them.
    private(set) var classes: [(uid: Int, info: KeyedArchive.ClassInfo)] = []
    /// Each class's wrapper family (read per instance without retaining its ClassInfo).
    private var families: [FoundationClasses.Family?] = []
    /// Index in `classes` of each class entry read so far (−1: not read); each entry is read
    /// once per job, however many instances use it.
    private var infoOfClass: [Int32]
    /// `knownKey`'s answers by key reference (64 slots).
    private var knownKeys = [(ref: Int, key: KnownKey)](filledWith: (-1, .other), count: 64)
    /// Work list of `countReferences`, kept between calls (it runs once per value).
    private var pendingRefs: [Int] = []
    /// The names of each `$classes` and `$classhints` array read, by its plist reference. Class
    /// entries may share one array (the expansion limit does not count such sharing: strings
    /// are leaves): read once, its names are one array every class entry using it shares,
    /// not a copy per entry.
    private var nameLists: [Int: NameList] = [:]

    init(view: BinaryPlistView, objectsRef: Int, classKeys: ClassKeyRefs, tables: Tables, counts: UnsafeMutableBufferPointer<UInt32>) {
        self.view = view
        objectsHeader = view.header(of: objectsRef)
        objectCount = objectsHeader.count
        self.classKeys = classKeys
        self.tables = tables
        self.counts = counts
        infoOfClass = [Int32](filledWith: -1, count: objectCount)
    }

    /// Counts the references `$top` (at `topRef`) makes.
    mutating func countTopReferences(_ topRef: Int) throws(CodecError) {
        let header = view.header(of: topRef)
        for index in 0..<header.count {
            try countReferences(in: view.childRef(header, header.count + index), owner: -1)
        }
    }

    /// Classifies the entries of `range`, writing every table entry of the range (entry 0,
    /// `$null`, is `.null`).
    mutating func classify(_ range: Range<Int>) throws(CodecError) {
        try ConversionDeadline.forEachBlock(of: range) { (block) throws(CodecError) in
            for uid in block {
                let ref = view.childRef(objectsHeader, uid)
                let position = view.offset(of: ref)
                entryOffsets[uid] = UInt32(truncatingIfNeeded: position)
                classOf[uid] = -1
                lists[uid] = 0
                guard uid != 0 else {
                    forms[uid] = .null
                    continue
                }
                let header = view.header(at: position)
                switch header.kind {
                case .asciiString, .utf16String: forms[uid] = .string
                case .int: forms[uid] = .integer
                case .real: forms[uid] = .real
                case .bool: forms[uid] = .bool
                case .data: forms[uid] = .data
                case .date: forms[uid] = .plistDate
                case .uid: throw invalid("$objects entry \(uid) is a UID, not an object", uid: uid)
                case .array:
                    forms[uid] = .rawArray
                    try countReferences(in: ref, owner: uid)
                case .dict:
                    var classRef: Int?
                    for index in 0..<header.count where classKeys.contains(view.childRef(header, index)) {
                        classRef = view.childRef(header, header.count + index)
                        break
                    }
                    guard let classRef else {
                        forms[uid] = .rawDict
                        try countReferences(in: ref, owner: uid)
                        continue
                    }
                    let classHeader = view.header(of: classRef)
                    guard classHeader.kind == .uid else { throw invalid("$class of object \(uid) is not a UID", uid: uid) }
                    let classUID = view.uid(classHeader)
                    guard classUID < UInt64(objectCount), classUID != 0 else {
                        throw invalid("$class of object \(uid) is UID \(classUID), outside $objects (\(objectCount) entries)", uid: uid)
                    }
                    let classIndex = Int(classUID)
                    if infoOfClass[classIndex] < 0 {
                        let info = try readClass(classIndex, user: uid)
                        infoOfClass[classIndex] = Int32(classes.count)
                        classes.append((classIndex, info))
                        families.append(info.family)
                    }
                    classOf[uid] = infoOfClass[classIndex]
                    // Count the object's references, leaving out `$class` itself, and note the
                    // (first two) values that are arrays of UIDs.
                    var uidArrays = (-1, -1)
                    for index in 0..<header.count where !classKeys.contains(view.childRef(header, index)) {
                        let value = view.childRef(header, header.count + index)
                        if try countReferences(in: value, owner: uid) {
                            if uidArrays.0 < 0 { uidArrays.0 = value } else if uidArrays.1 < 0 { uidArrays.1 = value }
                        }
                    }
                    if let family = families[Int(classOf[uid])] {
                        forms[uid] = try classify(uid: uid, header: header, family: family, uidArrays: uidArrays)
                    } else {
                        forms[uid] = .generic
                    }
                }
            }
        }
    }

    /// Counts every UID inside `ref` (an inline value, walked without recursion). The work
    /// list is kept between calls: this runs once per value, and a new array each time would
    /// be an allocation per value.
    /// Returns whether `ref` is an array of UIDs only (what `classify` asks of NS.objects
    /// and NS.keys, answered here without walking the array again).
    @discardableResult
    private mutating func countReferences(in ref: Int, owner: Int) throws(CodecError) -> Bool {
        // Most values are a UID or a scalar: no work list for them.
        let first = view.header(of: ref)
        if first.kind == .uid {
            try count(first, at: ref, owner: owner)
            return false
        }
        guard first.kind == .array || first.kind == .dict else { return false }
        // Inline containers: UIDs are counted as met, nested containers wait on the list.
        var onlyUIDs = first.kind == .array
        var isTop = true
        pendingRefs.removeAll(keepingCapacity: true)
        pendingRefs.append(ref)
        while let next = pendingRefs.popLast() {
            let header = view.header(of: next)
            let values = header.kind == .dict ? header.count..<(2 * header.count) : 0..<header.count
            for index in values {
                let child = view.childRef(header, index)
                let childHeader = view.header(of: child)
                switch childHeader.kind {
                case .uid: try count(childHeader, at: child, owner: owner)
                case .array, .dict:
                    pendingRefs.append(child)
                    onlyUIDs = onlyUIDs && !isTop
                default:
                    onlyUIDs = onlyUIDs && !isTop
                }
            }
            isTop = false
        }
        return onlyUIDs
    }

    @inline(__always)
    private mutating func count(_ uid: PlistObjectHeader, at ref: Int, owner: Int) throws(CodecError) {
        let target = view.uid(uid)
        guard target < UInt64(objectCount) else {
            throw CodecError(
                .invalidArchive, "UID \(target) is out of range: $objects has \(objectCount) entries (referenced from \(owner < 0 ? "$top" : "object \(owner)"))", byteOffset: view.offset(of: ref),
                uid: owner < 0 ? nil : owner)
        }
        if counts[Int(target)] < UInt32.max { counts[Int(target)] += 1 }
    }

    private func invalid(_ message: String, uid: Int, remedy: CodecError.Remedy? = nil) -> CodecError {
        CodecError(.invalidArchive, message, uid: uid, remedy: remedy)
    }

    /// The class entry `classUID` (first used by object `user`), checked, from the process's
    /// `ClassInfoCache` when an entry of the same strings was read before.
    private mutating func readClass(_ classUID: Int, user: Int) throws(CodecError) -> KeyedArchive.ClassInfo {
        let ref = view.childRef(objectsHeader, classUID)
        let header = view.header(of: ref)
        // The keys read in one pass (each is one of three, compared once): the first member
        // of each name is the one read, as a lookup by key would find it.
        var nameRef: Int?
        var chainRef: Int?
        var hintsRef: Int?
        var otherKey: Int?
        if header.kind == .dict {
            for index in 0..<header.count {
                let key = view.childRef(header, index)
                if view.isString(key, equalTo: ArchiverKeys.className) {
                    if nameRef == nil { nameRef = view.childRef(header, header.count + index) }
                } else if view.isString(key, equalTo: MappingKeys.classes) {
                    if chainRef == nil { chainRef = view.childRef(header, header.count + index) }
                } else if view.isString(key, equalTo: MappingKeys.classHints) {
                    if hintsRef == nil { hintsRef = view.childRef(header, header.count + index) }
                } else if otherKey == nil {
                    otherKey = key
                }
            }
        }
        guard header.kind == .dict, let nameRef, Self.isNonEmptyString(view.header(of: nameRef)) else {
            throw invalid("$class of object \(user) points at entry \(classUID), which is not a class ($classname missing, empty or not a string)", uid: user)
        }
        // The readable view has a place for these three keys only; anything else in a class
        // dictionary would be dropped, so it is refused (the raw view shows such archives).
        if let key = otherKey {
            throw invalid(
                "class entry \(classUID) holds the key \(stringValue(key).map { "\"\(TextExcerpt.quote($0))\"" } ?? "(not text)"); a class has only $classname, $classes and $classhints",
                uid: classUID,
                remedy: .rawView)
        }
        let cacheKey: ClassInfoCache.Key?
        switch ClassInfoCache.shared.lookUp(name: nameRef, chain: chainRef, hints: hintsRef, in: view) {
        case .known(let info): return info
        case .unknown(let key): cacheKey = key
        }
        var chain: NameList?
        if let chainRef {
            guard let names = stringArray(chainRef) else {
                throw invalid("$classes of class entry \(classUID) is not an array of strings", uid: classUID)
            }
            chain = names
        }
        var hints: [String]?
        if let hintsRef {
            guard let names = stringArray(hintsRef) else {
                throw invalid("$classhints of class entry \(classUID) is not an array of strings", uid: classUID)
            }
            hints = names.names
        }
        // A string of one unit or more reads as text of one character or more.
        let info = KeyedArchive.ClassInfo(name: stringValue(nameRef)!, chain: chain?.names, hints: hints, chainOwner: chain?.owner)
        if let cacheKey { ClassInfoCache.shared.keep(info, for: cacheKey) }
        return info
    }

    private static func isNonEmptyString(_ header: PlistObjectHeader) -> Bool {
        (header.kind == .asciiString || header.kind == .utf16String) && header.count > 0
    }

    /// The strings of a `$classes` or `$classhints` array, and the readable bytes form the
    /// names call for as a chain.
    private struct NameList {
        let names: [String]
        let owner: BytesForm.Owner?
    }

    func stringValue(_ ref: Int) -> String? { view.text(of: ref) }

    /// The names in array `ref`, read once per array (`nameLists`) and shared by every class
    /// entry that points at it.
    private mutating func stringArray(_ ref: Int) -> NameList? {
        if let known = nameLists[ref] { return known }
        let header = view.header(of: ref)
        guard header.kind == .array else { return nil }
        var names: [String] = []
        for index in 0..<header.count {
            guard let name = stringValue(view.childRef(header, index)) else { return nil }
            names.append(name)
        }
        let list = NameList(names: names, owner: BytesForm.Owner(anyOf: names))
        nameLists[ref] = list
        return list
    }

    // MARK: Readable forms

    /// How many keys a class instance has besides `$class`, and the first of them with its
    /// value (the Foundation forms have one or two; no array is made for them).
    private func firstOwnKey(_ header: PlistObjectHeader) -> (count: Int, key: Int, value: Int) {
        var found = (count: 0, key: -1, value: -1)
        for index in 0..<header.count {
            let key = view.childRef(header, index)
            if classKeys.contains(key) { continue }
            if found.count == 0 { found = (0, key, view.childRef(header, header.count + index)) }
            found.count += 1
        }
        return found
    }

    /// The keys of a class instance other than `$class`, as (key ref, value ref).
    private func ownKeys(_ header: PlistObjectHeader) -> [(key: Int, value: Int)] {
        var result: [(key: Int, value: Int)] = []
        for index in 0..<header.count {
            let key = view.childRef(header, index)
            if !classKeys.contains(key) { result.append((key, view.childRef(header, header.count + index))) }
        }
        return result
    }

    private func isUIDArray(_ ref: Int) -> Bool {
        let header = view.header(of: ref)
        guard header.kind == .array else { return false }
        for index in 0..<header.count where view.header(of: view.childRef(header, index)).kind != .uid {
            return false
        }
        return true
    }

    /// `uidArrays`: values already found to be arrays of UIDs (−1: none).
    private mutating func classify(uid: Int, header: PlistObjectHeader, family: FoundationClasses.Family, uidArrays: (Int, Int)) throws(CodecError) -> ObjectForm {
        let own = firstOwnKey(header)
        func isUIDArray(_ ref: Int) -> Bool {
            ref == uidArrays.0 || ref == uidArrays.1 || self.isUIDArray(ref)
        }
        func single(_ name: KnownKey) -> Int? {
            guard own.count == 1, knownKey(own.key) == name else { return nil }
            return own.value
        }
        switch family {
        case .array, .set:
            guard let items = single(.objects), isUIDArray(items) else { return .generic }
            lists[uid] = UInt64(items)
            return family == .array ? .array : .set
        case .orderedSet:
            return orderedSetIndices(ownKeys(header)) != nil ? .orderedSet : .generic
        case .dictionary:
            var (keysRef, valuesRef): (Int?, Int?) = (nil, nil)
            for index in 0..<header.count {
                switch knownKey(view.childRef(header, index)) {
                case .keys: keysRef = keysRef ?? view.childRef(header, header.count + index)
                case .objects: valuesRef = valuesRef ?? view.childRef(header, header.count + index)
                default: break
                }
            }
            if let keysRef, let valuesRef {
                let keyCount = view.header(of: keysRef)
                let valueCount = view.header(of: valuesRef)
                if keyCount.kind == .array, valueCount.kind == .array, keyCount.count != valueCount.count {
                    throw invalid("\(classes[Int(classOf[uid])].info.name) object \(uid) has \(keyCount.count) NS.keys but \(valueCount.count) NS.objects", uid: uid)
                }
                guard own.count == 2, isUIDArray(keysRef), isUIDArray(valuesRef) else { return .generic }
                lists[uid] = UInt64(keysRef) << 32 | UInt64(valuesRef)
                // The string-key form is decided after scalar identities are known (see
                // `ArchiveAnalysis.refineDictionaries`); pairs are always correct.
                return .pairDictionary
            }
            return .generic
        case .mutableString:
            guard let value = single(.string) else { return .generic }
            let kind = view.header(of: value).kind
            return kind == .asciiString || kind == .utf16String ? .mutableString : .generic
        case .data:
            guard let value = single(.data), view.header(of: value).kind == .data else { return .generic }
            return .classData
        case .date:
            guard let value = single(.time), view.header(of: value).kind == .real else { return .generic }
            return .date
        case .uuid:
            guard let value = single(.uuidBytes) else { return .generic }
            let bytes = view.header(of: value)
            return bytes.kind == .data && bytes.count == 16 ? .uuid : .generic
        case .decimal:
            return ValueObjectForms.decimal(view, header, classKeys) != nil ? .decimal : .generic
        case .calendarDate:
            return ValueObjectForms.isCalendarDate(view, header, classKeys) ? .calendarDate : .generic
        case .timeZone:
            // The data is read once every entry is classified (`ValueObjectForms.refineTimeZones`).
            return ValueObjectForms.hasTimeZoneKeys(view, header, classKeys) ? .timeZone : .generic
        }
    }

    /// The key names the Foundation forms look for.
    enum KnownKey: UInt8 { case other, objects, keys, string, data, time, uuidBytes }

    /// Which known name the key object `ref` holds. Instances share their key objects, so
    /// each is compared with the names once, then found by reference (direct-mapped: a
    /// reference whose slot another took is compared again).
    private mutating func knownKey(_ ref: Int) -> KnownKey {
        let slot = ref & (knownKeys.count - 1)
        if knownKeys[slot].ref == ref { return knownKeys[slot].key }
        let key: KnownKey
        if view.isString(ref, equalTo: "NS.objects") {
            key = .objects
        } else if view.isString(ref, equalTo: "NS.keys") {
            key = .keys
        } else if view.isString(ref, equalTo: "NS.string") {
            key = .string
        } else if view.isString(ref, equalTo: "NS.data") {
            key = .data
        } else if view.isString(ref, equalTo: "NS.time") {
            key = .time
        } else if view.isString(ref, equalTo: "NS.uuidbytes") {
            key = .uuidBytes
        } else {
            key = .other
        }
        knownKeys[slot] = (ref, key)
        return key
    }

    /// For an ordered set's keys `NS.object.0` … `NS.object.N-1` (each a UID, each index
    /// once), the value refs in index order; nil for any other shape.
    func orderedSetIndices(_ keys: [(key: Int, value: Int)]) -> [Int]? {
        var ordered = [Int](filledWith: -1, count: keys.count)
        for (key, value) in keys {
            // "NS.object." and at most 19 digits: a longer key cannot name an index, and is
            // not decoded (entries may share one dictionary with a huge key).
            guard view.header(of: key).count <= 29,
                let name = stringValue(key), name.hasPrefix("NS.object."),
                let index = Int(name.dropFirst("NS.object.".count)), index >= 0, index < keys.count,
                String(index) == name.dropFirst("NS.object.".count), ordered[index] == -1,
                view.header(of: value).kind == .uid
            else { return nil }
            ordered[index] = value
        }
        return ordered
    }
}
