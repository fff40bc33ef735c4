/// Writes the readable JSON view of a validated archive (the mapping documented in
/// docs/mapping.md), placing each body where `Placement` says. Recursive: one level per body
/// and per inline container, each opening at least one bracket, so the writer never recurses
/// deeper than `Placement.depth`, which callers bound the stack with before starting.
struct ReadableWriter {
    let archive: KeyedArchive
    let view: BinaryPlistView
    var out: JSONOutput
    /// Where bodies stand (`Placement.bodyHolder`) and which entries carry `$id`.
    let bodyHolder: [UInt32]
    let carriesID: [Bool]
    let placement: Placement
    private var emitted: [Bool]
    let objectsHeader: PlistObjectHeader
    /// The object whose body is being written (`Placement.topBody` between `$top` values).
    var body = Placement.topBody
    private(set) var depth = 0
    /// Deepest recursion reached (tests compare it with the JSON's nesting).
    private(set) var maxDepth = 0
    /// References written so far (`ResumeWalk` counts them in the same order).
    private var references = 0
    /// The writer stops (`JSONOutput.stop`) when about to write this reference: another
    /// writer resumes the document there (`resume(from:)`).
    var stopAt = Int.max
    /// The text of keys met so far: an archive's instances share a few key objects.
    private var keyTexts = KeyTextCache()

    /// `emitted`: the objects already written in full, when resuming part way.
    init(archive: KeyedArchive, view: BinaryPlistView, placement: Placement, out: JSONOutput, emitted: [Bool]? = nil) {
        self.archive = archive
        self.view = view
        self.out = out
        self.placement = placement
        bodyHolder = placement.bodyHolder
        carriesID = placement.carriesID
        self.emitted = emitted ?? Array(repeating: false, count: archive.objectCount)
        objectsHeader = view.header(of: archive.objectsRef)
    }

    mutating func writeDocument() {
        let top = view.header(of: archive.topRef)
        if !placement.envelope {
            writeReference(view.uidValue(of: view.childRef(top, 1)), keyContext: false)
            return
        }
        out.openObject()
        if !view.isString(archive.archiverRef, equalTo: "NSKeyedArchiver") {
            out.key("$archiver")
            writePlainString(archive.archiverRef)
        }
        let version = view.integer(view.header(of: archive.versionRef))
        if version != PlistInteger(signed: 100_000) {
            out.key("$version")
            writeInteger(version)
        }
        out.key("$top")
        out.openObject()
        writeTopEntries(top, from: 0)
        out.closeObject()
        writeTable()
        out.closeObject()
    }

    /// `"$table": [...]`, the bodies moved out of the document by a nesting bound.
    mutating func writeTable() {
        guard !placement.table.isEmpty else { return }
        out.key("$table")
        out.openArray()
        for entry in placement.table {
            let uid = Int(entry)
            emitted[uid] = true
            writeBody(uid, position: Int(archive.entryOffsets[uid]), form: archive.forms[uid], carriesID: true)
        }
        out.closeArray()
    }

    mutating func writeTopEntries(_ top: PlistObjectHeader, from start: Int) {
        for index in start..<top.count {
            writeKey(view.childRef(top, index))
            let value = view.childRef(top, top.count + index)
            if view.header(of: value).kind == .uid {
                writeReference(view.uidValue(of: value), keyContext: false)
            } else {
                out.openObject()
                out.key("$inline")
                writeInlineBody(value)
                out.closeObject()
            }
        }
    }

    // MARK: Objects

    /// Writes the object `uid` refers to. In key context (an archived key of a class
    /// instance) numbers are wrapped in `$number`, since bare numbers there mean inline.
    mutating func writeReference(_ uid: Int, keyContext: Bool) {
        if references == stopAt { out.stop() }
        references += 1
        if out.reachedLimit() { return }
        if uid == 0 {
            out.null()
            return
        }
        let carriesID = carriesID[uid]
        if carriesID {
            // The body stands at the first reference from its holder (`Placement.bodyHolder`).
            if emitted[uid] || bodyHolder[uid] != body {
                out.reference(uid)
                return
            }
            emitted[uid] = true
        }
        let position = Int(archive.entryOffsets[uid])
        let form = archive.forms[uid]
        if form.isScalar {
            writeScalarObject(uid: uid, position: position, form: form, keyContext: keyContext, carriesID: carriesID)
            return
        }
        writeBody(uid, position: position, form: form, carriesID: carriesID)
    }

    /// The body of non-scalar entry `uid`, whose references are then `uid`'s.
    @inline(__always)
    private mutating func writeBody(_ uid: Int, position: Int, form: ObjectForm, carriesID: Bool) {
        depth += 1
        if depth > maxDepth { maxDepth = depth }
        let outer = body
        body = UInt32(truncatingIfNeeded: uid)
        writeExpanded(uid: uid, position: position, form: form, carriesID: carriesID)
        body = outer
        depth -= 1
    }

    @inline(never)
    private mutating func writeScalarObject(uid: Int, position: Int, form: ObjectForm, keyContext: Bool, carriesID: Bool) {
        let header = view.header(at: position)
        if carriesID {
            out.openObject()
            out.key("$id")
            out.int(Int64(uid))
            switch form {
            case .string: out.key("$string")
            case .data: out.key("$data")
            case .plistDate: out.key("$plistDate")
            default: out.key("$number")
            }
            writePlainScalar(header, form: form)
            out.closeObject()
            return
        }
        switch form {
        case .string:
            writePlainScalar(header, form: form)
        case .data:
            out.openObject()
            out.key("$data")
            writePlainScalar(header, form: form)
            out.closeObject()
        case .plistDate:
            out.openObject()
            out.key("$plistDate")
            writePlainScalar(header, form: form)
            out.closeObject()
        default:
            if keyContext {
                out.openObject()
                out.key("$number")
                writePlainScalar(header, form: form)
                out.closeObject()
            } else {
                writePlainScalar(header, form: form)
            }
        }
    }

    /// The value itself: a string, a number, base64 text for data, date text for dates.
    private mutating func writePlainScalar(_ header: PlistObjectHeader, form: ObjectForm) {
        switch header.kind {
        case .asciiString: out.string(utf8: view.payload(header))
        case .utf16String: out.string(utf16BigEndian: view.payload(header))
        case .int: writeInteger(view.integer(header))
        case .real: writeReal(view.real(header))
        case .bool: out.bool(view.bool(header))
        case .data: out.base64String(view.payload(header))
        case .date: writeTime(view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8)))
        default: out.null()
        }
    }

    /// Dispatches to one small function per form: each sits on the recursive path, so each
    /// keeps its frame small (see `StackBudget`).
    private mutating func writeExpanded(uid: Int, position: Int, form: ObjectForm, carriesID: Bool) {
        let header = view.header(at: position)
        let info = archive.classOf[uid] >= 0 ? archive.classInfos[Int(archive.classOf[uid])] : nil
        switch form {
        case .array, .set: writeCollection(uid: uid, header: header, form: form, info: info, carriesID: carriesID)
        case .orderedSet: writeOrderedSet(uid: uid, header: header, info: info, carriesID: carriesID)
        case .stringKeyDictionary, .pairDictionary: writeDictionary(uid: uid, header: header, form: form, info: info, carriesID: carriesID)
        case .mutableString, .classData, .date, .uuid: writeValueClass(uid: uid, header: header, form: form, info: info, carriesID: carriesID)
        case .generic: writeGeneric(uid: uid, header: header, info: info, carriesID: carriesID)
        default: writeRawObject(uid: uid, header: header, carriesID: carriesID)
        }
    }

    @inline(never)
    private mutating func writeCollection(uid: Int, header: PlistObjectHeader, form: ObjectForm, info: KeyedArchive.ClassInfo?, carriesID: Bool) {
        let items = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
        let defaultClass = form == .array ? FoundationClasses.defaultArrayClass : FoundationClasses.defaultSetClass
        if form == .array && isBare(info, defaultClass: defaultClass, carriesID: carriesID) {
            writeUIDArray(items)
            return
        }
        out.openObject()
        writeMeta(uid: uid, info: info, defaultClass: defaultClass, carriesID: carriesID)
        out.key(form == .array ? "$array" : "$set")
        writeUIDArray(items)
        out.closeObject()
    }

    @inline(never)
    private mutating func writeOrderedSet(uid: Int, header: PlistObjectHeader, info: KeyedArchive.ClassInfo?, carriesID: Bool) {
        out.openObject()
        writeMeta(uid: uid, info: info, defaultClass: FoundationClasses.defaultOrderedSetClass, carriesID: carriesID)
        out.key("$orderedSet")
        out.openArray()
        writeOrderedItems(Self.orderedSetValues(view, header), from: 0)
        out.closeArray()
        out.closeObject()
    }

    @inline(__always)
    mutating func writeOrderedItems(_ values: [Int], from start: Int) {
        for value in values[start...] {
            writeReference(view.uidValue(of: value), keyContext: false)
        }
    }

    @inline(never)
    private mutating func writeDictionary(uid: Int, header: PlistObjectHeader, form: ObjectForm, info: KeyedArchive.ClassInfo?, carriesID: Bool) {
        let keys = view.header(of: KeyedArchive.keyList(archive.lists[uid]))
        let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
        let bare =
            form == .stringKeyDictionary
            && isBare(info, defaultClass: FoundationClasses.defaultDictionaryClass, carriesID: carriesID)
        if !bare {
            out.openObject()
            writeMeta(uid: uid, info: info, defaultClass: FoundationClasses.defaultDictionaryClass, carriesID: carriesID)
            out.key("$dict")
        }
        if form == .stringKeyDictionary {
            out.openObject()
            writeStringKeyEntries(keys, values, from: 0)
            out.closeObject()
        } else {
            out.openArray()
            writePairs(keys, values, from: 0)
            out.closeArray()
        }
        if !bare { out.closeObject() }
    }

    @inline(__always)
    mutating func writeStringKeyEntries(_ keys: PlistObjectHeader, _ values: PlistObjectHeader, from start: Int) {
        for index in start..<keys.count {
            let keyUID = view.uidValue(of: view.childRef(keys, index))
            writeKey(view.childRef(objectsHeader, keyUID))
            writeReference(view.uidValue(of: view.childRef(values, index)), keyContext: false)
        }
    }

    @inline(__always)
    mutating func writePairs(_ keys: PlistObjectHeader, _ values: PlistObjectHeader, from start: Int) {
        for index in start..<keys.count {
            out.openArray()
            writeReference(view.uidValue(of: view.childRef(keys, index)), keyContext: false)
            writeReference(view.uidValue(of: view.childRef(values, index)), keyContext: false)
            out.closeArray()
        }
    }

    /// NSMutableString, NSData/NSMutableData, NSDate, NSUUID: one value, no children.
    @inline(never)
    private mutating func writeValueClass(uid: Int, header: PlistObjectHeader, form: ObjectForm, info: KeyedArchive.ClassInfo?, carriesID: Bool) {
        out.openObject()
        let (defaultClass, key, field): (String, StaticString, StaticString) =
            switch form {
            case .mutableString: ("", "$string", "NS.string")
            case .classData: ("", "$data", "NS.data")
            case .date: ("NSDate", "$date", "NS.time")
            default: ("NSUUID", "$uuid", "NS.uuidbytes")
            }
        writeMeta(uid: uid, info: info, defaultClass: defaultClass, carriesID: carriesID)
        out.key(key)
        let value = view.header(of: view.value(in: header, forKey: field)!)
        switch form {
        case .date: writeTime(view.real(value))
        case .uuid: out.rawString(Self.uuidText(view.payload(value)))
        default: writePlainScalar(value, form: form == .classData ? .data : .string)
        }
        out.closeObject()
    }

    @inline(never)
    private mutating func writeGeneric(uid: Int, header: PlistObjectHeader, info: KeyedArchive.ClassInfo?, carriesID: Bool) {
        out.openObject()
        writeMeta(uid: uid, info: info, defaultClass: "", carriesID: carriesID)
        writeGenericMembers(header, from: 0)
        out.closeObject()
    }

    @inline(__always)
    mutating func writeGenericMembers(_ header: PlistObjectHeader, from start: Int) {
        for index in start..<header.count {
            let key = view.childRef(header, index)
            if archive.classKeys.contains(key) { continue }
            writeKey(key)
            writeKeyValue(view.childRef(header, header.count + index))
        }
    }

    @inline(never)
    private mutating func writeRawObject(uid: Int, header: PlistObjectHeader, carriesID: Bool) {
        out.openObject()
        if carriesID {
            out.key("$id")
            out.int(Int64(uid))
        }
        out.key("$plist")
        writeInlineContainer(header)
        out.closeObject()
    }

    func isBare(_ info: KeyedArchive.ClassInfo?, defaultClass: String, carriesID: Bool) -> Bool {
        guard let info, !carriesID, info.isPlain else { return false }
        return info.name == defaultClass
    }

    /// `$class` (unless it is the wrapper's default), `$classes` when not the usual chain,
    /// `$classhints` when present, `$id` when the object is shared.
    @inline(never)
    private mutating func writeMeta(uid: Int, info: KeyedArchive.ClassInfo?, defaultClass: String, carriesID: Bool) {
        if let info {
            if defaultClass.isEmpty || info.name != defaultClass {
                if out.pretty {
                    out.key("$class")
                    out.encoded(info.quotedName)
                } else {
                    info.classMember.withUnsafeBufferPointer { out.member(prepared: $0) }
                }
            }
            if !info.isDefaultChain {
                out.key("$classes")
                if let chain = info.chain {
                    out.openArray()
                    for name in chain { out.string(name) }
                    out.closeArray()
                } else {
                    out.null()
                }
            }
            if let hints = info.hints {
                out.key("$classhints")
                out.openArray()
                for name in hints { out.string(name) }
                out.closeArray()
            }
        }
        if carriesID {
            out.key("$id")
            out.int(Int64(uid))
        }
    }

    private mutating func writeUIDArray(_ items: PlistObjectHeader) {
        out.openArray()
        writeUIDItems(items, from: 0)
        out.closeArray()
    }

    @inline(__always)
    mutating func writeUIDItems(_ items: PlistObjectHeader, from start: Int) {
        for index in start..<items.count {
            writeReference(view.uidValue(of: view.childRef(items, index)), keyContext: false)
        }
    }

    /// Values of an ordered set's `NS.object.N` keys in index order (shape checked at parse).
    /// Not inlined: its temporaries would sit in `writeOrderedSet`'s frame, on the recursion.
    @inline(never)
    static func orderedSetValues(_ view: BinaryPlistView, _ header: PlistObjectHeader) -> [Int] {
        var values = [Int](repeating: 0, count: max(header.count - 1, 0))
        for index in 0..<header.count {
            var scalars: [UInt32] = []
            ScalarIdentity.forEachScalar(view, view.header(of: view.childRef(header, index))) { scalars.append($0) }
            guard scalars.count > 10, scalars[0] == UInt32(UInt8(ascii: "N")) else { continue }  // skips "$class"
            var position = 0
            for scalar in scalars[10...] { position = position * 10 + Int(scalar) - 0x30 }
            values[position] = view.childRef(header, header.count + index)
        }
        return values
    }

    // MARK: Inline values

    /// A value stored in a class instance's own dictionary: UIDs are references; numbers
    /// and booleans are bare (inline); bytes are `$bytes`; anything else is `$inline`.
    private mutating func writeKeyValue(_ ref: Int) {
        if out.reachedLimit() { return }
        let header = view.header(of: ref)
        switch header.kind {
        case .uid:
            writeReference(Int(view.uid(header)), keyContext: true)
        case .int:
            writeInteger(view.integer(header))
        case .real:
            writeReal(view.real(header))
        case .bool:
            out.bool(view.bool(header))
        case .data:
            out.openObject()
            out.key("$bytes")
            out.base64String(view.payload(header))
            out.closeObject()
        default:
            out.openObject()
            out.key("$inline")
            writeInlineBody(ref)
            out.closeObject()
        }
    }

    /// The content of an `$inline` wrapper.
    private mutating func writeInlineBody(_ ref: Int) {
        let header = view.header(of: ref)
        switch header.kind {
        case .asciiString, .utf16String:
            writePlainScalar(header, form: .string)
        case .date:
            out.openObject()
            out.key("$plistDate")
            writePlainScalar(header, form: .plistDate)
            out.closeObject()
        case .array, .dict:
            writeInlineContainer(header)
        default:
            writeKeyValue(ref)
        }
    }

    private mutating func writeInlineContainer(_ header: PlistObjectHeader) {
        depth += 1
        if depth > maxDepth { maxDepth = depth }
        if header.kind == .array {
            out.openArray()
            writeInlineMembers(header, from: 0)
            out.closeArray()
        } else {
            out.openObject()
            writeInlineMembers(header, from: 0)
            out.closeObject()
        }
        depth -= 1
    }

    @inline(__always)
    mutating func writeInlineMembers(_ header: PlistObjectHeader, from start: Int) {
        if header.kind == .array {
            for index in start..<header.count { writeKeyValue(view.childRef(header, index)) }
        } else {
            for index in start..<header.count {
                writeKey(view.childRef(header, index))
                writeKeyValue(view.childRef(header, header.count + index))
            }
        }
    }

    // MARK: Scalars

    /// Out of line: it sits in every member loop of the recursive writers (see `StackBudget`).
    @inline(never)
    private mutating func writeKey(_ ref: Int) {
        if out.reachedLimit() { return }
        if let slot = keyTexts.slot(of: ref) {
            keyTexts.write(slot, to: &out)
            return
        }
        let header = view.header(of: ref)
        if header.kind == .utf16String {
            out.key(utf16BigEndian: view.payload(header), escapeDollar: true)
        } else {
            out.key(utf8: view.payload(header), escapeDollar: true)
        }
        keyTexts.keep(out.lastKeyText, for: ref)
    }

    private mutating func writePlainString(_ ref: Int) {
        writePlainScalar(view.header(of: ref), form: .string)
    }

    private mutating func writeInteger(_ value: PlistInteger) {
        if placement.exactIntegers, Placement.isInexact(value) {
            writeExactInteger(value)
            return
        }
        if value.isUnsigned { out.uint(value.bits) } else { out.int(Int64(bitPattern: value.bits)) }
    }

    /// `{"$integer": "…"}`: an integer a double cannot hold, as decimal text.
    @inline(never)
    private mutating func writeExactInteger(_ value: PlistInteger) {
        out.openObject()
        out.key("$integer")
        out.string(value.isUnsigned ? String(value.bits) : String(Int64(bitPattern: value.bits)))
        out.closeObject()
    }

    /// Finite reals are JSON numbers with a `.` or exponent; NaN and infinities `$real`.
    private mutating func writeReal(_ value: Double) {
        if value.isFinite {
            out.real(value)
            return
        }
        out.openObject()
        out.key("$real")
        out.string(NonFiniteReal.text(value))
        out.closeObject()
    }

    /// ISO 8601 text when it reads back exactly, else seconds since 2001 as a real.
    private mutating func writeTime(_ time: Double) {
        if let text = DateText.readable(time) {
            out.rawString(text)
        } else {
            writeReal(time)
        }
    }

    static func uuidText(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xF)])
        }
        return text
    }
}
