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

    /// Fills entry `uid` with an instance dictionary: the (key, value) pairs of `pairs` (the
    /// first `ownPairs` are the form's own keys, such as `NS.objects`; the rest are data keys,
    /// which may not repeat them or `$class`), then `$class`. Pops `pairs`.
    @inline(never)
    mutating func fillInstance(
        _ uid: Int, meta: ObjectMeta, defaultClass: StaticString?, pairs: consuming ScratchFrame, ownPairs: Int
    ) throws(CodecError) {
        guard meta.className != nil || defaultClass != nil else { throw fail("$class is required here") }
        let count = scratch.count(of: pairs) / 2
        let classKey = try tree.string(static: MappingKeys.className)
        for pair in ownPairs..<count {
            // `$class` and the form's own keys are written above and below: a data key with
            // the same name would make the archive hold that key twice. (Strings are
            // interned, so equal keys are the same value.)
            let key = scratch.item(2 * pair, of: pairs)
            var taken = key == classKey
            for own in 0..<ownPairs where scratch.item(2 * own, of: pairs) == key { taken = true }
            if taken { throw fail("the key \(tree.text(of: key)) is taken by the archive format in this object") }
        }
        let classUID = try classEntry(meta: meta, defaultClass: defaultClass)
        scratch.append(classKey)
        scratch.append(try tree.uid(UInt64(classUID)))
        objects[uid] = try dict(ofPairs: pairs)
        scratch.pop(pairs)
    }

    /// A plist array of the references of `frame` (the top-most one), read in place.
    mutating func array(of frame: borrowing ScratchFrame) throws(CodecError) -> UInt32 {
        try scratch.withItems(of: frame) { (items) throws(CodecError) -> UInt32 in try tree.array(items) }
    }

    /// A plist dictionary of the (key, value) reference pairs of `frame` (the top-most one),
    /// read in place.
    mutating func dict(ofPairs frame: borrowing ScratchFrame) throws(CodecError) -> UInt32 {
        try scratch.withItems(of: frame) { (items) throws(CodecError) -> UInt32 in try tree.dict(pairs: items) }
    }
}
