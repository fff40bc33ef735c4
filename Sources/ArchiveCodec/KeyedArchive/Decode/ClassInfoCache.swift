import Synchronization

/// The class entries already read, across documents: a class entry's `ClassInfo` is a function
/// of its `$classname`, `$classes` and `$classhints` strings alone, and the same few classes
/// (NSMutableArray, NSDictionary, an app's own) come back in every document a process reads —
/// every request of the service, every file of a batch, every payload of a nested plist.
/// Reading one anew (its strings made, its default chain, family and readable forms looked
/// up, its `$class` member written) cost about 9,000 instructions, a fifth of a small
/// archive's decode; a hit costs its key (the strings' bytes, copied once) and one lookup.
///
/// What is kept is bounded whatever the inputs: at most `maximumEntries` entries, keys of at
/// most `maximumKeyBytes` bytes of strings, and `maximumRetainedBytes` of keys and written
/// names in all (a name of control characters is six times as long escaped). An entry that
/// would pass a bound empties the cache first: a client sending many distinct classes costs
/// the others their hits for a while (the reading they would do without a cache), never
/// memory, and the common classes come back with their next use. The answers do not depend on
/// what is kept: a miss reads the entry as a hit's entry was read.
///
/// Shared by every thread of the process behind one mutex, held for a lookup or an insert only.
final class ClassInfoCache: Sendable {
    static let shared = ClassInfoCache()

    /// Real class entries' keys are 50–300 bytes, and a process meets tens of classes.
    static let maximumEntries = 1_024
    static let maximumKeyBytes = 512
    static let maximumRetainedBytes = 2 << 20

    private struct Entries {
        var infos: [Key: KeyedArchive.ClassInfo] = [:]
        /// What the kept keys and `ClassInfo`s hold in strings (`retainedBytes`).
        var retained = 0
    }

    private let entries = Mutex(Entries())

    /// The bytes of a class entry's strings, each with its kind (ASCII or UTF-16, which read as
    /// text differently) and length: equal keys are equal strings.
    struct Key: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// How many entries are kept.
    var count: Int { entries.withLock { $0.infos.count } }

    func info(for key: Key) -> KeyedArchive.ClassInfo? {
        entries.withLock { $0.infos[key] }
    }

    /// Keeps `info` under `key`, emptying the cache first when it would pass a bound.
    func keep(_ info: KeyedArchive.ClassInfo, for key: Key) {
        let size = Self.retainedBytes(info, key)
        entries.withLock { entries in
            if entries.infos.count >= Self.maximumEntries || entries.retained + size > Self.maximumRetainedBytes {
                entries.infos.removeAll()
                entries.retained = 0
            }
            if entries.infos.updateValue(info, forKey: key) == nil { entries.retained += size }
        }
    }

    /// Empties the cache (for tests that compare a reading with a hit).
    func removeAll() {
        entries.withLock { $0 = Entries() }
    }

    /// The bytes an entry holds in strings: its key, and its info's name, written name and
    /// `$class` member, chain and hints (each string's UTF-8, and a few words per string).
    private static func retainedBytes(_ info: KeyedArchive.ClassInfo, _ key: Key) -> Int {
        let names = [info.name] + (info.chain ?? []) + (info.hints ?? [])
        return key.bytes.count + info.quotedName.count + info.classMember.count + names.reduce(0) { $0 + $1.utf8.count + 32 }
    }

    /// The key of a class entry whose name is string `name` and whose `$classes` and
    /// `$classhints` are `chain` and `hints` (plist references; nil when absent); nil when one
    /// of them is not what a class entry holds (its reading then says what is wrong) or the
    /// strings pass `maximumKeyBytes`.
    static func key(name: Int, chain: Int?, hints: Int?, in view: BinaryPlistView) -> Key? {
        var bytes: [UInt8] = []
        // The strings' bound, and a few bytes of lists' presence and counts past it.
        bytes.reserveCapacity(maximumKeyBytes + 8)
        guard append(string: name, to: &bytes, in: view), append(list: chain, to: &bytes, in: view), append(list: hints, to: &bytes, in: view)
        else { return nil }
        return Key(bytes: bytes)
    }

    /// Appends array `list`'s presence, count and strings; false when it is not an array of
    /// strings or the key would pass `maximumKeyBytes`.
    private static func append(list: Int?, to bytes: inout [UInt8], in view: BinaryPlistView) -> Bool {
        guard let list else {
            bytes.append(0)
            return true
        }
        let header = view.header(of: list)
        guard header.kind == .array, header.count <= Int(UInt16.max) else { return false }
        bytes.append(1)
        bytes.append(UInt8(truncatingIfNeeded: header.count))
        bytes.append(UInt8(truncatingIfNeeded: header.count >> 8))
        for index in 0..<header.count {
            guard append(string: view.childRef(header, index), to: &bytes, in: view) else { return false }
        }
        return true
    }

    /// Appends string `ref`'s kind, length and bytes; false when it is not a string or the key
    /// would pass `maximumKeyBytes`.
    private static func append(string ref: Int, to bytes: inout [UInt8], in view: BinaryPlistView) -> Bool {
        let header = view.header(of: ref)
        guard header.kind == .asciiString || header.kind == .utf16String else { return false }
        let payload = view.payload(header)
        guard bytes.count + payload.count + 3 <= maximumKeyBytes else { return false }
        bytes.append(header.kind == .asciiString ? 1 : 2)
        bytes.append(UInt8(truncatingIfNeeded: payload.count))
        bytes.append(UInt8(truncatingIfNeeded: payload.count >> 8))
        bytes.append(contentsOf: payload)
        return true
    }
}
