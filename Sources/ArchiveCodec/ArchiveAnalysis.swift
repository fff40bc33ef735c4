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
    var needsIdentity: [Bool] = []
    var lists: [UInt64] = []
    var classInfos: [KeyedArchive.ClassInfo] = []
    var isPlainRoot = false
    let classKeys: ClassKeyRefs

    private let view: BinaryPlistView
    /// Work list of `countReferences`, kept between calls (it runs once per value).
    private var pendingRefs: [Int] = []

    /// `sharedObjects`: `BinaryPlist.sharedObjects`.
    init(view: BinaryPlistView, top: Int, classKeys: ClassKeyRefs, sharedObjects: Bitmap) throws(CodecError) {
        self.view = view
        self.classKeys = classKeys
        try readEnvelope(top)
        forms = Array(repeating: .null, count: objectCount)
        classOf = Array(repeating: -1, count: objectCount)
        referenceCounts = Array(repeating: 0, count: objectCount)
        lists = Array(repeating: 0, count: objectCount)
        try countTopReferences()
        try classifyObjects()
        needsIdentity = ScalarIdentity.identityFlags(
            view: view, objectsRef: objectsRef, forms: forms, referenceCounts: referenceCounts, sharedObjects: sharedObjects)
        refineDictionaries()
    }

    /// A dictionary is written as a JSON object when every key is a string that needs no
    /// identity of its own and no key repeats; otherwise as `[key, value]` pairs.
    private mutating func refineDictionaries() {
        var seen = Set<Int>()
        for uid in 0..<objectCount where forms[uid] == .pairDictionary {
            let keys = view.header(of: KeyedArchive.keyList(lists[uid]))
            var spread = KeySpread()
            var allStrings = true
            for index in 0..<keys.count {
                let key = view.uidValue(of: view.childRef(keys, index))
                if forms[key] != .string || needsIdentity[key] {
                    allStrings = false
                    break
                }
                spread.note(key)
            }
            // Repeats are looked for only when the masks cannot rule them out.
            if allStrings && spread.mayRepeat {
                seen.removeAll(keepingCapacity: true)
                for index in 0..<keys.count where !seen.insert(view.uidValue(of: view.childRef(keys, index))).inserted {
                    allStrings = false
                    break
                }
            }
            if allStrings { forms[uid] = .stringKeyDictionary }
        }
    }

    private func notArchive(_ message: String, at ref: Int? = nil) -> CodecError {
        CodecError(.notKeyedArchive, message, byteOffset: ref.map { view.offset(of: $0) })
    }

    private func invalid(_ message: String, uid: Int) -> CodecError {
        CodecError(.invalidArchive, message, uid: uid)
    }

    private mutating func readEnvelope(_ top: Int) throws(CodecError) {
        let root = view.header(of: top)
        guard root.kind == .dict else { throw notArchive("the top of the plist is not a dictionary", at: top) }
        guard let archiver = view.value(in: root, forKey: "$archiver") else { throw notArchive("no $archiver key", at: top) }
        guard let version = view.value(in: root, forKey: "$version") else { throw notArchive("no $version key", at: top) }
        guard let topDict = view.value(in: root, forKey: "$top") else { throw notArchive("no $top key", at: top) }
        guard let objects = view.value(in: root, forKey: "$objects") else { throw notArchive("no $objects key", at: top) }
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
        isPlainRoot = topHeader.count == 1 && view.isString(view.childRef(topHeader, 0), equalTo: "root")
            && view.header(of: view.childRef(topHeader, 1)).kind == .uid
            && view.isString(archiver, equalTo: "NSKeyedArchiver")
            && view.integer(view.header(of: version)) == PlistInteger(signed: 100_000)
    }

    /// Counts every UID inside `ref` (an inline value, walked without recursion). The work
    /// list is kept between calls: this runs once per value, and a new array each time cost
    /// 6 % of a decode's instructions.
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
            throw CodecError(.invalidArchive, "UID \(target) is out of range: $objects has \(objectCount) entries (referenced from \(owner < 0 ? "$top" : "object \(owner)"))", byteOffset: view.offset(of: ref), uid: owner < 0 ? nil : owner)
        }
        if referenceCounts[Int(target)] < UInt32.max { referenceCounts[Int(target)] += 1 }
    }

    private mutating func countTopReferences() throws(CodecError) {
        let header = view.header(of: topRef)
        for index in 0..<header.count {
            try countReferences(in: view.childRef(header, header.count + index), owner: -1)
        }
    }

    private mutating func classifyObjects() throws(CodecError) {
        let objectsHeader = view.header(of: objectsRef)
        // Index in `classInfos` of each class entry read so far (−1: not read); each entry is
        // read once, however many instances use it.
        var infoOfClass = [Int32](repeating: -1, count: objectCount)
        // Each class's wrapper family, read per instance without retaining its ClassInfo.
        var families: [FoundationClasses.Family?] = []
        for uid in 1..<max(objectCount, 1) {
            let ref = view.childRef(objectsHeader, uid)
            let header = view.header(of: ref)
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
                    infoOfClass[classIndex] = Int32(classInfos.count)
                    classInfos.append(info)
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

    private func readClass(_ classUID: Int, user: Int) throws(CodecError) -> KeyedArchive.ClassInfo {
        let ref = view.childRef(view.header(of: objectsRef), classUID)
        let header = view.header(of: ref)
        guard header.kind == .dict, let nameRef = view.value(in: header, forKey: "$classname"),
            let name = stringValue(nameRef), !name.isEmpty
        else {
            throw invalid("$class of object \(user) points at entry \(classUID), which is not a class ($classname missing, empty or not a string)", uid: user)
        }
        // The readable view has a place for these three keys only; anything else in a class
        // dictionary would be dropped, so it is refused (the raw view shows such archives).
        for index in 0..<header.count {
            let key = view.childRef(header, index)
            guard view.isString(key, equalTo: "$classname") || view.isString(key, equalTo: "$classes")
                || view.isString(key, equalTo: "$classhints")
            else {
                throw invalid("class entry \(classUID) holds the key \(stringValue(key).map { "\"\($0)\"" } ?? "(not text)"); a class has only $classname, $classes and $classhints (the raw view, ?view=raw, shows it as it is)", uid: classUID)
            }
        }
        var chain: [String]?
        if let chainRef = view.value(in: header, forKey: "$classes") {
            guard let names = stringArray(chainRef) else {
                throw invalid("$classes of class entry \(classUID) is not an array of strings", uid: classUID)
            }
            chain = names
        }
        var hints: [String]?
        if let hintsRef = view.value(in: header, forKey: "$classhints") {
            guard let names = stringArray(hintsRef) else {
                throw invalid("$classhints of class entry \(classUID) is not an array of strings", uid: classUID)
            }
            hints = names
        }
        return KeyedArchive.ClassInfo(name: name, chain: chain, hints: hints)
    }

    func stringValue(_ ref: Int) -> String? {
        let header = view.header(of: ref)
        switch header.kind {
        case .asciiString:
            return String(decoding: view.payload(header), as: UTF8.self)
        case .utf16String:
            let bytes = view.payload(header)
            let units = (0..<header.count).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        default:
            return nil
        }
    }

    private func stringArray(_ ref: Int) -> [String]? {
        let header = view.header(of: ref)
        guard header.kind == .array else { return nil }
        var names: [String] = []
        for index in 0..<header.count {
            guard let name = stringValue(view.childRef(header, index)) else { return nil }
            names.append(name)
        }
        return names
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
        func single(_ name: StaticString) -> Int? {
            guard own.count == 1, view.isString(own.key, equalTo: name) else { return nil }
            return own.value
        }
        switch family {
        case .array, .set:
            guard let items = single("NS.objects"), isUIDArray(items) else { return .generic }
            lists[uid] = UInt64(items)
            return family == .array ? .array : .set
        case .orderedSet:
            return orderedSetIndices(ownKeys(header)) != nil ? .orderedSet : .generic
        case .dictionary:
            let keysRef = view.value(in: header, forKey: "NS.keys")
            let valuesRef = view.value(in: header, forKey: "NS.objects")
            if let keysRef, let valuesRef {
                let keyCount = view.header(of: keysRef)
                let valueCount = view.header(of: valuesRef)
                if keyCount.kind == .array, valueCount.kind == .array, keyCount.count != valueCount.count {
                    throw invalid("\(classInfos[Int(classOf[uid])].name) object \(uid) has \(keyCount.count) NS.keys but \(valueCount.count) NS.objects", uid: uid)
                }
                guard own.count == 2, isUIDArray(keysRef), isUIDArray(valuesRef) else { return .generic }
                lists[uid] = UInt64(keysRef) << 32 | UInt64(valuesRef)
                // The string-key form is decided after scalar identities are known (see
                // `ScalarIdentity.refineDictionaries`); pairs are always correct.
                return .pairDictionary
            }
            return .generic
        case .mutableString:
            guard let value = single("NS.string") else { return .generic }
            let kind = view.header(of: value).kind
            return kind == .asciiString || kind == .utf16String ? .mutableString : .generic
        case .data:
            guard let value = single("NS.data"), view.header(of: value).kind == .data else { return .generic }
            return .classData
        case .date:
            guard let value = single("NS.time"), view.header(of: value).kind == .real else { return .generic }
            return .date
        case .uuid:
            guard let value = single("NS.uuidbytes") else { return .generic }
            let bytes = view.header(of: value)
            return bytes.kind == .data && bytes.count == 16 ? .uuid : .generic
        }
    }

    /// For an ordered set's keys `NS.object.0` … `NS.object.N-1` (each a UID, each index
    /// once), the value refs in index order; nil for any other shape.
    func orderedSetIndices(_ keys: [(key: Int, value: Int)]) -> [Int]? {
        var ordered = [Int](repeating: -1, count: keys.count)
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
