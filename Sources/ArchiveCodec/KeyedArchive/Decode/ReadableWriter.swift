/// Writes the readable JSON view of a validated archive (the mapping documented in
/// docs/mapping.md) as `ReadableShape` lays it out, placing each body where `Placement` says.
/// Recursive: one level per body
/// and per inline container, each opening at least one bracket, so the writer never recurses
/// deeper than `Placement.depth`, which callers bound the stack with before starting.
struct ReadableWriter {
    let archive: KeyedArchive
    let view: BinaryPlistView
    let shape: ReadableShape
    var out: JSONOutput
    /// Where bodies stand (`Placement.bodyHolder`) and which entries carry `$id`.
    private(set) var bodyHolder: [UInt32]
    private(set) var carriesID: [Bool]
    /// `Placement.writtenIDs`: the number each `$id` and `$ref` writes.
    private(set) var writtenIDs: [UInt32]
    private(set) var placement: Placement
    private var emitted: [Bool]
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
    private var keyTexts: KeyTextCache
    /// Bodies opened below this many others are written as a stub, `{"$stub": uid}`, instead
    /// (`KeyedValueAtPath`, which writes only the bodies a path goes through); never by
    /// default.
    var stubDepth = Int.max

    /// `emitted`: the objects already written in full, when resuming part way.
    init(archive: KeyedArchive, view: BinaryPlistView, placement: Placement, out: JSONOutput, emitted: [Bool]? = nil) {
        self.archive = archive
        self.view = view
        shape = ReadableShape(archive: archive, view: view)
        self.out = out
        self.placement = placement
        bodyHolder = placement.bodyHolder
        carriesID = placement.carriesID
        writtenIDs = placement.writtenIDs
        self.emitted = emitted ?? Array(filledWith: false, count: archive.objectCount)
        keyTexts = KeyTextCache(references: view.objectCount)
    }

    /// Writes by `placement` from here on (`KeyedValueAtPath`, whose partial placement grows
    /// between walks; `Placement.none` while it grows, so that its tables are not shared).
    mutating func place(by placement: Placement) {
        self.placement = placement
        bodyHolder = placement.bodyHolder
        carriesID = placement.carriesID
        writtenIDs = placement.writtenIDs
    }

    mutating func writeDocument() {
        if !placement.envelope {
            let top = view.header(of: archive.topRef)
            writeReference(view.uidValue(of: view.childRef(top, 1)), keyContext: false)
            return
        }
        out.openObject()
        if !view.isString(archive.archiverRef, equalTo: "NSKeyedArchiver") {
            out.key(MappingKeys.archiver)
            writePlainString(archive.archiverRef)
        }
        let version = view.integer(view.header(of: archive.versionRef))
        if version != PlistInteger(signed: 100_000) {
            out.key(MappingKeys.version)
            out.mappedInteger(version, placement.numbers)
        }
        out.key(MappingKeys.top)
        out.openObject()
        writeChildren(shape.topChildren(), from: 0)
        out.closeObject()
        writeTable()
        out.closeObject()
    }

    /// `"$table": [...]`, the bodies moved out of the document by a nesting bound.
    mutating func writeTable() {
        guard !placement.table.isEmpty else { return }
        out.key(MappingKeys.table)
        out.openArray()
        for entry in placement.table {
            let uid = Int(entry)
            emitted[uid] = true
            writeBody(uid, carriesID: true)
        }
        out.closeArray()
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
                out.reference(Int(writtenIDs[uid]))
                return
            }
            emitted[uid] = true
        }
        let form = archive.forms[uid]
        if form.isScalar {
            writeScalarObject(uid: uid, position: Int(archive.entryOffsets[uid]), form: form, keyContext: keyContext, carriesID: carriesID)
            return
        }
        if depth >= stubDepth {
            writeStub(uid)
            return
        }
        writeBody(uid, carriesID: carriesID)
    }

    /// Entry `uid` as it is written where its body stands (its one reference, or the one
    /// `Placement` gives it): the text `writeReference` writes there, whatever the writer
    /// wrote before. A stub's body is written so (`KeyedValueAtPath`).
    mutating func writeAtBodyPlace(_ uid: Int) {
        let carriesID = carriesID[uid]
        if carriesID { emitted[uid] = true }
        let form = archive.forms[uid]
        if form.isScalar {
            writeScalarObject(uid: uid, position: Int(archive.entryOffsets[uid]), form: form, keyContext: false, carriesID: carriesID)
            return
        }
        writeBody(uid, carriesID: carriesID)
    }

    /// Forgets that `uid`'s body was written, so that the body of the object holding it
    /// writes it again (`KeyedValueAtPath` writes bodies one at a time, in any order).
    mutating func forgetWritten(_ uid: Int) { emitted[uid] = false }

    /// `{"$stub": uid}`: where a body would stand below `stubDepth`.
    @inline(never)
    private mutating func writeStub(_ uid: Int) {
        out.openObject()
        out.key(Self.stubKey)
        out.int(Int64(uid))
        out.closeObject()
    }

    /// The key of a stub: no value of the mapping has it (a data key beginning with `$` is
    /// written `$$…`).
    static let stubKey: StaticString = "$stub"

    /// The body of non-scalar entry `uid` as `ReadableShape` lays it out; its references are
    /// then `uid`'s.
    @inline(never)
    private mutating func writeBody(_ uid: Int, carriesID: Bool) {
        depth += 1
        if depth > maxDepth { maxDepth = depth }
        let outer = body
        body = UInt32(truncatingIfNeeded: uid)
        let layout = shape.layout(of: uid, carriesID: carriesID)
        let closing = layout.closing
        open(layout, uid: uid, carriesID: carriesID)
        writeChildren(layout.children, from: 0)
        close(closing)
        body = outer
        depth -= 1
    }

    @inline(never)
    private mutating func writeScalarObject(uid: Int, position: Int, form: ObjectForm, keyContext: Bool, carriesID: Bool) {
        let header = view.header(at: position)
        if carriesID {
            out.openObject()
            out.key(MappingKeys.identity)
            out.int(Int64(writtenIDs[uid]))
            if form == .data {
                writeDataMembers(header, inline: false)
                out.closeObject()
                return
            }
            out.key(ReadableShape.scalarKey(form))
            writePlainScalar(header, form: form)
            out.closeObject()
            return
        }
        switch form {
        case .string:
            writePlainScalar(header, form: form)
        case .data:
            out.openObject()
            writeDataMembers(header, inline: false)
            out.closeObject()
        case .plistDate:
            out.openObject()
            out.key(MappingKeys.plistDate)
            writePlainScalar(header, form: form)
            out.closeObject()
        default:
            if keyContext {
                out.openObject()
                out.key(MappingKeys.number)
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
        case .int: out.mappedInteger(view.integer(header), placement.numbers)
        case .real: out.mappedReal(view.real(header), placement.numbers)
        case .bool: out.bool(view.bool(header))
        case .data: out.base64String(view.payload(header))  // data values go through writeDataMembers
        case .date: out.mappedTime(view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8)), placement.numbers)
        default: out.null()
        }
    }

    /// Everything a body writes before its first child: the wrapper with its meta keys, a
    /// value class's one value, the children's container. Out of line: it is not on the
    /// recursive path, so its temporaries stay out of the writer's frames (see `StackBudget`).
    @inline(never)
    private mutating func open(_ layout: BodyLayout, uid: Int, carriesID: Bool) {
        switch layout.opening {
        case .bare:
            break
        case .wrapped:
            out.openObject()
            writeMeta(uid: uid, defaultClass: layout.defaultClass, carriesID: carriesID)
        case .members:
            out.openObject()
            writeMeta(uid: uid, defaultClass: layout.defaultClass, carriesID: carriesID)
            if layout.children.walk == .formMembers { writeFoldedMembers(uid) }
            return
        case .value:
            out.openObject()
            writeMeta(uid: uid, defaultClass: layout.defaultClass, carriesID: carriesID)
            writeValueClassValue(uid)
            return
        case .plist:
            out.openObject()
            if carriesID {
                out.key(MappingKeys.identity)
                out.int(Int64(writtenIDs[uid]))
            }
        }
        if let key = shape.contentKey(of: uid, layout) { out.key(key) }
        if layout.containerIsObject { out.openObject() } else { out.openArray() }
    }

    /// Everything a body writes after its last child (`BodyLayout.closing`).
    @inline(__always)
    mutating func close(_ closing: BodyLayout.Closing) {
        if closing.contains(.array) { out.closeArray() }
        if closing.contains(.object) { out.closeObject() }
        if closing.contains(.wrapper) { out.closeObject() }
    }

    /// The children of `list` from position `start` on (all of them, or the rest of a list the
    /// split writer's first half began): each with its key, `$dict` pairs in their own arrays.
    mutating func writeChildren(_ list: ChildList, from start: Int) {
        if list.walk.readsOutOfLine {
            switch list.walk {
            case .ordered: writeOrderedChildren(list, from: start)
            case .attributedRuns: writeRunChildren(list, from: start)
            default: writeFormMembers(list, from: start)
            }
            return
        }
        for position in start..<list.count {
            guard let child = shape.child(list, at: position) else { continue }
            if list.walk == .pairs, position & 1 == 0 { out.openArray() }
            writeChild(child)
            if list.walk == .pairs, position & 1 == 1 { out.closeArray() }
        }
    }

    /// An ordered set's children: its values put in index order first. Out of line, so the
    /// array stays out of `writeChildren`'s frame.
    @inline(never)
    private mutating func writeOrderedChildren(_ list: ChildList, from start: Int) {
        let values = ReadableShape.orderedSetValues(list, view)
        for position in start..<list.count {
            writeReference(view.uidValue(of: shape.orderedChild(values, at: position).value), keyContext: false)
        }
    }

    /// A folded attributed string's children (`ChildList.attributedRuns`): `"$string": text`,
    /// then `"$runs": [` and each run's object around its attributes; `close` ends the array.
    /// `$runs` opens before the first run, or, for an empty text (no runs), once the text is
    /// written (here, or by the split writer's second half resuming after it).
    /// Out of line, as `writeOrderedChildren`.
    @inline(never)
    private mutating func writeRunChildren(_ list: ChildList, from start: Int) {
        defer {
            if list.count == 1, start <= 1 {
                out.key(MappingKeys.runs)
                out.openArray()
            }
        }
        for position in start..<list.count {
            guard position > 0 else {
                out.key(MappingKeys.string)
                writeChild(ReadableShape.runChild(archive.attributedRuns, list, at: 0)!)
                continue
            }
            if position == 1 {
                out.key(MappingKeys.runs)
                out.openArray()
            }
            let run = shape.run(list, at: position)
            out.openObject()
            out.key(MappingKeys.length)
            out.int(Int64(run.length))
            if let source = run.attributesOf {
                out.key(MappingKeys.attributesOf)
                out.int(Int64(source))
            } else {
                out.key(MappingKeys.attributes)
                writeChild(ReadableShape.runChild(archive.attributedRuns, list, at: position)!)
            }
            out.closeObject()
        }
    }

    /// What follows child `position` of `list` once it is written: the end of its `$dict` pair,
    /// or of its run's object.
    mutating func endChild(of list: ChildList, at position: Int) {
        if list.walk == .pairs, position & 1 == 1 { out.closeArray() }
        if list.walk == .attributedRuns, position > 0 { out.closeObject() }
    }

    @inline(__always)
    private mutating func writeChild(_ child: Child) {
        if child.key >= 0 { writeKey(child.key) }
        switch child.role {
        case .reference:
            writeReference(view.uidValue(of: child.value), keyContext: false)
        case .keyedValue:
            writeKeyValue(child.value)
        case .topValue:
            if view.header(of: child.value).kind == .uid {
                writeReference(view.uidValue(of: child.value), keyContext: false)
            } else {
                out.openObject()
                out.key(MappingKeys.inline)
                writeInlineBody(child.value)
                out.closeObject()
            }
        }
    }

    /// NSMutableString, NSData/NSMutableData, NSDate, NSUUID: one value, no children.
    private mutating func writeValueClassValue(_ uid: Int) {
        let header = view.header(at: Int(archive.entryOffsets[uid]))
        let form = archive.forms[uid]
        let (key, field) = form.valueClassMembers
        let value = view.header(of: view.value(in: header, forKey: field)!)
        if form == .classData {
            writeDataMembers(value, inline: false)
            return
        }
        out.key(key)
        switch form {
        case .date: out.mappedTime(view.real(value), placement.numbers)
        case .uuid: out.rawString(Self.uuidText(view.payload(value)))
        default: writePlainScalar(value, form: form == .classData ? .data : .string)
        }
    }

    /// `$class` (unless it is the wrapper's default), `$classes` when not the usual chain,
    /// `$classhints` when present, `$id` when the object is shared.
    private mutating func writeMeta(uid: Int, defaultClass: DefaultClass, carriesID: Bool) {
        if archive.classOf[uid] >= 0 {
            let info = archive.classInfos[Int(archive.classOf[uid])]
            if !shape.namesDefault(uid, defaultClass) {
                if out.pretty {
                    out.key(MappingKeys.className)
                    out.encoded(info.quotedName)
                } else {
                    info.classMember.withUnsafeBufferPointer { out.member(prepared: $0) }
                }
            }
            if !info.isDefaultChain {
                out.key(MappingKeys.classes)
                if let chain = info.chain {
                    out.openArray()
                    for name in chain { out.string(name) }
                    out.closeArray()
                } else {
                    out.null()
                }
            }
            if let hints = info.hints {
                out.key(MappingKeys.classHints)
                out.openArray()
                for name in hints { out.string(name) }
                out.closeArray()
            }
        }
        if carriesID {
            out.key(MappingKeys.identity)
            out.int(Int64(writtenIDs[uid]))
        }
    }

    // MARK: Inline values

    /// A value stored in a class instance's own dictionary: UIDs are references; numbers
    /// and booleans are bare (inline); bytes are `$bytes`; anything else is `$inline`.
    private mutating func writeKeyValue(_ ref: Int) {
        if out.reachedLimit() { return }
        let header = view.header(of: ref)
        switch shape.keyedValueForm(header) {
        case .reference:
            writeReference(Int(view.uid(header)), keyContext: true)
        case .number:
            writePlainScalar(header, form: .integer)
        case .bytes:
            out.openObject()
            writeDataMembers(header, inline: true)
            out.closeObject()
        case .inline:
            out.openObject()
            out.key(MappingKeys.inline)
            writeInlineBody(ref)
            out.closeObject()
        }
    }

    /// The content of an `$inline` wrapper.
    private mutating func writeInlineBody(_ ref: Int) {
        let header = view.header(of: ref)
        switch shape.inlineBodyForm(header) {
        case .string:
            writePlainScalar(header, form: .string)
        case .plistDate:
            out.openObject()
            out.key(MappingKeys.plistDate)
            writePlainScalar(header, form: .plistDate)
            out.closeObject()
        case .container:
            writeInlineContainer(header)
        case .keyedValue:
            writeKeyValue(ref)
        }
    }

    private mutating func writeInlineContainer(_ header: PlistObjectHeader) {
        depth += 1
        if depth > maxDepth { maxDepth = depth }
        if header.kind == .array {
            out.openArray()
            writeChildren(.inlineMembers(of: header), from: 0)
            out.closeArray()
        } else {
            out.openObject()
            writeChildren(.inlineMembers(of: header), from: 0)
            out.closeObject()
        }
        depth -= 1
    }

    // MARK: Bytes

    /// A readable form of bytes its marking accepted (`BytesFormMarks`), numbers written
    /// through the mapping's number writers, as `ReadableShape.formHeight` measures it. Out of
    /// line: it is rare, and off the recursion.
    @inline(never)
    private mutating func writeBytesForm(_ form: BytesForm, label: ColorSpaceLabel.Text?, _ bytes: UnsafeBufferPointer<UInt8>) {
        out.openObject()
        out.key(form.contentKey)
        out.openArray()
        switch form.content(of: bytes)! {
        case .components(let text):
            for component in text.components { out.mappedReal(component, placement.numbers) }
            out.closeArray()
            if form == .rgbComponents, let hex = ColorHex.spelling(text.components) {
                out.key(BytesForm.hexKey)
                out.hexString(packed: hex.digits, digitCount: hex.digitCount)
            }
            switch label {
            case .model(let name):
                out.key(BytesForm.spaceKey)
                out.string(name)
            case .profile(let description):
                out.key(BytesForm.spaceKey)
                out.string(description)
            case nil:
                break
            }
            if !text.terminated {
                out.key(BytesForm.terminatedKey)
                out.bool(false)
            }
        case .varints(let values) where form == .indexes:
            for value in values { out.mappedInteger(PlistInteger(unsigned: value), placement.numbers) }
            out.closeArray()
        case .varints(let values):
            for pair in stride(from: 0, to: values.count, by: 2) {
                out.openArray()
                out.mappedInteger(PlistInteger(unsigned: values[pair]), placement.numbers)
                out.mappedInteger(PlistInteger(unsigned: values[pair + 1]), placement.numbers)
                out.closeArray()
            }
            out.closeArray()
        }
        out.closeObject()
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
            out.dataKey(utf16BigEndian: view.payload(header))
        } else {
            out.dataKey(utf8: view.payload(header))
        }
        keyTexts.keep(out.lastKeyText, for: ref)
    }

    /// A data value's members (`JSONOutput.dataMembers`): text, or base64 with its account.
    /// Out of line: it sits below the recursion, not on it (see `StackBudget`).
    @inline(never)
    /// A data value's members: its class key's readable form inside `$data` or `$bytes`
    /// (`BytesFormMarks`) where it has one, else `JSONOutput.dataMembers` (text, or base64 with
    /// its account).
    private mutating func writeDataMembers(_ header: PlistObjectHeader, inline: Bool) {
        if shape.hasBytesForms, let mark = shape.bytesFormMark(header) {
            out.key(inline ? MappingKeys.bytes : MappingKeys.data)
            writeBytesForm(mark.form, label: mark.label, view.payload(header))
            return
        }
        out.dataMembers(view.payload(header), inline: inline, accounts: placement.accounts, placement.numbers)
    }

    private mutating func writePlainString(_ ref: Int) {
        writePlainScalar(view.header(of: ref), form: .string)
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
