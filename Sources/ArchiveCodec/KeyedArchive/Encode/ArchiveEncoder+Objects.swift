/// Objects: a JSON value in object context (an `$objects` entry) gets its UID at once and its
/// content later, from `pending`; wrappers (`$data`, `$date`, collections with `$class`, …)
/// become the Foundation classes' keyed forms.
extension ArchiveEncoder {
    /// Encodes a value that stands for an object (a `$top` value, a collection element, a
    /// dictionary value, a referenced key of an instance) and returns its UID. Values are
    /// entered at once; containers and class instances get their UID now and their content
    /// from `fillPending`, so no call here ever descends into the document.
    mutating func encodeObject(_ value: Value) throws(CodecError) -> Int {
        switch document.kind(value) {
        case .null:
            return 0
        case .string:
            return try unified(stringValue(value))
        case .number, .bool:
            return try unified(Self.scalarNumber(document, value, into: &tree))
        case .array:
            let uid = reserve()
            pending.append(PendingObject(value: value, uid: uid, shape: .array))
            return uid
        case .object:
            return try encodeObjectValue(value)
        }
    }

    @inline(never)
    mutating func encodeObjectValue(_ object: Value) throws(CodecError) -> Int {
        let meta = try document.meta(of: object)
        if let ref = meta.ref {
            let key = try idKey(ref)
            guard let target = objectOfID[key] else {
                let shown = if case .text(let text) = key { "\"\(TextExcerpt.quote(text))\"" } else { key.description }
                throw fail("$ref to $id \(shown), which no object in the document defines", at: ref)
            }
            if let uid = uidOfObject[target.offset] { return uid }
            let uid = objects.count
            objects.append(Self.unfilled)
            uidOfObject[target.offset] = uid
            return uid
        }
        if meta.hasValueForm {
            // A decimal, calendar date or time zone (its `$date` is not NSDate's wrapper).
            return encodeValueFormObject(object, meta: meta)
        }
        if meta.runs != nil {
            // An attributed string: its attributes are filled later, as any instance's keys.
            let uid = uidFor(object, meta: meta)
            pending.append(PendingObject(value: object, uid: uid, meta: meta))
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
    mutating func fillPending() throws(CodecError) {
        while let next = pending.popLast() {
            let (value, uid) = (next.value, Int(next.uid))
            current = value
            switch next.shape {
            case .array:
                let pairs = scratch.frame()
                scratch.append(try tree.string(static: "NS.objects"))
                scratch.append(try encodeElements(value))
                try fillInstance(uid, meta: ObjectMeta(), defaultClass: FoundationClasses.defaultArrayClassName, pairs: pairs, ownPairs: 1)
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
            if meta.hasValueForm {
                try fillValueForm(uid, object: value, meta: meta)
                continue
            }
            guard let wrapper = meta.wrapper else {
                if meta.className == nil {
                    try fillDictionary(uid, meta: meta, members: value, allKeysData: false)
                } else {
                    try fillGeneric(uid, object: value, meta: meta)
                }
                continue
            }
            if let runs = meta.runs {
                try fillAttributedString(uid, meta: meta, text: wrapper.value, runs: runs)
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
                objects[uid] = try encodeContainers(wrapper.value)
            default: try fillCollectionWrapper(uid, meta: meta, wrapper: wrapper)
            }
        }
    }

    /// A class instance with its archived keys (in key context).
    mutating func fillGeneric(_ uid: Int, object: Value, meta: ObjectMeta) throws(CodecError) {
        if colorLabels != nil, isColor(meta) { try checkColorSpaceLabels(object) }
        let pairs = scratch.frame()
        var cursor = document.children(of: object)
        while let (key, value) = document.nextMember(&cursor) {
            guard document.isDataKey(key) else { continue }
            scratch.append(try dataKeyString(key))
            scratch.append(try encodeKeyValue(value))
        }
        try fillInstance(uid, meta: meta, defaultClass: nil, pairs: pairs, ownPairs: 0)
    }

    mutating func fillCollectionWrapper(_ uid: Int, meta: ObjectMeta, wrapper: (kind: ValueWrapper, value: Value)) throws(CodecError) {
        guard document.kind(wrapper.value) == .array else { throw fail("\(wrapper.kind.name) takes an array", at: wrapper.value) }
        let pairs = scratch.frame()
        switch wrapper.kind {
        case .orderedSet:
            var cursor = document.children(of: wrapper.value)
            var position = 0
            while let element = document.nextElement(&cursor) {
                scratch.append(try tree.string("NS.object.\(position)"))
                scratch.append(try tree.uid(UInt64(encodeObject(element))))
                position += 1
            }
            try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultOrderedSetClassName, pairs: pairs, ownPairs: 0)
        default:
            scratch.append(try tree.string(static: "NS.objects"))
            scratch.append(try encodeElements(wrapper.value))
            try fillInstance(
                uid, meta: meta, defaultClass: wrapper.kind == .array ? FoundationClasses.defaultArrayClassName : FoundationClasses.defaultSetClassName,
                pairs: pairs, ownPairs: 1)
        }
    }

    mutating func fillDictWrapper(_ uid: Int, meta: ObjectMeta, wrapper: Value) throws(CodecError) {
        switch document.kind(wrapper) {
        case .object:
            try fillDictionary(uid, meta: meta, members: wrapper, allKeysData: true)
        case .array:
            let frame = scratch.frame()
            var pairs = document.children(of: wrapper)
            while let pair = document.nextElement(&pairs) {
                guard document.kind(pair) == .array, document.count(pair) == 2 else {
                    throw fail("$dict pairs are [key, value] arrays", at: pair)
                }
                var cursor = document.children(of: pair)
                scratch.append(try tree.uid(UInt64(encodeObject(document.nextElement(&cursor)!))))
                scratch.append(try tree.uid(UInt64(encodeObject(document.nextElement(&cursor)!))))
            }
            try fillKeysAndObjects(uid, meta: meta, pairs: frame)
        default:
            throw fail("$dict takes an object or an array of [key, value] pairs", at: wrapper)
        }
    }

    /// An NSDictionary from the members of `object`: its data keys (or, for `$dict`'s
    /// object, all its keys, which must then be data keys).
    mutating func fillDictionary(_ uid: Int, meta: ObjectMeta, members object: Value, allKeysData: Bool) throws(CodecError) {
        let pairs = scratch.frame()
        // No key repeats: the parser refuses repeated JSON keys, and unescaping `$$` is one to one.
        var cursor = document.children(of: object)
        while let (key, value) = document.nextMember(&cursor) {
            guard allKeysData || document.isDataKey(key) else { continue }
            scratch.append(try tree.uid(UInt64(unified(dataKeyString(key)))))
            scratch.append(try tree.uid(UInt64(encodeObject(value))))
        }
        try fillKeysAndObjects(uid, meta: meta, pairs: pairs)
    }

    /// An NSDictionary instance from the (key UID, value UID) pairs of `pairs`. Pops `pairs`.
    mutating func fillKeysAndObjects(_ uid: Int, meta: ObjectMeta, pairs: consuming ScratchFrame) throws(CodecError) {
        let lists = scratch.splitPairs(of: pairs)
        let (keys, values) = try scratch.withItems(of: lists) { (items) throws(CodecError) -> (UInt32, UInt32) in
            let count = items.count / 2
            return (try tree.array(UnsafeBufferPointer(rebasing: items[..<count])), try tree.array(UnsafeBufferPointer(rebasing: items[count...])))
        }
        scratch.pop(lists)
        scratch.pop(pairs)
        let own = scratch.frame()
        scratch.append(try tree.string(static: "NS.keys"))
        scratch.append(keys)
        scratch.append(try tree.string(static: "NS.objects"))
        scratch.append(values)
        try fillInstance(uid, meta: meta, defaultClass: FoundationClasses.defaultDictionaryClassName, pairs: own, ownPairs: 2)
    }

    /// The wrappers of single values (`$string`, `$date`, `$uuid`, …), which do not recurse.
    @inline(never)
    mutating func encodeWrapper(_ object: Value, meta: ObjectMeta, wrapper: (kind: ValueWrapper, value: Value)) throws(CodecError) -> Int {
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
        case .data, .text:
            let bytes =
                if wrapper.kind == .text, let mark = meta.mark {
                    try document.markedTextBytes(wrapper.value, mark: mark).withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
                } else if wrapper.kind == .text {
                    try Self.textDataValue(document, wrapper.value, into: &tree)
                } else {
                    try Self.dataValue(document, wrapper.value, account: meta.account, into: &tree)
                }
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
            return try scalarEntry(tree.real(document.wrappedReal(wrapper.value)), meta: meta, object: object)
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
    mutating func instance(_ object: Value, meta: ObjectMeta, defaultClass: StaticString?, key: StaticString, value: UInt32) throws(CodecError) -> Int {
        let uid = uidFor(object, meta: meta)
        let pairs = scratch.frame()
        scratch.append(try tree.string(static: key))
        scratch.append(value)
        try fillInstance(uid, meta: meta, defaultClass: defaultClass, pairs: pairs, ownPairs: 1)
        return uid
    }

    /// Builds the plist array of UIDs for the elements of `array`; returns the array.
    mutating func encodeElements(_ array: Value) throws(CodecError) -> UInt32 {
        let elements = scratch.frame()
        var cursor = document.children(of: array)
        while let element = document.nextElement(&cursor) {
            scratch.append(try tree.uid(UInt64(encodeObject(element))))
        }
        let built = try self.array(of: elements)
        scratch.pop(elements)
        return built
    }
}
