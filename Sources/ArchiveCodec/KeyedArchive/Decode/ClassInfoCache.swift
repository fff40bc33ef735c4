import Synchronization

/// The class entries already read, across documents: a class entry's `ClassInfo` is a function
/// of its `$classname`, `$classes` and `$classhints` strings alone, and the same few classes
/// (NSMutableArray, NSDictionary, an app's own) come back in every document a process reads —
/// every request of the service, every file of a batch, every payload of a nested plist.
/// Reading one anew (its strings made, its default chain, family and readable forms looked
/// up, its `$class` member written) cost about 9,000 instructions, a fifth of a small
/// archive's decode; a hit costs its key (the strings' bytes, laid out on the stack), its hash and one probe.
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
        /// The kept keys' positions in `kept`, by their hash (`ByteStringTable`: seeded per
        /// process, a word at a time; `Hasher` and a dictionary of arrays cost a hit ten
        /// times what the rest of its lookup does).
        var table = ByteStringTable()
        var kept: [(key: [UInt8], info: KeyedArchive.ClassInfo)] = []
        /// What the kept keys and `ClassInfo`s hold in strings (`retainedBytes`).
        var retained = 0

        func info(_ key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> KeyedArchive.ClassInfo? {
            table.find(hash: hash) { Self.same(key, kept[Int($0)].key) }.map { kept[Int($0)].info }
        }

        static func same(_ key: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
            other.withUnsafeBufferPointer { ByteStringTable.equal(key, $0) }
        }
    }

    private let entries = Mutex(Entries())

    /// The bytes of a class entry's strings, each with its kind (ASCII or UTF-16, which read as
    /// text differently) and length: equal keys are equal strings.
    struct Key: Equatable {
        let bytes: [UInt8]
        let hash: UInt64

        init(bytes: [UInt8]) {
            self.bytes = bytes
            hash = bytes.withUnsafeBufferPointer { ByteStringTable.hash($0) }
        }

        init(_ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64) {
            self.bytes = Array(bytes)
            self.hash = hash
        }
    }

    /// What the cache knows of a class entry (`lookUp`).
    enum Lookup {
        /// The entry's info, read before.
        case known(KeyedArchive.ClassInfo)
        /// Not kept: the key to keep its info under once read, nil when it has none (`key`).
        case unknown(Key?)
    }

    /// How many entries are kept.
    var count: Int { entries.withLock { $0.kept.count } }

    func info(for key: Key) -> KeyedArchive.ClassInfo? {
        key.bytes.withUnsafeBufferPointer { bytes in entries.withLock { $0.info(bytes, hash: key.hash) } }
    }

    /// The info kept for the class entry whose name is string `name` and whose `$classes` and
    /// `$classhints` are `chain` and `hints` (as `key` takes them), or the key to keep it under.
    /// The key is laid out on the stack and copied into an array only on a miss: a hit
    /// allocates nothing.
    func lookUp(name: Int, chain: Int?, hints: Int?, in view: BinaryPlistView) -> Lookup {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.keyCapacity) { room in
            guard let count = Self.writeKey(name: name, chain: chain, hints: hints, in: view, into: room) else { return .unknown(nil) }
            let key = UnsafeBufferPointer(rebasing: room[0..<count])
            let hash = ByteStringTable.hash(key)
            if let info = entries.withLock({ $0.info(key, hash: hash) }) { return .known(info) }
            return .unknown(Key(key, hash: hash))
        }
    }

    /// Keeps `info` under `key`, emptying the cache first when it would pass a bound.
    func keep(_ info: KeyedArchive.ClassInfo, for key: Key) {
        let size = Self.retainedBytes(info, key)
        entries.withLock { entries in
            if entries.kept.count >= Self.maximumEntries || entries.retained + size > Self.maximumRetainedBytes {
                entries = Entries()
            }
            let known = key.bytes.withUnsafeBufferPointer { bytes in
                entries.table.find(hash: key.hash) { Entries.same(bytes, entries.kept[Int($0)].key) }
            }
            if let known {
                entries.kept[Int(known)].info = info
                return
            }
            let position = UInt32(entries.kept.count)
            entries.kept.append((key.bytes, info))
            _ = entries.table.findOrInsert(hash: key.hash, equals: { _ in false }, newValue: { position })
            entries.retained += size
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

    /// Room for a key: its strings' bound, and a few bytes of lists' presence and counts past it.
    private static let keyCapacity = maximumKeyBytes + 8

    /// The key of a class entry whose name is string `name` and whose `$classes` and
    /// `$classhints` are `chain` and `hints` (plist references; nil when absent); nil when one
    /// of them is not what a class entry holds (its reading then says what is wrong) or the
    /// strings pass `maximumKeyBytes`.
    static func key(name: Int, chain: Int?, hints: Int?, in view: BinaryPlistView) -> Key? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: keyCapacity) { room in
            writeKey(name: name, chain: chain, hints: hints, in: view, into: room).map { Key(bytes: Array(room[0..<$0])) }
        }
    }

    /// Writes the key `key(name:chain:hints:in:)` describes into `room` (`keyCapacity` bytes);
    /// returns its length, nil where `key` is nil.
    private static func writeKey(name: Int, chain: Int?, hints: Int?, in view: BinaryPlistView, into room: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var count = 0
        guard append(string: name, to: room, count: &count, in: view), append(list: chain, to: room, count: &count, in: view),
            append(list: hints, to: room, count: &count, in: view)
        else { return nil }
        return count
    }

    /// Appends array `list`'s presence, count and strings; false when it is not an array of
    /// strings or the key would pass `maximumKeyBytes`. The presence and count bytes are
    /// written past the strings' bound at most twice (`keyCapacity`).
    private static func append(list: Int?, to room: UnsafeMutableBufferPointer<UInt8>, count: inout Int, in view: BinaryPlistView) -> Bool {
        guard let list else {
            room[count] = 0
            count += 1
            return true
        }
        let header = view.header(of: list)
        guard header.kind == .array, header.count <= Int(UInt16.max) else { return false }
        room[count] = 1
        room[count + 1] = UInt8(truncatingIfNeeded: header.count)
        room[count + 2] = UInt8(truncatingIfNeeded: header.count >> 8)
        count += 3
        for index in 0..<header.count {
            guard append(string: view.childRef(header, index), to: room, count: &count, in: view) else { return false }
        }
        return true
    }

    /// Appends string `ref`'s kind, length and bytes; false when it is not a string or the key
    /// would pass `maximumKeyBytes`.
    private static func append(string ref: Int, to room: UnsafeMutableBufferPointer<UInt8>, count: inout Int, in view: BinaryPlistView) -> Bool {
        let header = view.header(of: ref)
        guard header.kind == .asciiString || header.kind == .utf16String else { return false }
        let payload = view.payload(header)
        guard count + payload.count + 3 <= maximumKeyBytes else { return false }
        room[count] = header.kind == .asciiString ? 1 : 2
        room[count + 1] = UInt8(truncatingIfNeeded: payload.count)
        room[count + 2] = UInt8(truncatingIfNeeded: payload.count >> 8)
        count += 3
        if let bytes = payload.baseAddress { (room.baseAddress! + count).update(from: bytes, count: payload.count) }
        count += payload.count
        return true
    }
}
