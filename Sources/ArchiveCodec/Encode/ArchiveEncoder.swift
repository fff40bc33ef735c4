/// JSON document → the property list of a keyed archive (into any `PlistBuilding`), without
/// recursion: a reference to an object gets its UID at once and the object's content is
/// filled later from a work list (`pending`), and nested inline plist containers are built
/// with an explicit stack. `$ref`s to objects not yet met reserve the UID, filled when the
/// `$id` is reached. Equal bare strings and numbers share one entry; class entries are
/// shared per class.
///
/// Per object nothing is allocated: `ObjectMeta` holds value handles, members are walked in
/// place, and reference lists are assembled on one shared stack (`scratch`).
struct ArchiveEncoder<Tree: PlistBuilding> {
    typealias Value = JSONDocument.Value
    let document: JSONDocument
    var tree: Tree

    /// Plist value of each `$objects` entry; `unfilled` until its content is built.
    private var objects: [UInt32] = [0]
    private static var unfilled: UInt32 { .max }
    /// UID of each object that carries an `$id`, by the object's source offset.
    private var uidOfObject: [UInt32: Int] = [:]
    /// The object that carries each `$id`.
    private var objectOfID: [IDKey: Value] = [:]
    /// UID of the shared entry for each interned scalar plist value, by value index
    /// (0 = none yet: UID 0 is `$null`, never shared).
    private var unifiedUID: [UInt32] = []
    private var classUIDs: [ClassKey: Int] = [:]
    /// Class entries with the usual chain and no hints, by their interned name string's
    /// value index (0 = none yet: UID 0 is `$null`, never a class). Asked once per instance:
    /// an array, where a dictionary lookup hashed the key each time.
    private var usualClassUIDs: [UInt32] = []
    /// Objects whose UID is handed out and whose content is still to build (a wide array
    /// puts every element here at once, so entries are kept small: the common shapes carry
    /// what filling needs, others have their meta read again when filled).
    private var pending: [PendingObject] = []
    /// Reference lists under construction, innermost last. Each user appends above what is
    /// there and removes its part before returning, so nested uses never disturb each other.
    private var scratch: [UInt32] = []
    /// The object being filled: where errors without a value of their own are reported.
    private var current: Value

    private enum IDKey: Hashable {
        case signed(Int64)
        case unsigned(UInt64)
        case text(String)

        var description: String {
            switch self {
            case .signed(let value): "\(value)"
            case .unsigned(let value): "\(value)"
            case .text(let value): value
            }
        }
    }

    private struct ClassKey: Hashable {
        var name: String
        var chain: [String]?
        var hints: [String]?
    }

    init(document: JSONDocument, tree: Tree) {
        self.document = document
        self.tree = tree
        current = document.root
        // The archive has at most about one plist value per JSON value or key, plus the UIDs.
        self.tree.reserve(values: document.valueCount * 3, bytes: document.source.count)
    }

    // MARK: Errors

    private func fail(_ message: String, at value: Value? = nil) -> CodecError {
        document.invalid(message, at: value ?? current)
    }

    // MARK: Document

    mutating func encodeDocument() throws(CodecError) -> UInt32 {
        try collectIDs()
        objects[0] = try tree.string(static: "$null")
        var archiver = "NSKeyedArchiver"
        var version = PlistInteger(signed: 100_000)
        var topKeys: [UInt32] = []
        var topValues: [UInt32] = []
        let root = document.root
        let members = document.kind(root) == .object ? document.members(of: root) : []
        var table: Value?
        if let top = members.first(where: { document.stringEquals($0.key, "$top") }) {
            for member in members {
                switch document.stringValue(member.key) {
                case "$top":
                    guard document.kind(member.value) == .object else { throw fail("$top must be an object", at: member.value) }
                case "$table":
                    guard document.kind(member.value) == .array else { throw fail("$table must be an array of objects with $id", at: member.value) }
                    table = member.value
                case "$archiver":
                    guard document.kind(member.value) == .string else { throw fail("$archiver must be a string", at: member.value) }
                    archiver = document.stringValue(member.value)
                case "$version":
                    if let exact = document.singleMember(member.value, named: "$integer") {
                        version = try document.exactInteger(exact.value)
                        continue
                    }
                    let number = document.kind(member.value) == .number ? document.number(member.value) : .real(0)
                    switch number {
                    case .signed(let value): version = PlistInteger(signed: value)
                    case .unsigned(let value): version = PlistInteger(unsigned: value)
                    case .real: throw fail("$version must be an integer", at: member.value)
                    }
                default:
                    throw fail("unexpected key beside $top (allowed: $archiver, $version, $table)", at: member.value)
                }
            }
            for member in document.members(of: top.value) {
                current = member.value
                topKeys.append(try dataKeyString(member.key))
                if let inline = document.singleMember(member.value, named: "$inline") {
                    topValues.append(try encodeInlineBody(inline.value))
                } else {
                    topValues.append(try tree.uid(UInt64(encodeObject(member.value))))
                }
            }
            if let table {
                // Bodies moved out of the document by a nesting bound, each referenced by `$id`.
                var cursor = document.children(of: table)
                while let entry = document.nextElement(&cursor) {
                    current = entry
                    guard document.kind(entry) == .object, try document.meta(of: entry).id != nil else {
                        throw fail("a $table entry is an object with $id (the body of an object referenced with $ref)", at: entry)
                    }
                    _ = try encodeObject(entry)
                }
            }
        } else {
            topKeys.append(try tree.string(static: "root"))
            topValues.append(try tree.uid(UInt64(encodeObject(root))))
        }
        try fillPending()
        if let unresolved = objects.firstIndex(of: Self.unfilled) {
            let id = uidOfObject.first { $0.value == unresolved }
                .flatMap { entry in objectOfID.first { $0.value.offset == entry.key }?.key.description }
            throw fail("$ref to $id \(id ?? "?") whose object is not in a value position", at: nil)
        }
        let top = try tree.dict(keys: topKeys, values: topValues)
        let objectArray = try tree.array(objects)
        return try tree.dict(
            keys: [try tree.string(static: "$version"), try tree.string(static: "$archiver"), try tree.string(static: "$top"), try tree.string(static: "$objects")],
            values: [try tree.integer(version), try tree.string(archiver), top, objectArray])
    }

    /// Finds every `$id` first, so that `$ref`s may point forward as well as back.
    private mutating func collectIDs() throws(CodecError) {
        for (object, value) in document.notedMembers {
            let id = try idKey(value)
            guard objectOfID[id] == nil else {
                throw CodecError(.invalidDocument, "$id \(id.description) is defined twice", byteOffset: Int(value.offset))
            }
            objectOfID[id] = object
        }
    }

    private func idKey(_ value: Value) throws(CodecError) -> IDKey {
        try document.checkID(value)
        guard document.kind(value) == .number else { return .text(document.stringValue(value)) }
        switch document.number(value) {
        case .signed(let id): return .signed(id)
        case .unsigned(let id): return .unsigned(id)
        case .real: return .text("")  // refused by checkID
        }
    }

    // MARK: Object context

    /// Encodes a value that stands for an object (a `$top` value, a collection element, a
    /// dictionary value, a referenced key of an instance) and returns its UID. Values are
    /// entered at once; containers and class instances get their UID now and their content
    /// from `fillPending`, so no call here ever descends into the document.
    private mutating func encodeObject(_ value: Value) throws(CodecError) -> Int {
        switch document.kind(value) {
        case .null:
            return 0
        case .string:
            return try unified(stringValue(value))
        case .number, .bool:
            return try unified(scalarNumber(value))
        case .array:
            let uid = reserve()
            pending.append(PendingObject(value: value, uid: uid, shape: .array))
            return uid
        case .object:
            return try encodeObjectValue(value)
        }
    }

    @inline(never)
    private mutating func encodeObjectValue(_ object: Value) throws(CodecError) -> Int {
        let meta = try document.meta(of: object)
        if let ref = meta.ref {
            let key = try idKey(ref)
            guard let target = objectOfID[key] else {
                let shown = if case .text(let text) = key { "\"\(text)\"" } else { key.description }
                throw fail("$ref to $id \(shown), which no object in the document defines", at: ref)
            }
            if let uid = uidOfObject[target.offset] { return uid }
            let uid = objects.count
            objects.append(Self.unfilled)
            uidOfObject[target.offset] = uid
            return uid
        }
        if let wrapper = meta.wrapper {
            switch wrapper.kind {
            case .array, .set, .orderedSet, .dict:
                break
            case .plist:
                guard meta.className == nil, meta.chain == nil, meta.hints == nil else {
                    throw fail("$plist takes no $class, $classes or $classhints", at: object)
                }
                let kind = document.kind(wrapper.value)
                guard kind == .array || kind == .object else { throw fail("$plist takes an array or an object", at: wrapper.value) }
            default:
                // Single values: nothing below them to defer.
                return try encodeWrapper(object, meta: meta, wrapper: wrapper)
            }
        } else if meta.className == nil {
            // A plain JSON object: an NSDictionary with string keys.
            guard meta.id == nil, meta.chain == nil, meta.hints == nil else {
                throw fail("an object with $id, $classes or $classhints needs $class or a value wrapper such as $dict", at: object)
            }
        }
        let uid = uidFor(object, meta: meta)
        pending.append(PendingObject(value: object, uid: uid, meta: meta))
        return uid
    }

    /// Builds the content of every object handed a UID by `encodeObject`, last first; filling
    /// one may hand out more.
    private mutating func fillPending() throws(CodecError) {
        while let next = pending.popLast() {
            let (value, uid) = (next.value, Int(next.uid))
            current = value
            switch next.shape {
            case .array:
                let start = scratch.count
                scratch.append(try tree.string(static: "NS.objects"))
                scratch.append(try encodeElements(value))
                try fillInstance(uid, meta: ObjectMeta(), defaultClass: FoundationClasses.defaultArrayClassName, pairsFrom: start, ownPairs: 1)
                continue
            case .plainDictionary:
                try fillDictionary(uid, meta: ObjectMeta(), members: value, allKeysData: false)
                continue
            case .instance:
                var meta = ObjectMeta()
                meta.className = next.className
                try fillGeneric(uid, object: value, meta: meta)
                continue
            case .other:
                break
            }
            let meta = try document.meta(of: value)
            guard let wrapper = meta.wrapper else {
                if meta.className == nil {
                    try fillDictionary(uid, meta: meta, members: value, allKeysData: false)
                } else {
                    try fillGeneric(uid, object: value, meta: meta)
                }
                continue
            }
            switch wrapper.kind {
            case .dict: try fillDictWrapper(uid, meta: meta, wrapper: wrapper.value)
            case .plist:
                // As an `$objects` entry, a dictionary with `$class` would read back as a class
                // instance. (Only `$$class` unescapes to it; a bare `$class` is refused as a key.)
                if document.kind(wrapper.value) == .object {
                    for member in document.members(of: wrapper.value) where document.stringEquals(member.key, "$$class") {
                        throw fail("a $plist dictionary cannot hold the key $class: it would read back as a class instance", at: member.key)
                    }
                }
                objects[uid] = try encodeInlineContainers(wrapper.value)
            default: try fillCollectionWrapper(uid, meta: meta, wrapper: wrapper)
            }
        }
    }

    /// A class instance with its archived keys (in key context).
    private mutating func fillGeneric(_ uid: Int, object: Value, meta: ObjectMeta) throws(CodecError) {
        let start = scratch.count
        var cursor = document.children(of: object)
        while let (key, value) = document.nextMember(&cursor) {
            guard document.isDataKey(key) else { continue }
            scratch.append(try dataKeyString(key))
            scratch.append(try encodeKeyValue(value))
        }
        try fillInstance(uid, meta: meta, defaultClass: nil, pairsFrom: start, ownPairs: 0)
    }

    private mutating func fillCollectionWrapper(_ uid: Int, meta: ObjectMeta, wrapper: (kind: ValueWrapper, value: Value)) throws(CodecError) {
        guard document.kind(wrapper.value) == .array else { throw fail("\(wrapper.kind.name) takes an array", at: wrapper.value) }
        let start = scratch.count
        switch wrapper.kind {
        case .orderedSet:
            var cursor = document.children(of: wrapper.value)
            var position = 0
            while let element = document.nextElement(&cursor) {
                scratch.append(try tree.string("NS.object.\(position)"))
                scratch.append(try tree.uid(UInt64(encodeObject(element))))
                position += 1
            }
            try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultOrderedSetClassName, pairsFrom: start, ownPairs: 0)
        default:
            scratch.append(try tree.string(static: "NS.objects"))
            scratch.append(try encodeElements(wrapper.value))
            try fillInstance(
                uid, meta: meta, defaultClass: wrapper.kind == .array ? FoundationClasses.defaultArrayClassName : FoundationClasses.defaultSetClassName,
                pairsFrom: start, ownPairs: 1)
        }
    }

    private mutating func fillDictWrapper(_ uid: Int, meta: ObjectMeta, wrapper: Value) throws(CodecError) {
        switch document.kind(wrapper) {
        case .object:
            try fillDictionary(uid, meta: meta, members: wrapper, allKeysData: true)
        case .array:
            let start = scratch.count
            var pairs = document.children(of: wrapper)
            while let pair = document.nextElement(&pairs) {
                guard document.kind(pair) == .array, document.count(pair) == 2 else {
                    throw fail("$dict pairs are [key, value] arrays", at: pair)
                }
                var cursor = document.children(of: pair)
                scratch.append(try tree.uid(UInt64(encodeObject(document.nextElement(&cursor)!))))
                scratch.append(try tree.uid(UInt64(encodeObject(document.nextElement(&cursor)!))))
            }
            try fillKeysAndObjects(uid, meta: meta, pairsFrom: start)
        default:
            throw fail("$dict takes an object or an array of [key, value] pairs", at: wrapper)
        }
    }

    /// An NSDictionary from the members of `object`: its data keys (or, for `$dict`'s
    /// object, all its keys, which must then be data keys).
    private mutating func fillDictionary(_ uid: Int, meta: ObjectMeta, members object: Value, allKeysData: Bool) throws(CodecError) {
        let start = scratch.count
        // No key repeats: the parser refuses repeated JSON keys, and unescaping `$$` is one to one.
        var cursor = document.children(of: object)
        while let (key, value) = document.nextMember(&cursor) {
            guard allKeysData || document.isDataKey(key) else { continue }
            scratch.append(try tree.uid(UInt64(unified(dataKeyString(key)))))
            scratch.append(try tree.uid(UInt64(encodeObject(value))))
        }
        try fillKeysAndObjects(uid, meta: meta, pairsFrom: start)
    }

    /// An NSDictionary instance from the (key UID, value UID) pairs on `scratch` from `start`.
    private mutating func fillKeysAndObjects(_ uid: Int, meta: ObjectMeta, pairsFrom start: Int) throws(CodecError) {
        let (lists, count) = splitPairs(from: start)
        let keys = try Self.array(&tree, of: &scratch, lists..<(lists + count))
        let values = try Self.array(&tree, of: &scratch, (lists + count)..<scratch.count)
        scratch.removeSubrange(start...)
        scratch.append(try tree.string(static: "NS.keys"))
        scratch.append(keys)
        scratch.append(try tree.string(static: "NS.objects"))
        scratch.append(values)
        try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultDictionaryClassName, pairsFrom: start, ownPairs: 2)
    }

    /// The wrappers of single values (`$string`, `$date`, `$uuid`, …), which do not recurse.
    @inline(never)
    private mutating func encodeWrapper(_ object: Value, meta: ObjectMeta, wrapper: (kind: ValueWrapper, value: Value)) throws(CodecError) -> Int {
        func requireNoClass() throws(CodecError) {
            guard meta.className == nil, meta.chain == nil, meta.hints == nil else {
                throw fail("\(wrapper.kind.name) takes no $class, $classes or $classhints", at: object)
            }
        }
        switch wrapper.kind {
        case .string:
            guard document.kind(wrapper.value) == .string else { throw fail("$string takes a string", at: wrapper.value) }
            let text = try stringValue(wrapper.value)
            if meta.className != nil {
                return try instance(object, meta: meta, defaultClass: nil, key: "NS.string", value: text)
            }
            return try scalarEntry(text, meta: meta, object: object)
        case .data:
            let bytes = try dataValue(wrapper.value)
            if meta.className != nil {
                return try instance(object, meta: meta, defaultClass: nil, key: "NS.data", value: bytes)
            }
            return try scalarEntry(bytes, meta: meta, object: object)
        case .number:
            try requireNoClass()
            return try scalarEntry(numberValue(wrapper.value), meta: meta, object: object)
        case .integer:
            try requireNoClass()
            return try scalarEntry(tree.integer(document.exactInteger(wrapper.value)), meta: meta, object: object)
        case .real:
            try requireNoClass()
            return try scalarEntry(tree.real(document.nonFinite(wrapper.value)), meta: meta, object: object)
        case .plistDate:
            try requireNoClass()
            return try scalarEntry(tree.date(document.time(wrapper.value)), meta: meta, object: object)
        case .date:
            return try instance(object, meta: meta, defaultClass: "NSDate", key: "NS.time", value: tree.real(document.time(wrapper.value)))
        case .uuid:
            let bytes = try document.uuidBytes(wrapper.value)
            let data = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
            return try instance(object, meta: meta, defaultClass: "NSUUID", key: "NS.uuidbytes", value: data)
        default:
            throw fail("\(wrapper.kind.name) cannot stand for an object here (it belongs inside an instance's keys)", at: object)
        }
    }

    /// A new instance entry with one archived key; returns its UID.
    private mutating func instance(_ object: Value, meta: ObjectMeta, defaultClass: StaticString?, key: StaticString, value: UInt32) throws(CodecError) -> Int {
        let uid = uidFor(object, meta: meta)
        let start = scratch.count
        scratch.append(try tree.string(static: key))
        scratch.append(value)
        try fillInstance(uid, meta: meta, defaultClass: defaultClass, pairsFrom: start, ownPairs: 1)
        return uid
    }

    /// Builds the plist array of UIDs for the elements of `array`; returns the array.
    private mutating func encodeElements(_ array: Value) throws(CodecError) -> UInt32 {
        let start = scratch.count
        var cursor = document.children(of: array)
        while let element = document.nextElement(&cursor) {
            scratch.append(try tree.uid(UInt64(encodeObject(element))))
        }
        let built = try Self.array(&tree, of: &scratch, start..<scratch.count)
        scratch.removeSubrange(start...)
        return built
    }

    // MARK: Key context

    /// Encodes the value of an instance's archived key: numbers and booleans inline,
    /// `$bytes` inline data, `$inline` anything inline, everything else a UID reference.
    private mutating func encodeKeyValue(_ value: Value) throws(CodecError) -> UInt32 {
        switch document.kind(value) {
        case .number, .bool:
            return try scalarNumber(value)
        case .object:
            // The member of a one-member object is read once for the three wrappers that
            // stay in place (a `{"$ref":…}` is the usual one-member value, and goes on).
            if let only = document.onlyMember(value) {
                if document.stringEquals(only.key, "$bytes") { return try dataValue(only.value) }
                if document.stringEquals(only.key, "$real") { return try tree.real(document.nonFinite(only.value)) }
                if document.stringEquals(only.key, "$inline") { return try encodeInlineBody(only.value) }
                if document.stringEquals(only.key, "$integer") { return try tree.integer(document.exactInteger(only.value)) }
            }
            return try tree.uid(UInt64(encodeObject(value)))
        default:
            return try tree.uid(UInt64(encodeObject(value)))
        }
    }

    /// The content of `$inline`: a plist value held in place.
    private mutating func encodeInlineBody(_ value: Value) throws(CodecError) -> UInt32 {
        if let leaf = try inlineLeaf(value) { return leaf }
        return try encodeInlineContainers(value)
    }

    /// An inline value that is not a container, or nil for an array or a dictionary.
    private mutating func inlineLeaf(_ value: Value) throws(CodecError) -> UInt32? {
        switch document.kind(value) {
        case .null: throw fail("$inline cannot hold null (a plist has no null)", at: value)
        case .string: return try stringValue(value)
        case .number, .bool: return try scalarNumber(value)
        case .array: return nil
        case .object:
            guard document.count(value) == 1 else { return nil }
            var cursor = document.children(of: value)
            let (key, inner) = document.nextMember(&cursor)!
            if document.stringEquals(key, "$bytes") || document.stringEquals(key, "$data") { return try dataValue(inner) }
            if document.stringEquals(key, "$real") { return try tree.real(document.nonFinite(inner)) }
            if document.stringEquals(key, "$plistDate") { return try tree.date(document.time(inner)) }
            if document.stringEquals(key, "$integer") { return try tree.integer(document.exactInteger(inner)) }
            return nil
        }
    }

    /// An inline plist array or dictionary (the content of `$inline` or `$plist`), with any
    /// `$inline` containers nested in it, built children first with an explicit stack.
    private mutating func encodeInlineContainers(_ root: Value) throws(CodecError) -> UInt32 {
        typealias Frame = InlineContainerFrame
        func open(_ container: Value) throws(CodecError) -> Frame {
            if document.kind(container) == .array {
                return Frame(isArray: true, children: document.elements(of: container), keys: [])
            }
            let members = document.members(of: container)
            var keys: [UInt32] = []
            for member in members { keys.append(try dataKeyString(member.key)) }
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
            if let inline = document.singleMember(child, named: "$inline") {
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

    /// The UID for an object: the one a forward `$ref` reserved, or a new one.
    private mutating func uidFor(_ object: Value, meta: ObjectMeta) -> Int {
        if meta.id != nil, let uid = uidOfObject[object.offset] { return uid }
        let uid = reserve()
        if meta.id != nil { uidOfObject[object.offset] = uid }
        return uid
    }

    /// The entry for a plain value: shared with every equal bare value, unless it has an `$id`.
    private mutating func scalarEntry(_ value: UInt32, meta: ObjectMeta, object: Value) throws(CodecError) -> Int {
        if meta.id == nil { return unified(value) }
        let uid = uidFor(object, meta: meta)
        objects[uid] = value
        return uid
    }

    private mutating func unified(_ value: UInt32) -> Int {
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
    private mutating func fillInstance(
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
    private static func array(_ tree: inout Tree, of scratch: inout [UInt32], _ range: Range<Int>) throws(CodecError) -> UInt32 {
        try scratch.withUnsafeBufferPointer { (all) throws(CodecError) -> UInt32 in
            try tree.array(UnsafeBufferPointer(rebasing: all[range]))
        }
    }

    /// A plist dictionary of the (key, value) reference pairs on `scratch` from `start`.
    private static func dict(_ tree: inout Tree, ofPairs scratch: inout [UInt32], from start: Int) throws(CodecError) -> UInt32 {
        try scratch.withUnsafeBufferPointer { (all) throws(CodecError) -> UInt32 in
            try tree.dict(pairs: UnsafeBufferPointer(rebasing: all[start...]))
        }
    }

    /// Appends, after the (key, value) pairs on `scratch` from `start`, all their keys and
    /// then all their values; returns where the keys begin and how many pairs there are.
    private mutating func splitPairs(from start: Int) -> (lists: Int, count: Int) {
        let count = (scratch.count - start) / 2
        let lists = scratch.count
        for pair in 0..<count { scratch.append(scratch[start + 2 * pair]) }
        for pair in 0..<count { scratch.append(scratch[start + 2 * pair + 1]) }
        return (lists, count)
    }

    /// The class entry for an instance with `meta`'s `$class` (or `defaultClass`),
    /// `$classes` and `$classhints`, shared by every instance with the same ones. Most
    /// instances use the usual chain and no hints: those are found by the interned name
    /// alone, without building a chain or a `ClassKey`.
    private mutating func classEntry(meta: ObjectMeta, defaultClass: StaticString?) throws(CodecError) -> Int {
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

    private mutating func classEntry(name: String, chain: [String]?, hints: [String]?) throws(CodecError) -> Int {
        let key = ClassKey(name: name, chain: chain, hints: hints)
        if let uid = classUIDs[key] { return uid }
        var keys = [try tree.string(static: "$classname")]
        var values = [try tree.string(name)]
        if let chain {
            keys.append(try tree.string(static: "$classes"))
            var names: [UInt32] = []
            for item in chain { names.append(try tree.string(item)) }
            values.append(try tree.array(names))
        }
        if let hints {
            keys.append(try tree.string(static: "$classhints"))
            var names: [UInt32] = []
            for item in hints { names.append(try tree.string(item)) }
            values.append(try tree.array(names))
        }
        objects.append(try tree.dict(keys: keys, values: values))
        classUIDs[key] = objects.count - 1
        return objects.count - 1
    }

    // MARK: Values from the document

    /// The plist string of string `value`, interned straight from the document's text.
    private mutating func stringValue(_ value: Value) throws(CodecError) -> UInt32 {
        try Self.intern(document, value, into: &tree, asDataKey: false)
    }

    /// The plist string of data key `key`: `$$name` stands for `$name`; a key with a single
    /// leading `$` belongs to the mapping and is refused here.
    private mutating func dataKeyString(_ key: Value) throws(CodecError) -> UInt32 {
        let string = try Self.intern(document, key, into: &tree, asDataKey: true)
        guard string != Self.refusedKey else {
            let text = document.stringValue(key)
            throw fail("key \(text) starts with $; write a data key that starts with $ as $$", at: key)
        }
        return string
    }

    /// Not a value index: both builders refuse to grow past `UInt32.max - 1` values.
    private static var refusedKey: UInt32 { .max }

    /// Interns the text of string `value` into `tree`; as a data key, without its escaping `$`
    /// (`refusedKey` for a key with a single leading `$`). Static, so that the closure holds
    /// `tree` alone: one that captured the encoder would copy the document (three retains).
    private static func intern(_ document: JSONDocument, _ value: Value, into tree: inout Tree, asDataKey: Bool) throws(CodecError) -> UInt32 {
        try document.withString(value) { (text) throws(CodecError) -> UInt32 in
            guard asDataKey, text.first == UInt8(ascii: "$") else { return try tree.string(text) }
            guard !JSONText.isMappingKey(text) else { return refusedKey }
            return try tree.string(UnsafeBufferPointer(rebasing: text[1...]))
        }
    }

    private mutating func scalarNumber(_ value: Value) throws(CodecError) -> UInt32 {
        switch document.kind(value) {
        case .bool: return try tree.bool(document.bool(value))
        case .number:
            switch document.number(value) {
            case .signed(let integer): return try tree.integer(PlistInteger(signed: integer))
            case .unsigned(let integer): return try tree.integer(PlistInteger(unsigned: integer))
            case .real(let real): return try tree.real(real)
            }
        default: throw fail("expected a number or a boolean", at: value)
        }
    }

    private mutating func numberValue(_ value: Value) throws(CodecError) -> UInt32 {
        if let real = document.singleMember(value, named: "$real") { return try tree.real(document.nonFinite(real.value)) }
        if let exact = document.singleMember(value, named: "$integer") { return try tree.integer(document.exactInteger(exact.value)) }
        return try scalarNumber(value)
    }

    @inline(never)
    private mutating func dataValue(_ value: Value) throws(CodecError) -> UInt32 {
        let bytes = try document.base64Bytes(value)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
    }
}

/// One inline container being built by `ArchiveEncoder.encodeInlineContainers`.
private struct InlineContainerFrame {
    var isArray: Bool
    var children: [JSONDocument.Value]
    var keys: [UInt32]
    var values: [UInt32] = []
}

/// An object waiting in `ArchiveEncoder.pending`: its value, its UID, and when its shape is
/// one of the common ones, what filling it needs, so its `$` keys are not read twice.
private struct PendingObject {
    enum Shape: UInt8 {
        /// A JSON array (an NSArray).
        case array
        /// A JSON object without `$` keys but `$id` (an NSDictionary).
        case plainDictionary
        /// `$class` (and perhaps `$id`) with data keys: the usual chain, no hints.
        case instance
        /// Anything else: the meta is read again.
        case other
    }

    let value: JSONDocument.Value
    let uid: UInt32
    let shape: Shape
    /// The `$class` value of an `instance`.
    let className: JSONDocument.Value?

    init(value: JSONDocument.Value, uid: Int, shape: Shape) {
        self.value = value
        self.uid = UInt32(truncatingIfNeeded: uid)
        self.shape = shape
        className = nil
    }

    init(value: JSONDocument.Value, uid: Int, meta: ObjectMeta) {
        self.value = value
        self.uid = UInt32(truncatingIfNeeded: uid)
        className = meta.className
        if meta.wrapper != nil || meta.chainGiven || meta.hints != nil {
            shape = .other
        } else {
            shape = meta.className == nil ? .plainDictionary : .instance
        }
    }
}
