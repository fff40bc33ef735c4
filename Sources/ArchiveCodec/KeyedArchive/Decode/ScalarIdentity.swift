/// Decides which `$objects` entries need an `$id` in the readable view.
///
/// Class instances need one when referenced more than once (shared or cyclic). Plain
/// values (strings, numbers, data, plist dates) are written bare, and the encoder turns
/// equal bare values into one shared entry, as Foundation does for literals and small
/// numbers. So of the entries holding one value, the most referenced is written bare
/// (the "canonical" one); any other entry with the same value is a distinct object and
/// carries an `$id`, which keeps the archive's exact sharing through a round trip.
///
/// **Ties.** When several entries of one value are referenced equally often (and most),
/// the canonical one is the first the readable view reaches (`Placement`, breadth-first in
/// document order), not the first in `$objects`: the encoder numbers entries in its own
/// order, so only a choice made in document terms comes back the same after decode →
/// encode → decode. Here the tied entries are all marked as carrying `$id` and listed in
/// `tieGroups`; placement makes the first one it reaches of each group bare.
///
/// Grouping runs in two passes over the scalar entries alone (about a fifth of a typical
/// archive's entries), each split into `Parallelism` jobs: every scalar's value hash, by
/// ranges of UIDs; then the groups, by partitions of the hash (equal values hash alike, so
/// each group lies in one partition, and each job writes only the `leader` and `best` slots
/// of its own scalars). Each job meets its scalars in UID order, as one pass would, so the
/// result does not depend on the split.
enum ScalarIdentity {
    /// The scalar entries in UID order, with their value hashes.
    private struct Scalars {
        var uids: [Int32] = []
        var hashes: [UInt64] = []
    }

    /// Per entry, whether it carries `$id` (tied scalars provisionally), and per entry the
    /// group of a tied scalar (the UID of one member, the same for the whole group; −1 for
    /// every other entry; empty when there is no tie).
    static func identityFlags(
        view: BinaryPlistView, objectsRef: Int, forms: [ObjectForm], referenceCounts: [UInt32], sharedObjects: Bitmap,
        parallelism: Parallelism = .serial
    ) -> (flags: [Bool], tieGroups: [Int32]) {
        let count = forms.count
        let objectsHeader = view.header(of: objectsRef)
        let parts = parallelism.map(parallelism.chunks(of: count)) { range in
            hashed(range, view: view, objectsHeader: objectsHeader, forms: forms, sharedObjects: sharedObjects)
        }
        // One part (a serial pass, as every small archive's) is the whole: taken as it is.
        var scalars = parts.count == 1 ? parts[0] : Scalars()
        if parts.count > 1 {
            scalars.uids.reserveCapacity(parts.reduce(0) { $0 + $1.uids.count })
            scalars.hashes.reserveCapacity(scalars.uids.capacity)
            for part in parts {
                scalars.uids += part.uids
                scalars.hashes += part.hashes
            }
        }
        // Per scalar (by its index in `scalars`): the first scalar with its value, and the
        // most referenced one (the first of them on a tie).
        var leader = [Int32](filledWith: -1, count: scalars.uids.count)
        var best = [Int32](filledWith: -1, count: scalars.uids.count)
        let partitions = parallelism.ranges(of: count).count
        leader.withUnsafeMutableBufferPointer { leader in
            best.withUnsafeMutableBufferPointer { best in
                _ = parallelism.map(Cuts(units: partitions)) { part in
                    group(
                        partition: part.lowerBound, of: partitions, scalars: scalars, view: view, objectsHeader: objectsHeader,
                        forms: forms, referenceCounts: referenceCounts, sharedObjects: sharedObjects, leader: leader, best: best)
                }
            }
        }
        var flags = [Bool](filledWith: false, count: count)
        for uid in 1..<max(count, 1) where !forms[uid].isScalar {
            flags[uid] = referenceCounts[uid] >= 2
        }
        var tieGroups: [Int32] = []
        for (index, uid) in scalars.uids.enumerated() {
            let group = Int(leader[index])
            let canonical = Int(best[group])
            guard canonical != index else { continue }
            flags[Int(uid)] = true
            guard referenceCounts[Int(uid)] == referenceCounts[Int(scalars.uids[canonical])] else { continue }
            // As referenced as the canonical one: a tie, settled by placement.
            if tieGroups.isEmpty { tieGroups = [Int32](filledWith: -1, count: count) }
            let groupID = scalars.uids[group]
            tieGroups[Int(uid)] = groupID
            tieGroups[Int(scalars.uids[canonical])] = groupID
            flags[Int(scalars.uids[canonical])] = true
        }
        return (flags, tieGroups)
    }

    /// The scalar entries of `range` with their value hashes. An entry that is the same
    /// plist object as an earlier one of the range takes that one's hash: otherwise many
    /// entries pointing at one long string would cost entries × length.
    private static func hashed(
        _ range: Range<Int>, view: BinaryPlistView, objectsHeader: PlistObjectHeader, forms: [ObjectForm], sharedObjects: Bitmap
    ) -> Scalars {
        var part = Scalars()
        // A small archive's scalars at once (`SmallDocument`).
        part.uids.reserveCapacity(Swift.min(range.count, SmallDocument.values))
        part.hashes.reserveCapacity(Swift.min(range.count, SmallDocument.values))
        var hashedAt = ScalarTable()
        for uid in range where forms[uid].isScalar {
            let ref = view.childRef(objectsHeader, uid)
            var hash: UInt64
            // An object with one referrer belongs to this entry alone: not looked up.
            if !sharedObjects.contains(ref) {
                hash = valueHash(view, ref, forms[uid])
            } else if let earlier = hashedAt.find(tag: 2, bits: UInt64(ref)).map(Int.init), forms[Int(part.uids[earlier])] == forms[uid] {
                hash = part.hashes[earlier]
            } else {
                hash = valueHash(view, ref, forms[uid])
                hashedAt.insert(tag: 2, bits: UInt64(ref), value: UInt32(part.uids.count))
            }
            part.uids.append(Int32(uid))
            part.hashes.append(hash)
        }
        return part
    }

    /// Groups the scalars whose hash falls in `partition`, found by hash then confirmed by
    /// equality. Scalars that are the same plist object share a group without comparing
    /// values again (tag 2, keyed by plist object).
    private static func group(
        partition: Int, of partitions: Int, scalars: Scalars, view: BinaryPlistView, objectsHeader: PlistObjectHeader, forms: [ObjectForm],
        referenceCounts: [UInt32], sharedObjects: Bitmap, leader: UnsafeMutableBufferPointer<Int32>, best: UnsafeMutableBufferPointer<Int32>
    ) {
        var leaderByHash = ScalarTable()
        var collisions: [UInt64: [Int32]] = [:]
        func uid(_ index: Int32) -> Int { Int(scalars.uids[Int(index)]) }
        for index in scalars.uids.indices {
            let hash = scalars.hashes[index]
            guard partitions == 1 || Int(hash % UInt64(partitions)) == partition else { continue }
            let entry = Int(scalars.uids[index])
            let form = forms[entry]
            let ref = view.childRef(objectsHeader, entry)
            let shared = sharedObjects.contains(ref)
            let knownGroup = shared ? leaderByHash.find(tag: 2, bits: UInt64(ref)).map(Int32.init) : nil
            if let known = knownGroup, forms[uid(known)] == form {
                leader[index] = known
                if referenceCounts[entry] > referenceCounts[uid(best[Int(known)])] { best[Int(known)] = Int32(index) }
                continue
            }
            var found: Int32 = -1
            if let first = leaderByHash.find(tag: 1, bits: hash).map(Int32.init) {
                if forms[uid(first)] == form && equal(view, view.childRef(objectsHeader, uid(first)), ref, form) {
                    found = first
                } else {
                    for other in collisions[hash, default: []]
                    where forms[uid(other)] == form && equal(view, view.childRef(objectsHeader, uid(other)), ref, form) {
                        found = other
                        break
                    }
                    if found < 0 { collisions[hash, default: []].append(Int32(index)) }
                }
            } else {
                leaderByHash.insert(tag: 1, bits: hash, value: UInt32(index))
            }
            let group = found >= 0 ? Int(found) : index
            leader[index] = Int32(group)
            if shared && knownGroup == nil { leaderByHash.insert(tag: 2, bits: UInt64(ref), value: UInt32(group)) }
            if best[group] < 0 || referenceCounts[entry] > referenceCounts[uid(best[group])] {
                best[group] = Int32(index)
            }
        }
    }

    /// Hash of a scalar's value: strings by Unicode scalars (so ASCII and UTF-16 storage of
    /// the same text agree), numbers by value, data by bytes. Seeded per process
    /// (`ByteStringTable.hash`), so crafted collisions cannot be planned.
    static func valueHash(_ view: BinaryPlistView, _ ref: Int, _ form: ObjectForm) -> UInt64 {
        let header = view.header(of: ref)
        let content: UInt64
        switch form {
        case .string:
            // ASCII text hashes as its bytes whichever way it is stored; other text by scalars.
            if header.kind == .asciiString {
                content = ByteStringTable.hash(view.payload(header))
            } else {
                // The scalars' bytes are laid out in scratch memory, four at most per UTF-16 unit
                // (an array grown by each scalar's bytes cost a non-ASCII string 200 a scalar).
                content = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * header.count + 1) { scratch in
                    let (count, isASCII) = scalarBytes(view, header, to: scratch.baseAddress!)
                    return ByteStringTable.hash(UnsafeBufferPointer(rebasing: scratch[0..<count])) ^ (isASCII ? 0 : 0x5555)
                }
            }
        case .data:
            content = ByteStringTable.hash(view.payload(header))
        case .integer:
            let value = view.integer(header)
            content = hashWord(value.bits) ^ (value.isUnsigned ? 0xAAAA : 0)
        case .real, .plistDate:
            content = hashWord(view.real(PlistObjectHeader(kind: .real, marker: header.marker, start: header.start, count: header.count)).bitPattern)
        case .bool:
            content = view.bool(header) ? 1 : 2
        default:
            content = 0
        }
        return content &+ UInt64(form.rawValue) &* 0x9E37_79B9_7F4A_7C15
    }

    private static func hashWord(_ value: UInt64) -> UInt64 {
        withUnsafeBytes(of: value.littleEndian) { raw in raw.withMemoryRebound(to: UInt8.self) { ByteStringTable.hash($0) } }
    }

    static func equal(_ view: BinaryPlistView, _ a: Int, _ b: Int, _ form: ObjectForm) -> Bool {
        if a == b { return true }
        let left = view.header(of: a)
        let right = view.header(of: b)
        switch form {
        case .string:
            return view.sameText(a, b)
        case .data:
            return view.payload(left).elementsEqual(view.payload(right))
        case .integer:
            return view.integer(left) == view.integer(right)
        case .real, .plistDate:
            return view.real(left).bitPattern == view.real(right).bitPattern
        case .bool:
            return view.bool(left) == view.bool(right)
        default:
            return false
        }
    }

    /// Writes the scalars of UTF-16 string `header` at `out`, which has room for four bytes a
    /// unit: one byte each when every scalar is ASCII (the bytes an ASCII string holds), else
    /// four each, little-endian.
    private static func scalarBytes(_ view: BinaryPlistView, _ header: PlistObjectHeader, to out: UnsafeMutablePointer<UInt8>) -> (count: Int, isASCII: Bool) {
        let bytes = view.payload(header)
        var index = 0
        while index < header.count, bytes[2 * index] == 0, bytes[2 * index + 1] < 0x80 {
            out[index] = bytes[2 * index + 1]
            index += 1
        }
        if index == header.count { return (index, true) }
        var count = 0
        forEachScalar(view, header) { scalar in
            UnsafeMutableRawPointer(out + count).storeBytes(of: scalar.littleEndian, as: UInt32.self)
            count += 4
        }
        return (count, false)
    }

    static func forEachScalar(_ view: BinaryPlistView, _ header: PlistObjectHeader, _ body: (UInt32) -> Void) {
        let bytes = view.payload(header)
        if header.kind == .asciiString {
            for byte in bytes { body(UInt32(byte)) }
            return
        }
        var index = 0
        while index < header.count {
            let unit = UInt32(bytes[2 * index]) << 8 | UInt32(bytes[2 * index + 1])
            index += 1
            if unit >= 0xD800 && unit < 0xDC00 {
                let low = UInt32(bytes[2 * index]) << 8 | UInt32(bytes[2 * index + 1])
                index += 1
                body(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            } else {
                body(unit)
            }
        }
    }
}
