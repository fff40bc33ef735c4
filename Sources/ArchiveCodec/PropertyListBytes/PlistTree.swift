/// A property list held flat: every value is a node in one array, containers list their
/// children by node index. Built by the XML reader and the archive encoder, read by the
/// plist writers. Flat storage means no value owns another, so releasing a tree of any
/// depth is a constant-depth operation.
///
/// Scalars (strings, numbers, booleans, dates, data, UIDs) are interned: one node per
/// distinct value, as Apple's writer does, which keeps repeated keys from bloating output.
struct PlistTree: PlistBuilding {
    struct Node {
        /// Integer/real/date/UID bits, or 0/1 for booleans.
        var bits: UInt64
        /// Strings and data: offset in `text`. Containers: offset in `children`.
        var start: UInt32
        /// Strings and data: byte length. Arrays: element count. Dicts: entry count.
        var count: UInt32
        var kind: PlistKind
        /// Integers only: the value is unsigned and above `Int64.max`.
        var isUnsigned: Bool = false
    }

    private(set) var nodes: [Node] = []
    /// Dict children are laid out as all keys, then all values (the binary plist order).
    private(set) var children: [UInt32] = []
    /// UTF-8 text of strings and bytes of data.
    private(set) var text: [UInt8] = []

    private var stringTable = ByteStringTable()
    private var dataTable = ByteStringTable()
    private var scalarTable = ScalarTable()
    /// Node of each UID value in the direct table (`UInt32.max` = none yet). UIDs are the
    /// most frequent scalar by far; an array lookup saves hashing each one. The value indexes
    /// the table and the input chooses it (`CF$UID`, a plain plist's `{"$uid": n}`), so a
    /// value goes there only below `directUIDBound`, which grows with the tree: the table
    /// stays within a few bytes per node, and a sparse value is hashed like other scalars.
    private var uidNodes: [UInt32] = []
    private static let directUIDLimit: UInt64 = 1 << 24
    /// UIDs below it take the direct table (never past `directUIDLimit`): 1,024 at first, then
    /// twice the nodes when a larger UID comes, or what `reserve` or `expectUIDs` announced
    /// (an archive's UIDs number its entries, each a node or more, so its own stay there). A
    /// stored bound: the common miss compares once.
    private var directUIDBound: UInt64 = 1024
    /// A new UID below it goes straight to the direct table: `directUIDBound`, or 0 once a UID
    /// below `directUIDLimit` was hashed (then `otherUID` asks the hash table first).
    private var freshUIDBound: UInt64 = 1024

    /// Node counts, text and children are 32-bit; inputs are bounded far below that by the
    /// body limit, but a hostile document must still fail cleanly rather than wrap.
    static let maximumSize = Int(UInt32.max) - 1

    func node(_ index: UInt32) -> Node { nodes[Int(index)] }

    func child(_ node: Node, _ index: Int) -> UInt32 { children[Int(node.start) + index] }

    func bytes(_ node: Node) -> ArraySlice<UInt8> {
        text[Int(node.start)..<(Int(node.start) + Int(node.count))]
    }

    /// Whether `node`'s bytes (as `bytes(_:)` has them) are `literal`'s: the lengths first,
    /// then the bytes in place. Every UID of an XML plist is a dictionary whose one key is
    /// asked this (`CF$UID`): a slice compared through `elementsEqual` cost it 360
    /// instructions, a twentieth of an XML archive's decode.
    func bytes(_ node: Node, equal literal: StaticString) -> Bool {
        guard Int(node.count) == literal.utf8CodeUnitCount else { return false }
        return text.withUnsafeBufferPointer { text in
            JSONText.text(UnsafeBufferPointer(rebasing: text[Int(node.start)..<(Int(node.start) + Int(node.count))]), equals: literal)
        }
    }

    /// Room for a small document's tables at once (`SmallDocument`), `values` nodes and
    /// children and `bytes` of text.
    mutating func reserveSmall(values: Int, bytes: Int) {
        nodes.reserveCapacity(values)
        children.reserveCapacity(values)
        text.reserveCapacity(bytes)
    }

    mutating func reserve(values: Int, bytes: Int) {
        // Capped near 1 GiB each: a reservation is address space the system must agree to lend.
        nodes.reserveCapacity(min(values, 1 << 26))
        expectUIDs(below: values)
        children.reserveCapacity(min(values, 1 << 28))
        text.reserveCapacity(min(bytes, 1 << 30))
    }

    func text(of index: UInt32) -> String { String(decoding: bytes(node(index)), as: UTF8.self) }

    private mutating func append(_ node: Node) throws(CodecError) -> UInt32 {
        guard nodes.count < Self.maximumSize, text.count < Self.maximumSize,
            children.count < Self.maximumSize
        else {
            throw CodecError(.limitExceeded, "property list exceeds \(Self.maximumSize) values or bytes", limit: Self.maximumSize)
        }
        nodes.append(node)
        // The XML reader and the encoders that build a tree make every node here.
        try ConversionDeadline.poll(nodes.count)
        return UInt32(nodes.count - 1)
    }

    /// A node no other value shares (never interned), for a salvage's mark to stand on
    /// (`XMLPlistReader.salvage`): `false`, or, where a dictionary's key belongs, a key whose
    /// text no XML key has (it begins with U+0000, which XML 1.0 excludes). The writers write
    /// the mark in its place and never its value.
    mutating func placeholder(key: Bool = false) throws(CodecError) -> UInt32 {
        guard key else { return try append(Node(bits: 0, start: 0, count: 0, kind: .bool)) }
        let start = UInt32(truncatingIfNeeded: text.count)
        text.append(0)
        MappingKeys.broken.withUTF8Buffer { text.append(contentsOf: $0) }
        return try append(Node(bits: 0, start: start, count: UInt32(truncatingIfNeeded: text.count) - start, kind: .asciiString))
    }

    // MARK: Scalars

    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32 {
        try internBytes(utf8, kind: .asciiString)
    }

    mutating func data(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32 {
        try internBytes(bytes, kind: .data)
    }

    private mutating func internBytes(_ bytes: UnsafeBufferPointer<UInt8>, kind: PlistKind) throws(CodecError) -> UInt32 {
        let hash = ByteStringTable.hash(bytes)
        // The table is moved out while in use so the comparison can read `self` freely.
        var table = ByteStringTable()
        if kind == .data { swap(&table, &dataTable) } else { swap(&table, &stringTable) }
        defer {
            if kind == .data { swap(&table, &dataTable) } else { swap(&table, &stringTable) }
        }
        let newIndex = UInt32(truncatingIfNeeded: nodes.count)
        let index = lookup(bytes, hash: hash, in: &table, newIndex: newIndex)
        if index != newIndex { return index }
        let start = UInt32(truncatingIfNeeded: text.count)
        text.append(contentsOf: bytes)
        return try append(Node(bits: 0, start: start, count: UInt32(truncatingIfNeeded: bytes.count), kind: kind))
    }

    /// Finds `bytes` among the interned strings (or data), or records `newIndex` for them.
    private func lookup(
        _ bytes: UnsafeBufferPointer<UInt8>, hash: UInt64, in table: inout ByteStringTable, newIndex: UInt32
    ) -> UInt32 {
        text.withUnsafeBufferPointer { text in
            nodes.withUnsafeBufferPointer { nodes in
                table.findOrInsert(
                    hash: hash,
                    equals: { index in
                        let node = nodes[Int(index)]
                        guard Int(node.count) == bytes.count else { return false }
                        guard let source = bytes.baseAddress else { return true }
                        return ByteStringTable.bytesEqual(text.baseAddress! + Int(node.start), source, count: bytes.count)
                    },
                    newValue: { newIndex })
            }
        }
    }

    private mutating func internScalar(_ kind: PlistKind, _ bits: UInt64, isUnsigned: Bool = false) throws(CodecError) -> UInt32 {
        let tag = kind.scalarTag(isUnsigned: isUnsigned)
        if let existing = scalarTable.find(tag: tag, bits: bits) { return existing }
        let index = try append(Node(bits: bits, start: 0, count: 0, kind: kind, isUnsigned: isUnsigned))
        scalarTable.insert(tag: tag, bits: bits, value: index)
        return index
    }

    mutating func integer(_ value: PlistInteger) throws(CodecError) -> UInt32 {
        try internScalar(.int, value.bits, isUnsigned: value.isUnsigned)
    }

    mutating func real(_ value: Double) throws(CodecError) -> UInt32 { try internScalar(.real, value.bitPattern) }

    mutating func date(_ value: Double) throws(CodecError) -> UInt32 { try internScalar(.date, value.bitPattern) }

    mutating func bool(_ value: Bool) throws(CodecError) -> UInt32 { try internScalar(.bool, value ? 1 : 0) }

    /// UIDs below `count` are expected (the input can hold that many references: the XML
    /// reader's bytes, an encoder's values): they take the direct table.
    mutating func expectUIDs(below count: Int) {
        directUIDBound = max(directUIDBound, min(Self.directUIDLimit, UInt64(min(count, 1 << 26))))
        if freshUIDBound != 0 { freshUIDBound = directUIDBound }
    }

    mutating func uid(_ value: UInt64) throws(CodecError) -> UInt32 {
        guard value < freshUIDBound else { return try otherUID(value) }
        let slot = Int(value)
        if slot >= uidNodes.count {
            uidNodes += repeatElement(UInt32.max, count: max(slot + 1, 2 * uidNodes.count) - uidNodes.count)
        }
        if uidNodes[slot] != UInt32.max { return uidNodes[slot] }
        let index = try append(Node(bits: value, start: 0, count: 0, kind: .uid, isUnsigned: false))
        uidNodes[slot] = index
        return index
    }

    /// A UID that `uid` does not look up in the direct table alone: past its bound so far
    /// (raised to twice the nodes, then hashed if still past it), or any once a small UID was
    /// hashed (in the direct table, in the hash table, or new).
    @inline(never)
    private mutating func otherUID(_ value: UInt64) throws(CodecError) -> UInt32 {
        let slot = Int(truncatingIfNeeded: value)
        if value < Self.directUIDLimit, slot < uidNodes.count, uidNodes[slot] != UInt32.max { return uidNodes[slot] }
        if value >= directUIDBound { expectUIDs(below: 2 * nodes.count + 1024) }
        guard value < directUIDBound else {
            if value < Self.directUIDLimit { freshUIDBound = 0 }
            return try internScalar(.uid, value)
        }
        if freshUIDBound == 0, let known = scalarTable.find(tag: PlistKind.uid.scalarTag(isUnsigned: false), bits: value) { return known }
        if slot >= uidNodes.count {
            uidNodes += repeatElement(UInt32.max, count: max(slot + 1, 2 * uidNodes.count) - uidNodes.count)
        }
        let index = try append(Node(bits: value, start: 0, count: 0, kind: .uid, isUnsigned: false))
        uidNodes[slot] = index
        return index
    }

    // MARK: Containers

    mutating func array(_ elements: some Collection<UInt32>) throws(CodecError) -> UInt32 {
        let start = UInt32(truncatingIfNeeded: children.count)
        children.append(contentsOf: elements)
        return try append(Node(bits: 0, start: start, count: UInt32(truncatingIfNeeded: elements.count), kind: .array))
    }

    /// `entries` are key/value node pairs; keys must be string nodes.
    mutating func dict(keys: some Collection<UInt32>, values: some Collection<UInt32>) throws(CodecError) -> UInt32 {
        precondition(keys.count == values.count)
        let start = UInt32(truncatingIfNeeded: children.count)
        children.append(contentsOf: keys)
        children.append(contentsOf: values)
        return try append(Node(bits: 0, start: start, count: UInt32(truncatingIfNeeded: keys.count), kind: .dict))
    }

    /// The same from (key, value) pairs laid out one after the other: keys, then values, go
    /// straight to `children`, with no array of either made first.
    mutating func dict(pairs: UnsafeBufferPointer<UInt32>) throws(CodecError) -> UInt32 {
        precondition(pairs.count % 2 == 0)
        let start = UInt32(truncatingIfNeeded: children.count)
        var index = 0
        while index < pairs.count {
            children.append(pairs[index])
            index += 2
        }
        index = 1
        while index < pairs.count {
            children.append(pairs[index])
            index += 2
        }
        return try append(Node(bits: 0, start: start, count: UInt32(truncatingIfNeeded: pairs.count / 2), kind: .dict))
    }
}
