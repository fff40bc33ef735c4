/// Class entries (`$classname`, `$classes`, `$classhints`), one per distinct class, shared by
/// its instances.
extension ArchiveEncoder {
    /// The class entry for an instance with `meta`'s `$class` (or `defaultClass`),
    /// `$classes` and `$classhints`, shared by every instance with the same ones. Most
    /// instances use the usual chain and no hints: those are found by the interned name
    /// alone, without building a chain or a `ClassKey`.
    mutating func classEntry(meta: ObjectMeta, defaultClass: StaticString?) throws(CodecError) -> Int {
        let nameValue: UInt32
        if let className = meta.className {
            nameValue = try stringValue(className)
        } else {
            nameValue = try tree.string(static: defaultClass ?? "")
        }
        let usual = !meta.chainGiven && meta.hints == nil
        let slot = Int(nameValue)
        if usual, slot < usualClassUIDs.count, usualClassUIDs[slot] != 0 { return Int(usualClassUIDs[slot]) }
        let name = meta.className.map { document.stringValue($0) } ?? defaultClass?.description ?? ""
        let chain = meta.chainGiven ? meta.chain.map { document.stringList($0) } : FoundationClasses.defaultChain(for: name)
        let uid = try classEntry(name: name, chain: chain, hints: meta.hints.map { document.stringList($0) })
        if usual { usualClassUIDs.store(UInt32(truncatingIfNeeded: uid), at: slot, filling: 0) }
        return uid
    }

    mutating func classEntry(name: String, chain: [String]?, hints: [String]?) throws(CodecError) -> Int {
        let key = ClassKey(name: name, chain: chain, hints: hints)
        if let uid = classUIDs[key] { return uid }
        // Room for the three keys and their values at once, and for each list's names: a
        // nested payload's archive defines its classes afresh, and arrays grown by appending
        // were allocated again on the way.
        var keys: [UInt32] = []
        var values: [UInt32] = []
        keys.reserveCapacity(3)
        values.reserveCapacity(3)
        keys.append(try tree.string(static: ArchiverKeys.className))
        values.append(try tree.string(name))
        if let chain {
            keys.append(try tree.string(static: MappingKeys.classes))
            var names: [UInt32] = []
            names.reserveCapacity(chain.count)
            for item in chain { names.append(try tree.string(item)) }
            values.append(try tree.array(names))
        }
        if let hints {
            keys.append(try tree.string(static: MappingKeys.classHints))
            var names: [UInt32] = []
            names.reserveCapacity(hints.count)
            for item in hints { names.append(try tree.string(item)) }
            values.append(try tree.array(names))
        }
        objects.append(try tree.dict(keys: keys, values: values))
        classUIDs[key] = objects.count - 1
        return objects.count - 1
    }
}
