extension JSONDocument {
    /// Builds the keyed archive this document describes (mapping in README.md) and writes it
    /// as a binary or XML property list. Never recurses on the document's nesting, so any
    /// depth the parser accepts encodes on any stack.
    public func archive(format: PlistFormat) throws(CodecError) -> [UInt8] {
        switch format {
        case .binary:
            var encoder = ArchiveEncoder(document: self, tree: BinaryPlistBuilder())
            let root = try encoder.encodeDocument()
            // Moved out, so that finishing in place copies nothing.
            var builder = BinaryPlistBuilder()
            swap(&builder, &encoder.tree)
            return builder.finish(root: root)
        case .xml:
            var encoder = ArchiveEncoder(document: self, tree: PlistTree())
            let root = try encoder.encodeDocument()
            return try XMLPlistWriter.write(encoder.tree, root: root)
        }
    }
}

/// JSON document → the property list of a keyed archive (into any `PlistBuilding`), without recursion: a reference to an
/// object gets its UID at once and the object's content is filled later from a work list
/// (`pending`), and nested inline plist containers are built with an explicit stack.
/// `$ref`s to objects not yet met reserve the UID, filled when the `$id` is reached. Equal
/// bare strings and numbers share one entry; class entries are shared per class.
struct ArchiveEncoder<Tree: PlistBuilding> {
    let document: JSONDocument
    var tree: Tree

    /// Plist node of each `$objects` entry; `unfilled` until its content is built.
    private var objects: [UInt32] = [0]
    private static var unfilled: UInt32 { .max }
    /// UID of each JSON node that carries an `$id`.
    private var uidOfNode: [Int: Int] = [:]
    /// JSON node that carries each `$id` (keys rendered as "i:5" or "s:name").
    private var nodeOfID: [String: Int] = [:]
    /// UID of the shared entry for each interned scalar plist node.
    private var unifiedUID: [UInt32: Int] = [:]
    private var classUIDs: [ClassKey: Int] = [:]
    /// Class entries with the usual chain and no hints, by name.
    private var usualClassUIDs: [String: Int] = [:]
    /// Objects whose UID is handed out and whose content is still to build: the JSON node
    /// and the UID only (a wide array puts every element here at once, so entries are kept
    /// small; an object's `Meta` is read again when it is filled).
    private var pending: [(index: Int, uid: Int)] = []
    /// The object being filled: where errors without a node of their own are reported.
    private var currentNode = 0

    private struct ClassKey: Hashable {
        var name: String
        var chain: [String]?
        var hints: [String]?
    }

    /// A data key as it stands in the document: its key node, and whether its first `$`
    /// escapes a `$` (`$$name` is the key `$name`). Interned from the document's text without
    /// copying it.
    private struct DataKey {
        var node: Int
        var escaped: Bool
    }

    private struct Meta {
        var id: String?
        var className: String?
        var chain: [String]?
        var chainGiven = false
        var hints: [String]?
        /// The one value key of a wrapper (`$array`, `$dict`, …), with its node.
        var wrapper: (name: String, node: Int)?
        /// Data keys (already unescaped) of a generic object or NSDictionary.
        var data: [(key: DataKey, node: Int)] = []
        var ref: Int?
    }

    init(document: JSONDocument, tree: Tree) {
        self.document = document
        self.tree = tree
        // The archive has at most about one plist value per JSON value, plus the UIDs.
        self.tree.reserve(values: document.nodes.count * 2, bytes: document.text.count)
    }

    // MARK: Errors

    private func fail(_ message: String, at node: Int? = nil) -> CodecError {
        let at = node ?? currentNode
        return CodecError(.invalidDocument, message, byteOffset: Int(document.node(at).offset), jsonPath: document.path(to: at))
    }

    // MARK: Document

    mutating func encodeDocument() throws(CodecError) -> UInt32 {
        try collectIDs()
        objects[0] = try tree.string("$null")
        var archiver = "NSKeyedArchiver"
        var version = PlistInteger(signed: 100_000)
        var topKeys: [UInt32] = []
        var topValues: [UInt32] = []
        let rootNode = document.node(0)
        let members = rootNode.kind == .object ? document.members(of: 0) : []
        if let top = members.first(where: { document.string($0.key).elementsEqual("$top".utf8) }) {
            for member in members {
                switch document.stringValue(member.key) {
                case "$top":
                    guard document.node(member.value).kind == .object else { throw fail("$top must be an object", at: member.value) }
                case "$archiver":
                    guard document.node(member.value).kind == .string else { throw fail("$archiver must be a string", at: member.value) }
                    archiver = document.stringValue(member.value)
                case "$version":
                    let node = document.node(member.value)
                    guard node.kind == .int || node.kind == .uint else { throw fail("$version must be an integer", at: member.value) }
                    version = node.kind == .int ? PlistInteger(signed: Int64(bitPattern: node.bits)) : PlistInteger(unsigned: node.bits)
                default:
                    throw fail("unexpected key beside $top (allowed: $archiver, $version)", at: member.value)
                }
            }
            for member in document.members(of: top.value) {
                currentNode = member.value
                topKeys.append(try keyString(dataKey(member.key)))
                if let inline = singleMember(member.value, named: "$inline") {
                    topValues.append(try encodeInlineBody(inline.value))
                } else {
                    topValues.append(try tree.uid(UInt64(encodeObject(member.value))))
                }
            }
        } else {
            topKeys.append(try tree.string("root"))
            topValues.append(try tree.uid(UInt64(encodeObject(0))))
        }
        try fillPending()
        if let unresolved = objects.firstIndex(of: Self.unfilled) {
            let id = uidOfNode.first { $0.value == unresolved }.map { document.stringValue($0.key) } ?? "?"
            throw fail("$ref to $id \(id) whose object is not in a value position", at: nil)
        }
        let top = try tree.dict(keys: topKeys, values: topValues)
        let objectArray = try tree.array(objects)
        return try tree.dict(
            keys: [try tree.string("$version"), try tree.string("$archiver"), try tree.string("$top"), try tree.string("$objects")],
            values: [try tree.integer(version), try tree.string(archiver), top, objectArray])
    }

    /// Finds every `$id` first, so that `$ref`s may point forward as well as back.
    private mutating func collectIDs() throws(CodecError) {
        for index in 0..<document.nodes.count where document.node(index).kind == .object {
            for member in document.members(of: index) where document.string(member.key).elementsEqual("$id".utf8) {
                let key = try idKey(member.value)
                guard nodeOfID[key] == nil else {
                    throw CodecError(.invalidDocument, "$id \(key.dropFirst(2)) is defined twice", byteOffset: Int(document.node(member.value).offset))
                }
                nodeOfID[key] = index
            }
        }
    }

    private func idKey(_ node: Int) throws(CodecError) -> String {
        let value = document.node(node)
        switch value.kind {
        case .int: return "i:\(Int64(bitPattern: value.bits))"
        case .uint: return "i:\(value.bits)"
        case .string: return "s:" + document.stringValue(node)
        default: throw CodecError(.invalidDocument, "$id and $ref take an integer or a string", byteOffset: Int(value.offset))
        }
    }

    // MARK: Object context

    /// Encodes a value that stands for an object (a `$top` value, a collection element, a
    /// dictionary value, a referenced key of an instance) and returns its UID. Values are
    /// entered at once; containers and class instances get their UID now and their content
    /// from `fillPending`, so no call here ever descends into the document.
    private mutating func encodeObject(_ index: Int) throws(CodecError) -> Int {
        let node = document.node(index)
        switch node.kind {
        case .null:
            return 0
        case .string:
            return try unified(tree.string(bytes: Array(document.string(index))))
        case .int, .uint, .real, .bool:
            return try unified(scalarNumber(index))
        case .array:
            let uid = reserve()
            pending.append((index, uid))
            return uid
        case .object:
            return try encodeObjectNode(index)
        }
    }

    @inline(never)
    private mutating func encodeObjectNode(_ index: Int) throws(CodecError) -> Int {
        let meta = try readMeta(index)
        if let target = meta.ref {
            if let uid = uidOfNode[target] { return uid }
            let uid = objects.count
            objects.append(Self.unfilled)
            uidOfNode[target] = uid
            return uid
        }
        if let wrapper = meta.wrapper {
            switch wrapper.name {
            case "$array", "$set", "$orderedSet", "$dict":
                break
            case "$plist":
                guard meta.className == nil, meta.chain == nil, meta.hints == nil else {
                    throw fail("$plist takes no $class, $classes or $classhints", at: index)
                }
                let kind = document.node(wrapper.node).kind
                guard kind == .array || kind == .object else { throw fail("$plist takes an array or an object", at: wrapper.node) }
            default:
                // Single values: nothing below them to defer.
                return try encodeWrapper(index, meta: meta, wrapper: wrapper)
            }
        } else if meta.className == nil {
            // A plain JSON object: an NSDictionary with string keys.
            guard meta.id == nil, meta.chain == nil, meta.hints == nil else {
                throw fail("an object with $id, $classes or $classhints needs $class or a value wrapper such as $dict", at: index)
            }
        }
        let uid = uidFor(index, meta: meta)
        pending.append((index, uid))
        return uid
    }

    /// Builds the content of every object handed a UID by `encodeObject`, last first; filling
    /// one may hand out more.
    private mutating func fillPending() throws(CodecError) {
        while let (index, uid) = pending.popLast() {
            currentNode = index
            guard document.node(index).kind == .object else {
                let items = try encodeElements(document.elements(of: index))
                try fillInstance(uid, meta: Meta(), defaultClass: FoundationClasses.defaultArrayClass, entries: [("NS.objects", tree.array(items))])
                continue
            }
            let meta = try readMeta(index)
            guard let wrapper = meta.wrapper else {
                if meta.className == nil {
                    try fillDictionary(uid, meta: meta, keys: meta.data)
                } else {
                    try fillGeneric(uid, meta: meta)
                }
                continue
            }
            switch wrapper.name {
            case "$dict": try fillDictWrapper(uid, meta: meta, wrapper: wrapper)
            case "$plist":
                // As an `$objects` entry, a dictionary with `$class` would read back as a class
                // instance. (Only `$$class` unescapes to it; a bare `$class` is refused as a key.)
                if document.node(wrapper.node).kind == .object {
                    for member in document.members(of: wrapper.node) where document.string(member.key).elementsEqual("$$class".utf8) {
                        throw fail("a $plist dictionary cannot hold the key $class: it would read back as a class instance", at: member.key)
                    }
                }
                objects[uid] = try encodeInlineContainers(wrapper.node)
            default: try fillCollectionWrapper(uid, meta: meta, wrapper: wrapper)
            }
        }
    }

    /// A class instance with its archived keys (in key context).
    private mutating func fillGeneric(_ uid: Int, meta: Meta) throws(CodecError) {
        var entries: [(key: UInt32, value: UInt32)] = []
        entries.reserveCapacity(meta.data.count)
        for (key, value) in meta.data {
            entries.append((try keyString(key), try encodeKeyValue(value)))
        }
        try fillInstance(uid, meta: meta, defaultClass: "", entries: [], extra: entries)
    }

    private mutating func fillCollectionWrapper(_ uid: Int, meta: Meta, wrapper: (name: String, node: Int)) throws(CodecError) {
        guard document.node(wrapper.node).kind == .array else { throw fail("\(wrapper.name) takes an array", at: wrapper.node) }
        let items = try encodeElements(document.elements(of: wrapper.node))
        switch wrapper.name {
        case "$orderedSet":
            var extra: [(key: UInt32, value: UInt32)] = []
            for (position, item) in items.enumerated() { extra.append((try tree.string("NS.object.\(position)"), item)) }
            try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultOrderedSetClass, entries: [], extra: extra)
        default:
            try fillInstance(uid, meta: meta, defaultClass: wrapper.name == "$array" ? FoundationClasses.defaultArrayClass : FoundationClasses.defaultSetClass,
                             entries: [("NS.objects", tree.array(items))])
        }
    }

    private mutating func fillDictWrapper(_ uid: Int, meta: Meta, wrapper: (name: String, node: Int)) throws(CodecError) {
        let value = document.node(wrapper.node)
        if value.kind == .object {
            let dataKeys = try document.members(of: wrapper.node).map { (member) throws(CodecError) -> (key: DataKey, node: Int) in
                (try dataKey(member.key), member.value)
            }
            try fillDictionary(uid, meta: meta, keys: dataKeys)
        } else if value.kind == .array {
            var keys: [UInt32] = []
            var values: [UInt32] = []
            for pair in document.elements(of: wrapper.node) {
                guard document.node(pair).kind == .array, document.node(pair).count == 2 else {
                    throw fail("$dict pairs are [key, value] arrays", at: pair)
                }
                keys.append(try tree.uid(UInt64(encodeObject(pair + 1))))
                values.append(try tree.uid(UInt64(encodeObject(pair + 1 + Int(document.node(pair + 1).size)))))
            }
            try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultDictionaryClass,
                             entries: [("NS.keys", tree.array(keys)), ("NS.objects", tree.array(values))])
        } else {
            throw fail("$dict takes an object or an array of [key, value] pairs", at: wrapper.node)
        }
    }

    /// The wrappers of single values (`$string`, `$date`, `$uuid`, …), which do not recurse.
    @inline(never)
    private mutating func encodeWrapper(_ index: Int, meta: Meta, wrapper: (name: String, node: Int)) throws(CodecError) -> Int {
        let value = document.node(wrapper.node)
        func requireNoClass() throws(CodecError) {
            guard meta.className == nil, meta.chain == nil, meta.hints == nil else {
                throw fail("\(wrapper.name) takes no $class, $classes or $classhints", at: index)
            }
        }
        switch wrapper.name {
        case "$string":
            guard value.kind == .string else { throw fail("$string takes a string", at: wrapper.node) }
            let text = try tree.string(bytes: Array(document.string(wrapper.node)))
            if meta.className != nil {
                let uid = uidFor(index, meta: meta)
                try fillInstance(uid, meta: meta, defaultClass: "", entries: [("NS.string", text)])
                return uid
            }
            return try scalarEntry(text, meta: meta, index: index)
        case "$data":
            let bytes = try dataNode(wrapper.node)
            if meta.className != nil {
                let uid = uidFor(index, meta: meta)
                try fillInstance(uid, meta: meta, defaultClass: "", entries: [("NS.data", bytes)])
                return uid
            }
            return try scalarEntry(bytes, meta: meta, index: index)
        case "$number":
            try requireNoClass()
            return try scalarEntry(numberNode(wrapper.node), meta: meta, index: index)
        case "$real":
            try requireNoClass()
            return try scalarEntry(tree.real(nonFinite(wrapper.node)), meta: meta, index: index)
        case "$plistDate":
            try requireNoClass()
            return try scalarEntry(tree.date(time(wrapper.node)), meta: meta, index: index)
        case "$date":
            let uid = uidFor(index, meta: meta)
            try fillInstance(uid, meta: meta, defaultClass: "NSDate", entries: [("NS.time", tree.real(time(wrapper.node)))])
            return uid
        case "$uuid":
            guard value.kind == .string, let bytes = Self.uuidBytes(document.string(wrapper.node)) else {
                throw fail("$uuid takes text like E621E1F8-C36C-495A-93FC-0C247A3E6E5F", at: wrapper.node)
            }
            let uid = uidFor(index, meta: meta)
            let data = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
            try fillInstance(uid, meta: meta, defaultClass: "NSUUID", entries: [("NS.uuidbytes", data)])
            return uid
        default:
            throw fail("\(wrapper.name) cannot stand for an object here (it belongs inside an instance's keys)", at: index)
        }
    }

    private mutating func encodeElements(_ elements: [Int]) throws(CodecError) -> [UInt32] {
        var items: [UInt32] = []
        items.reserveCapacity(elements.count)
        for element in elements {
            items.append(try tree.uid(UInt64(encodeObject(element))))
        }
        return items
    }

    private mutating func fillDictionary(_ uid: Int, meta: Meta, keys dataKeys: [(key: DataKey, node: Int)]) throws(CodecError) {
        var keys: [UInt32] = []
        var values: [UInt32] = []
        keys.reserveCapacity(dataKeys.count)
        values.reserveCapacity(dataKeys.count)
        // No key repeats: the parser refuses repeated JSON keys, and unescaping `$$` is one to one.
        for (key, value) in dataKeys {
            let keyNode = try keyString(key)
            keys.append(try tree.uid(UInt64(unified(keyNode))))
            values.append(try tree.uid(UInt64(encodeObject(value))))
        }
        try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultDictionaryClass,
                         entries: [("NS.keys", tree.array(keys)), ("NS.objects", tree.array(values))])
    }

    // MARK: Key context

    /// Encodes the value of an instance's archived key: numbers and booleans inline,
    /// `$bytes` inline data, `$inline` anything inline, everything else a UID reference.
    private mutating func encodeKeyValue(_ index: Int) throws(CodecError) -> UInt32 {
        let node = document.node(index)
        switch node.kind {
        case .int, .uint, .real, .bool:
            return try scalarNumber(index)
        case .object:
            if let bytes = singleMember(index, named: "$bytes") { return try dataNode(bytes.value) }
            if let real = singleMember(index, named: "$real") { return try tree.real(nonFinite(real.value)) }
            if let inline = singleMember(index, named: "$inline") { return try encodeInlineBody(inline.value) }
            return try tree.uid(UInt64(encodeObject(index)))
        default:
            return try tree.uid(UInt64(encodeObject(index)))
        }
    }

    /// The content of `$inline`: a plist value held in place.
    private mutating func encodeInlineBody(_ index: Int) throws(CodecError) -> UInt32 {
        if let leaf = try inlineLeaf(index) { return leaf }
        return try encodeInlineContainers(index)
    }

    /// An inline value that is not a container, or nil for an array or a dictionary.
    private mutating func inlineLeaf(_ index: Int) throws(CodecError) -> UInt32? {
        let node = document.node(index)
        switch node.kind {
        case .null: throw fail("$inline cannot hold null (a plist has no null)", at: index)
        case .string: return try tree.string(bytes: Array(document.string(index)))
        case .int, .uint, .real, .bool: return try scalarNumber(index)
        case .array: return nil
        case .object:
            guard node.count == 1 else { return nil }
            let member = document.members(of: index)[0]
            switch document.stringValue(member.key) {
            case "$bytes", "$data": return try dataNode(member.value)
            case "$real": return try tree.real(nonFinite(member.value))
            case "$plistDate": return try tree.date(time(member.value))
            default: return nil
            }
        }
    }

    /// An inline plist array or dictionary (the content of `$inline` or `$plist`), with any
    /// `$inline` containers nested in it, built children first with an explicit stack.
    private mutating func encodeInlineContainers(_ root: Int) throws(CodecError) -> UInt32 {
        typealias Frame = InlineContainerFrame
        func open(_ index: Int) throws(CodecError) -> Frame {
            if document.node(index).kind == .array {
                return Frame(isArray: true, children: document.elements(of: index), keys: [])
            }
            let members = document.members(of: index)
            var keys: [UInt32] = []
            for member in members { keys.append(try keyString(dataKey(member.key))) }
            return Frame(isArray: false, children: members.map(\.value), keys: keys)
        }
        var stack = [try open(root)]
        while true {
            let top = stack.count - 1
            let next = stack[top].values.count
            if next == stack[top].children.count {
                let frame = stack.removeLast()
                let built = frame.isArray ? try tree.array(frame.values) : try tree.dict(keys: frame.keys, values: frame.values)
                if stack.isEmpty { return built }
                stack[stack.count - 1].values.append(built)
                continue
            }
            let child = stack[top].children[next]
            if let inline = singleMember(child, named: "$inline") {
                if let leaf = try inlineLeaf(inline.value) {
                    stack[top].values.append(leaf)
                } else {
                    stack.append(try open(inline.value))
                }
            } else {
                stack[top].values.append(try encodeKeyValue(child))
            }
        }
    }

    // MARK: Entries

    private mutating func reserve() -> Int {
        objects.append(Self.unfilled)
        return objects.count - 1
    }

    /// The UID for an object node: the one a forward `$ref` reserved, or a new one.
    private mutating func uidFor(_ index: Int, meta: Meta) -> Int {
        if meta.id != nil, let uid = uidOfNode[index] { return uid }
        let uid = reserve()
        if meta.id != nil { uidOfNode[index] = uid }
        return uid
    }

    /// The entry for a plain value: shared with every equal bare value, unless it has an `$id`.
    private mutating func scalarEntry(_ value: UInt32, meta: Meta, index: Int) throws(CodecError) -> Int {
        if meta.id == nil { return unified(value) }
        let uid = uidFor(index, meta: meta)
        objects[uid] = value
        return uid
    }

    private mutating func unified(_ value: UInt32) -> Int {
        if let uid = unifiedUID[value] { return uid }
        objects.append(value)
        unifiedUID[value] = objects.count - 1
        return objects.count - 1
    }

    @inline(never)
    private mutating func fillInstance(
        _ uid: Int, meta: Meta, defaultClass: String, entries: [(StaticString, UInt32)],
        extra: [(key: UInt32, value: UInt32)] = []
    ) throws(CodecError) {
        let name = meta.className ?? defaultClass
        guard !name.isEmpty else { throw fail("$class is required here") }
        var keys: [UInt32] = []
        var values: [UInt32] = []
        keys.reserveCapacity(entries.count + extra.count + 1)
        values.reserveCapacity(entries.count + extra.count + 1)
        for (key, value) in entries {
            keys.append(try tree.string(static: key))
            values.append(value)
        }
        let classKey = try tree.string(static: "$class")
        for (key, value) in extra {
            // `$class` and the form's own keys are written above and below: a data key with
            // the same name would make the archive hold that key twice. (Strings are
            // interned, so equal keys are the same node.)
            if key == classKey || keys.prefix(entries.count).contains(key) {
                throw fail("the key \(tree.text(of: key)) is taken by the archive format in this object")
            }
            keys.append(key)
            values.append(value)
        }
        keys.append(classKey)
        values.append(try tree.uid(UInt64(classEntry(name: name, meta: meta))))
        objects[uid] = try tree.dict(keys: keys, values: values)
    }

    /// The class entry for an instance of `name` with `meta`'s `$classes` and `$classhints`,
    /// shared by every instance with the same ones. Most instances use the usual chain and no
    /// hints: those are found by name alone, without building a chain or a `ClassKey`.
    private mutating func classEntry(name: String, meta: Meta) throws(CodecError) -> Int {
        let usual = !meta.chainGiven && meta.hints == nil
        if usual, let uid = usualClassUIDs[name] { return uid }
        let uid = try classEntry(name: name, chain: meta.chainGiven ? meta.chain : FoundationClasses.defaultChain(for: name), hints: meta.hints)
        if usual { usualClassUIDs[name] = uid }
        return uid
    }

    private mutating func classEntry(name: String, chain: [String]?, hints: [String]?) throws(CodecError) -> Int {
        let key = ClassKey(name: name, chain: chain, hints: hints)
        if let uid = classUIDs[key] { return uid }
        var keys = [try tree.string("$classname")]
        var values = [try tree.string(name)]
        if let chain {
            keys.append(try tree.string("$classes"))
            var names: [UInt32] = []
            for item in chain { names.append(try tree.string(item)) }
            values.append(try tree.array(names))
        }
        if let hints {
            keys.append(try tree.string("$classhints"))
            var names: [UInt32] = []
            for item in hints { names.append(try tree.string(item)) }
            values.append(try tree.array(names))
        }
        objects.append(try tree.dict(keys: keys, values: values))
        classUIDs[key] = objects.count - 1
        return objects.count - 1
    }

    // MARK: Reading the document

    /// Sorts an object's members into the mapping's `$` keys and its data keys.
    @inline(never)
    private mutating func readMeta(_ index: Int) throws(CodecError) -> Meta {
        var meta = Meta()
        let memberCount = Int(document.node(index).count)
        var next = index + 1  // members are walked in place: no array per object
        for _ in 0..<memberCount {
            let member = (key: next, value: next + 1)
            next += 1 + Int(document.node(next + 1).size)
            let key = document.string(member.key)
            guard key.first == UInt8(ascii: "$") else {
                meta.data.append((DataKey(node: member.key, escaped: false), member.value))
                continue
            }
            if key.dropFirst().first == UInt8(ascii: "$") {
                meta.data.append((DataKey(node: member.key, escaped: true), member.value))
                continue
            }
            let name = document.stringValue(member.key)
            switch name {
            case "$id":
                meta.id = try idKey(member.value)
            case "$ref":
                guard memberCount == 1 else { throw fail("$ref stands alone in its object", at: index) }
                let key = try idKey(member.value)
                guard let target = nodeOfID[key] else { throw fail("$ref to an $id that no object defines", at: member.value) }
                meta.ref = target
            case "$class":
                guard document.node(member.value).kind == .string, !document.string(member.value).isEmpty else {
                    throw fail("$class takes a class name", at: member.value)
                }
                meta.className = document.stringValue(member.value)
            case "$classes":
                meta.chainGiven = true
                if document.node(member.value).kind != .null { meta.chain = try stringList(member.value) }
            case "$classhints":
                meta.hints = try stringList(member.value)
            case _ where encoderWrappers.contains(name):
                guard meta.wrapper == nil else { throw fail("an object holds one value wrapper, not two", at: member.value) }
                meta.wrapper = (name, member.value)
            case "$top", "$archiver", "$version":
                throw fail("\(name) belongs only at the top of the document", at: member.value)
            default:
                throw fail("unknown key \(name); a data key that starts with $ is written with $$", at: member.key)
            }
        }
        if meta.wrapper != nil, !meta.data.isEmpty {
            throw fail("\(meta.wrapper!.name) objects hold no data keys", at: index)
        }
        return meta
    }

    private func stringList(_ index: Int) throws(CodecError) -> [String] {
        guard document.node(index).kind == .array else { throw fail("expected an array of class names", at: index) }
        var names: [String] = []
        for element in document.elements(of: index) {
            guard document.node(element).kind == .string else { throw fail("expected an array of class names", at: element) }
            names.append(document.stringValue(element))
        }
        return names
    }

    /// The member `named` when it is the object's only member.
    @inline(never)
    private func singleMember(_ index: Int, named name: StaticString) -> (key: Int, value: Int)? {
        guard document.node(index).kind == .object, document.node(index).count == 1 else { return nil }
        let member = document.members(of: index)[0]
        let matches = name.withUTF8Buffer { document.string(member.key).elementsEqual($0) }
        return matches ? member : nil
    }

    /// A data key: `$$name` stands for `$name`; a single leading `$` is the mapping's.
    private func dataKey(_ keyNode: Int) throws(CodecError) -> DataKey {
        let key = document.string(keyNode)
        guard key.first == UInt8(ascii: "$") else { return DataKey(node: keyNode, escaped: false) }
        guard key.dropFirst().first == UInt8(ascii: "$") else {
            throw fail("key \(document.stringValue(keyNode)) starts with $; write a data key that starts with $ as $$", at: keyNode)
        }
        return DataKey(node: keyNode, escaped: true)
    }

    /// The plist string of a data key, interned straight from the document's text.
    private mutating func keyString(_ key: DataKey) throws(CodecError) -> UInt32 {
        let text = document.string(key.node)
        return try text.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in
            try tree.string(UnsafeBufferPointer(rebasing: buffer[(key.escaped ? 1 : 0)...]))
        }
    }

    private mutating func scalarNumber(_ index: Int) throws(CodecError) -> UInt32 {
        let node = document.node(index)
        switch node.kind {
        case .int: return try tree.integer(PlistInteger(signed: Int64(bitPattern: node.bits)))
        case .uint: return try tree.integer(PlistInteger(unsigned: node.bits))
        case .real: return try tree.real(Double(bitPattern: node.bits))
        case .bool: return try tree.bool(node.bits != 0)
        default: throw fail("expected a number or a boolean", at: index)
        }
    }

    private mutating func numberNode(_ index: Int) throws(CodecError) -> UInt32 {
        if let real = singleMember(index, named: "$real") { return try tree.real(nonFinite(real.value)) }
        return try scalarNumber(index)
    }

    private func nonFinite(_ index: Int) throws(CodecError) -> Double {
        let node = document.node(index)
        if node.kind == .real { return Double(bitPattern: node.bits) }
        guard node.kind == .string, let value = NonFiniteReal.value(document.stringValue(index)) else {
            throw fail("$real takes \"NaN\", \"NaN:\" and 16 hex digits of a NaN's bits, \"Infinity\" or \"-Infinity\"", at: index)
        }
        return value
    }

    /// A time given as ISO 8601 text, or seconds since 2001-01-01 as a number.
    private func time(_ index: Int) throws(CodecError) -> Double {
        let node = document.node(index)
        switch node.kind {
        case .string:
            guard let value = DateText.parse(document.string(index)) else {
                throw fail("expected a time like 2001-01-01T00:00:00Z (optionally with up to 9 fraction digits)", at: index)
            }
            return value
        case .int: return Double(Int64(bitPattern: node.bits))
        case .uint: return Double(node.bits)
        case .real: return Double(bitPattern: node.bits)
        case .object:
            if let real = singleMember(index, named: "$real") { return try nonFinite(real.value) }
            throw fail("expected a time as text or seconds since 2001", at: index)
        default: throw fail("expected a time as text or seconds since 2001", at: index)
        }
    }

    @inline(never)
    private mutating func dataNode(_ index: Int) throws(CodecError) -> UInt32 {
        guard document.node(index).kind == .string else { throw fail("expected base64 text", at: index) }
        let text = Array(document.string(index))
        var bytes: [UInt8] = []
        let bad = text.withUnsafeBufferPointer { Base64.decode($0, into: &bytes) }
        if let bad { throw fail("invalid base64 at character \(bad)", at: index) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
    }

    static func uuidBytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        let chars = Array(text)
        guard chars.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        func hexValue(_ char: UInt8) -> UInt8? {
            switch char {
            case 0x30...0x39: return char - 0x30
            case 0x41...0x46: return char - 0x41 + 10
            case 0x61...0x66: return char - 0x61 + 10
            default: return nil
            }
        }
        while index < 36 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard chars[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                continue
            }
            guard let high = hexValue(chars[index]), let low = hexValue(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// The mapping's value wrappers: an object holds at most one.
private let encoderWrappers: Set<String> = [
    "$array", "$set", "$orderedSet", "$dict", "$string", "$data", "$number", "$real",
    "$plistDate", "$date", "$uuid", "$plist", "$bytes", "$inline",
]

/// One inline container being built by `ArchiveEncoder.encodeInlineContainers`.
private struct InlineContainerFrame {
    var isArray: Bool
    var children: [Int]
    var keys: [UInt32]
    var values: [UInt32] = []
}
