/// Counts one document's classes, the keys their instances use and the kinds of the values
/// under them, by number while a collector walks the document; `finish` names and orders them
/// into an `ArchiveSummary`.
///
/// Memory is bounded whatever the document: every distinct class has a record (a class needs
/// at least one object of the input to exist), but keys are tracked only up to `keysPerClass`
/// per class and `keysInAll` in all (the first met), kinds up to `kindsPerKey` per key; uses
/// beyond are counted, not named (`keysNotListed`, `kindsNotListed`). Names are cut to
/// `ArchiveSummary.listedNameLength` characters and chains to `listedChainLength` classes, so
/// the few names an input may hold cannot be repeated into a large summary (one long key
/// shared by every class, one long class name under every key's kinds).
struct SummaryTally {
    struct ClassRecord {
        var name: String
        var chain: [String]
        var count = 0
        var shared = 0
        var cyclic = 0
        var trackedKeys = 0
        var keysNotListed = 0
    }

    struct KeyRecord {
        /// The class index (−1: plain dictionaries).
        let owner: Int
        let name: String
        var count = 0
        var trackedKinds = 0
        var kindsNotListed = 0
    }

    private(set) var classes: [ClassRecord] = []
    private var classByName: [String: Int] = [:]
    private var keys: [KeyRecord] = []
    /// A key record by its owner and the collector's identity of the key (`keyID`).
    private var keyRecord: [Int: Int] = [:]
    /// The counts of kinds under key records: a kind's slot (its number and its key record)
    /// and count, and where each slot's count is.
    private var kindTotals: [(slot: Int, count: Int)] = []
    private var kindIndex: [Int: Int] = [:]
    /// The last answers of `keyRecord` and `kindIndex`, direct-mapped by a hash of the packed
    /// key: instances of one class repeat the same few keys and kinds, so most lookups end
    /// here instead of hashing (a slot another took is looked up again).
    private var recentKeys = [(packed: Int, record: Int)](filledWith: (-1, 0), count: Self.recentSlots)
    private var recentKinds = [(slot: Int, index: Int)](filledWith: (-1, 0), count: Self.recentSlots)
    private static let recentSlots = 1 << 10
    private var plainKeysNotListed = 0

    /// Keys tracked per class, and in all.
    static let keysPerClass = ArchiveSummary.listedKeys
    static let keysInAll = 5_000
    /// Kinds tracked per key (more than are listed, so the listed ones are the most frequent
    /// among them).
    static let kindsPerKey = 2 * ArchiveSummary.listedKinds
    /// `keyRecord`'s owner and key identity packed in one number: identities below 2^32.
    private static let ownerShift = 32

    /// The kind number of a reference to an instance of class `index` (scalar kinds are
    /// `SummaryKind` raw values).
    static func classKind(_ index: Int) -> Int { SummaryKind.allCases.count + index }

    static func kind(_ scalar: SummaryKind) -> Int { scalar.rawValue }

    /// The index of the class named `name`, made on first use with `chain`.
    mutating func classIndex(name: String, chain: @autoclosure () -> [String]) -> Int {
        let name = Self.shown(name)
        if let index = classByName[name] { return index }
        classByName[name] = classes.count
        classes.append(ClassRecord(name: name, chain: chain().prefix(ArchiveSummary.listedChainLength).map(Self.shown)))
        return classes.count - 1
    }

    /// `name`, cut to `listedNameLength` characters with `…` when longer.
    static func shown(_ name: String) -> String {
        guard name.utf8.count > ArchiveSummary.listedNameLength, name.count > ArchiveSummary.listedNameLength else { return name }
        return String(name.prefix(ArchiveSummary.listedNameLength)) + "…"
    }

    mutating func noteInstance(of index: Int, shared: Bool, cyclic: Bool) {
        classes[index].count += 1
        if shared { classes[index].shared += 1 }
        if cyclic { classes[index].cyclic += 1 }
    }

    /// One value of kind `kind` under a key of class `owner` (−1: of a plain dictionary);
    /// `keyID` is the collector's identity of the key (below 2^32: its plist reference), whose
    /// `name` is asked once.
    mutating func noteKey(owner: Int, keyID: Int, name: () -> String, kind: Int) {
        let packed = (owner + 1) << Self.ownerShift | keyID
        let recentKey = Self.recentSlot(packed)
        let record: Int
        if recentKeys[recentKey].packed == packed {
            record = recentKeys[recentKey].record
        } else if let known = keyRecord[packed] {
            record = known
            recentKeys[recentKey] = (packed, known)
        } else {
            let tracked = owner >= 0 ? classes[owner].trackedKeys : keys.count
            guard keys.count < Self.keysInAll, tracked < Self.keysPerClass else {
                if owner >= 0 { classes[owner].keysNotListed += 1 } else { plainKeysNotListed += 1 }
                return
            }
            if owner >= 0 { classes[owner].trackedKeys += 1 }
            record = keys.count
            keys.append(KeyRecord(owner: owner, name: Self.shown(name())))
            keyRecord[packed] = record
        }
        keys[record].count += 1
        let slot = kind * Self.keysInAll + record
        let recentKind = Self.recentSlot(slot)
        if recentKinds[recentKind].slot == slot {
            kindTotals[recentKinds[recentKind].index].count += 1
        } else if let index = kindIndex[slot] {
            kindTotals[index].count += 1
            recentKinds[recentKind] = (slot, index)
        } else if keys[record].trackedKinds < Self.kindsPerKey {
            keys[record].trackedKinds += 1
            kindIndex[slot] = kindTotals.count
            kindTotals.append((slot, 1))
        } else {
            keys[record].kindsNotListed += 1
        }
    }

    /// The slot of `recentKeys` or `recentKinds` for `packed` (Fibonacci hashing).
    @inline(__always)
    private static func recentSlot(_ packed: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(packed)) &* 0x9E37_79B9_7F4A_7C15) >> 54)
    }

    /// The classes, keys and kinds counted, named and ordered into `summary` (whose
    /// `classes` and `dictionaryKeys` it sets).
    func finish(into summary: inout ArchiveSummary) {
        var kindsOfKey = [[(kind: Int, count: Int)]](filledWith: [], count: keys.count)
        for (slot, count) in kindTotals {
            kindsOfKey[slot % Self.keysInAll].append((slot / Self.keysInAll, count))
        }
        var keysOfOwner = [[Int]](filledWith: [], count: classes.count + 1)
        for (index, record) in keys.enumerated() { keysOfOwner[record.owner + 1].append(index) }
        func kindName(_ kind: Int) -> String {
            kind < SummaryKind.allCases.count ? SummaryKind.allCases[kind].name : classes[kind - SummaryKind.allCases.count].name
        }
        func uses(_ records: [Int]) -> [ArchiveSummary.KeyUse] {
            // Records of one name (two plist objects of the same text) are one key.
            var byName: [String: Int] = [:]
            var merged: [(key: String, count: Int, kinds: [String: Int], notListed: Int)] = []
            for record in records {
                let key = keys[record]
                if byName[key.name] == nil {
                    byName[key.name] = merged.count
                    merged.append((key.name, 0, [:], 0))
                }
                let index = byName[key.name]!
                merged[index].count += key.count
                merged[index].notListed += key.kindsNotListed
                for (kind, count) in kindsOfKey[record] { merged[index].kinds[kindName(kind), default: 0] += count }
            }
            return merged.map { key in
                let kinds = key.kinds.map { ArchiveSummary.KindCount(kind: $0.key, count: $0.value) }
                return ArchiveSummary.KeyUse(key: key.key, count: key.count, kinds: kinds, kindsNotListed: key.notListed).capped()
            }
        }
        // A class with no instances (a superclass the stream defines) is named in chains only.
        summary.classes = classes.enumerated().filter { $0.element.count > 0 }.map { index, record in
            ArchiveSummary.ClassUse(
                name: record.name, chain: record.chain, count: record.count, shared: record.shared, cyclic: record.cyclic,
                keys: uses(keysOfOwner[index + 1]), keysNotListed: record.keysNotListed)
        }
        summary.dictionaryKeys = uses(keysOfOwner[0])
        summary.dictionaryKeysNotListed = plainKeysNotListed
        summary.capLists()
    }
}
