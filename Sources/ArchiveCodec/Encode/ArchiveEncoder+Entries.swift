/// `$objects` entries: reserving and filling UIDs, one shared entry per equal scalar, and the
/// reference lists (`NS.objects`, `NS.keys`) assembled on `scratch`.
extension ArchiveEncoder {
    mutating func reserve() -> Int {
        objects.append(Self.unfilled)
        return objects.count - 1
    }

    /// The UID for an object: the one a forward `$ref` reserved, or a new one.
    mutating func uidFor(_ object: Value, meta: ObjectMeta) -> Int {
        if meta.id != nil, let uid = uidOfObject[object.offset] { return uid }
        let uid = reserve()
        if meta.id != nil { uidOfObject[object.offset] = uid }
        return uid
    }

    /// The entry for a plain value: shared with every equal bare value, unless it has an `$id`.
    mutating func scalarEntry(_ value: UInt32, meta: ObjectMeta, object: Value) throws(CodecError) -> Int {
        if meta.id == nil { return unified(value) }
        let uid = uidFor(object, meta: meta)
        objects[uid] = value
        return uid
    }

    mutating func unified(_ value: UInt32) -> Int {
        let slot = Int(value)
        if slot < unifiedUID.count, unifiedUID[slot] != 0 { return Int(unifiedUID[slot]) }
        objects.append(value)
        unifiedUID.store(UInt32(truncatingIfNeeded: objects.count - 1), at: slot, filling: 0)
        return objects.count - 1
    }

    /// Fills entry `uid` with an instance dictionary: the (key, value) pairs on `scratch` from
    /// `start` (the first `ownPairs` are the form's own keys, such as `NS.objects`; the rest
    /// are data keys, which may not repeat them or `$class`), then `$class`. Removes the pairs.
    @inline(never)
    mutating func fillInstance(
        _ uid: Int, meta: ObjectMeta, defaultClass: StaticString?, pairsFrom start: Int, ownPairs: Int
    ) throws(CodecError) {
        guard meta.className != nil || defaultClass != nil else { throw fail("$class is required here") }
        let count = (scratch.count - start) / 2
        let classKey = try tree.string(static: "$class")
        for pair in ownPairs..<count {
            // `$class` and the form's own keys are written above and below: a data key with
            // the same name would make the archive hold that key twice. (Strings are
            // interned, so equal keys are the same value.)
            let key = scratch[start + 2 * pair]
            if key == classKey || (0..<ownPairs).contains(where: { scratch[start + 2 * $0] == key }) {
                throw fail("the key \(tree.text(of: key)) is taken by the archive format in this object")
            }
        }
        let classUID = try classEntry(meta: meta, defaultClass: defaultClass)
        scratch.append(classKey)
        scratch.append(try tree.uid(UInt64(classUID)))
        objects[uid] = try Self.dict(&tree, ofPairs: &scratch, from: start)
        scratch.removeSubrange(start...)
    }

    /// A plist array of the references in `range` of `scratch`. Both come in as `inout`, so
    /// neither is copied: a slice of `scratch` handed to `tree` would retain its buffer.
    static func array(_ tree: inout Tree, of scratch: inout [UInt32], _ range: Range<Int>) throws(CodecError) -> UInt32 {
        try scratch.withUnsafeBufferPointer { (all) throws(CodecError) -> UInt32 in
            try tree.array(UnsafeBufferPointer(rebasing: all[range]))
        }
    }

    /// A plist dictionary of the (key, value) reference pairs on `scratch` from `start`.
    static func dict(_ tree: inout Tree, ofPairs scratch: inout [UInt32], from start: Int) throws(CodecError) -> UInt32 {
        try scratch.withUnsafeBufferPointer { (all) throws(CodecError) -> UInt32 in
            try tree.dict(pairs: UnsafeBufferPointer(rebasing: all[start...]))
        }
    }

    /// Appends, after the (key, value) pairs on `scratch` from `start`, all their keys and
    /// then all their values; returns where the keys begin and how many pairs there are.
    mutating func splitPairs(from start: Int) -> (lists: Int, count: Int) {
        let count = (scratch.count - start) / 2
        let lists = scratch.count
        for pair in 0..<count { scratch.append(scratch[start + 2 * pair]) }
        for pair in 0..<count { scratch.append(scratch[start + 2 * pair + 1]) }
        return (lists, count)
    }
}
