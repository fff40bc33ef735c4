/// Writes a typedstream's JSON (docs/mapping.md, "typedstream"): `{"$typedstream": [group, …]}`,
/// each group `{"<type string>": value}` (or `[value, …]` for a string of several types), an
/// object `{"$class": …, "$classes": [[name, version], …], "$id"?: n, "$groups": [group, …]}` where
/// it first occurs in the stream and `{"$ref": n}` after, the rest as `TypedStreamJSONEncoder`
/// reads it back. The classes people meet (strings, numbers, arrays, sets, dictionaries,
/// attributed strings, data, dates, values, URLs, colours, fonts) take their readable forms instead (`ReadableForm`, written by the extension
/// in `TypedStreamJSONWriter+ReadableForms.swift`) wherever they hold exactly what the form
/// rebuilds; every other object keeps the generic form.
///
/// Follows the stream's own order (`TypedStreamWalk`) with no recursion, so any nesting writes
/// on any stack; `depth` is the JSON nesting, found by the same walk without writing.
struct TypedStreamJSONWriter {
    let stream: TypedStream
    /// The numbers written in typed wrappers.
    let numbers: NumberWrapping
    /// Per object, class and shared string, what the walk asks (`Tables`).
    let tables: Tables
    var shared: [Bool] { tables.shared }
    var readableClasses: [ReadableClass?] { tables.readableClasses }
    var sharedStringIsText: [Bool] { tables.sharedStringIsText }

    init(stream: TypedStream, tables: Tables? = nil, numbers: NumberWrapping = .nonFinite) {
        self.stream = stream
        self.numbers = numbers
        self.tables = tables ?? Tables(stream)
    }

    /// An object the walk is inside, innermost last: its readable container form (nil for the
    /// generic form) and the role of the group being walked.
    struct OpenObject {
        var object: Int
        var form: ReadableForm?
        var role: ReadableForm.GroupRole = .element
        /// How many of its groups have begun: the position of the one begun last, plus one.
        var groupsBegun = 0
        /// Whether `form` is not nil: the walk asks at every step.
        let isReadable: Bool

        init(object: Int, form: ReadableForm?) {
            self.object = object
            self.form = form
            isReadable = form != nil
        }
    }

    /// The JSON nesting of the document.
    var depth: Int {
        var measure = TypedStreamJSONMeasure(numbers: numbers)
        walk(into: &measure)
        return measure.deepest
    }

    /// Writes the document into `out`; stops descending once `out` passes its limit.
    func write(into out: inout JSONOutput) {
        var text = TypedStreamJSONText(out: out, numbers: numbers, values: stream.values.count, sharedStrings: stream.sharedStrings.count)
        walk(into: &text)
        out = text.out
    }

    // MARK: The walk

    /// Walks the stream, writing the document into `sink` (`TypedStreamPathSink` follows it to a value).
    func walk<Sink: TypedStreamJSONSink>(into sink: inout Sink) {
        sink.openObject()
        if stream.byteOrder == .big {
            sink.key(MappingKeys.byteOrder)
            sink.string("big")
        }
        if stream.systemVersion != TypedStreamHeader.currentSystemVersion {
            sink.key(MappingKeys.systemVersion)
            sink.mappingInteger(stream.systemVersion)
        }
        sink.key(MappingKeys.typedStream)
        sink.openArray()
        var walk = TypedStreamWalk(stream)
        var open: [OpenObject] = []
        // The group roles of the attributed strings open (`ReadableForm.attributedString`).
        var roles: [ReadableForm.GroupRole] = []
        // `ReadableForm.of`'s scratch: the groups of the object it is asked about.
        var starts: [UInt32] = []
        // A salvaged stream's mark and the slots it left (`TypedStream.Break`), asked at each
        // step only when there is one.
        let salvaged = stream.broken != nil
        while let step = walk.next() {
            if sink.isStopped() { return }
            // The innermost object's flag alone: `open.last` would copy its form each step.
            let container = !open.isEmpty && open[open.count - 1].isReadable
            switch step {
            case .group(let group, let values):
                if container {
                    beginGroup(values: values, of: &open[open.count - 1], roles: roles, into: &sink)
                    continue
                }
                sink.openObject()
                sink.groupKey(Int(stream.string(ofGroup: group)), of: stream)
                if values != 1 { sink.openArray() }
            case .endOfGroup(let group):
                if container {
                    endGroup(group, of: open[open.count - 1], into: &sink)
                    continue
                }
                if stream.values(ofGroup: group).count != 1 { sink.closeArray() }
                sink.closeObject()
            case .value(let index):
                if salvaged, stream.broken!.absentValues.contains(UInt32(index)) { continue }
                if salvaged, stream.broken!.place == .value(UInt32(index)) {
                    writeBreak(into: &sink)
                    continue
                }
                sink.willWrite(value: index)
                if container, !writeContainerValue(index, of: open[open.count - 1], into: &sink) {
                    sink.didWrite(value: index)
                    continue
                }
                if let entered = writeValue(index, walk: &walk, roles: &roles, starts: &starts, into: &sink) { open.append(entered) }
                sink.didWrite(value: index)
            case .endOfComposite(let index):
                if stream.code(of: index) != TypeCode.pointer { sink.closeArray() }
            case .endOfObject:
                let object = open.removeLast()
                if let form = object.form {
                    if case .attributedString(_, let table) = form { roles.removeSubrange(table) }
                    endContainer(form, of: object.object, into: &sink)
                    continue
                }
                if salvaged, stream.broken!.place == .endOfObject(UInt32(object.object)) { writeBreak(into: &sink) }
                sink.closeArray()
                sink.closeObject()
            }
        }
        if salvaged, stream.broken!.place == .endOfStream { writeBreak(into: &sink) }
        sink.closeArray()
        sink.closeObject()
    }

    /// The mark of a salvaged stream's break (`MappingKeys.broken`): its offset, the refusal's
    /// words, the input's bytes from the offset on.
    func writeBreak<Sink: TypedStreamJSONSink>(into sink: inout Sink) {
        let broken = stream.broken!
        sink.brokenMark(offset: broken.offset, reason: broken.reason, rest: stream.bytes(broken.rest))
    }

    /// Writes value `index`; when it is an object the walk must go into (the generic form, or
    /// a readable container), enters it and returns it as the innermost open object.
    func writeValue<Sink: TypedStreamJSONSink>(
        _ index: Int, walk: inout TypedStreamWalk, roles: inout [ReadableForm.GroupRole], starts: inout [UInt32], into sink: inout Sink
    ) -> OpenObject? {
        switch stream.content(of: index) {
        case .signed(let value): sink.integer(value)
        case .unsigned(let value): sink.unsigned(value)
        case .float(let bits): sink.real(FloatWidening.double(bits))
        case .double(let bits): sink.real(Double(bitPattern: bits))
        case .byteString(let span): writeText(span, into: &sink)
        case .byteArray(let span): sink.data(stream.bytes(span))
        case .cString(let string): writeSharedText(string.map { Int(stream.cStrings[$0]) }, into: &sink)
        case .atom(let string), .selector(let string): writeSharedText(string.map { Int($0) }, into: &sink)
        case .classReference(let index):
            if let index { writeChain(index, into: &sink) } else { sink.null() }
        case .ignored: sink.null()
        case .object(nil): sink.null()
        case .object(let object?):
            if !stream.values[index].isFirstOccurrence {
                sink.reference(object)
                return nil
            }
            let classIndex = Int(stream.objects[object].classIndex)
            // An object a salvage ended early keeps the generic form: a readable one would pass
            // off the part read as the whole. An object of no readable class is not asked
            // about its groups (most objects of an app's own classes).
            if readableClasses[classIndex] != nil, stream.broken?.openObjects.contains(UInt32(object)) != true,
                let form = ReadableForm.of(object, in: stream, readableClasses: readableClasses, shared: shared, roles: &roles, starts: &starts)
            {
                guard beginReadable(form, of: object, into: &sink) else { return nil }
                walk.enter(object: object)
                return OpenObject(object: object, form: form)
            }
            sink.objectHead(classIndex, of: stream)
            if shared[object] {
                sink.key(MappingKeys.identity)
                sink.mappingInteger(Int64(object))
            }
            sink.key(MappingKeys.groups)
            sink.openArray()
            walk.enter(object: object)
            return OpenObject(object: object, form: nil)
        case .array, .structure:
            sink.openArray()
            walk.enter(childrenOf: index)
        case .pointer:
            walk.enter(childrenOf: index)
        }
        return nil
    }

    /// `[[name, version], …]`, the class and its superclasses (only the class for a sink that
    /// follows the nesting: `TypedStreamJSONSink.followsNestingOnly`).
    func writeChain<Sink: TypedStreamJSONSink>(_ index: Int, into sink: inout Sink) {
        sink.classChain(index, of: stream)
    }

    /// Shared string `index` as `writeText` writes it, its UTF-8 check made once
    /// (`sharedStringIsText`); nil is `null`.
    func writeSharedText<Sink: TypedStreamJSONSink>(_ index: Int?, into sink: inout Sink) {
        guard let index else { return sink.null() }
        let span = stream.sharedStrings[index]
        guard sharedStringIsText[index] else { return sink.data(stream.bytes(span)) }
        stream.withBytes(span) { sink.text($0) }
    }

    /// The bytes of `span` as text when they are UTF-8, else `{"$data": base64}`; nil is `null`.
    func writeText<Sink: TypedStreamJSONSink>(_ span: TypedStream.Span?, into sink: inout Sink) {
        guard let span else { return sink.null() }
        let valid = stream.withBytes(span) { bytes in
            guard UTF8Encoding.firstInvalidOffset(bytes) == nil else { return false }
            sink.text(bytes)
            return true
        }
        if !valid { sink.data(stream.bytes(span)) }
    }
}
