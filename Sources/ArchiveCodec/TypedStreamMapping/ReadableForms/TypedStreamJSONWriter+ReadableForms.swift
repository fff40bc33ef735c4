/// Writing the readable forms (`ReadableForm`, docs/mapping.md "typedstream") in the writer's
/// walk. A leaf form is written whole where its object first occurs; a container form writes
/// its head there, then each of the object's groups as its `GroupRole` says while the walk goes
/// through them, and its end at the object's end. Nothing here recurses: nested objects are
/// the walk's.
extension TypedStreamJSONWriter {
    /// Writes `form` for object `object` where it first occurs; true when it is a container
    /// whose groups the walk must go through next.
    func beginReadable<Sink: TypedStreamJSONSink>(_ form: ReadableForm, of object: Int, into sink: inout Sink) -> Bool {
        switch form {
        case .string(let readableClass, let text):
            // Written here, not through `writeLeaf`: a closure that reads the stream would
            // copy the writer at every string.
            guard isWrapped(readableClass, default: .string, object) else {
                stream.withBytes(text) { sink.text($0) }
                return false
            }
            writeHead(readableClass, default: .string, object, into: &sink)
            sink.key(MappingKeys.string)
            stream.withBytes(text) { sink.text($0) }
            sink.closeObject()
            return false
        case .number(let type, let value):
            writeNumber(type: type, value: value, object: object, into: &sink)
            return false
        case .data(let readableClass, let span):
            let bytes = stream.bytes(span)
            guard bytes.withUnsafeBufferPointer(DataText.isText) else {
                guard let kind = bytes.withUnsafeBufferPointer(DataForm.readableKind) else {
                    writeLeaf(readableClass, bare: .data, key: MappingKeys.data, object, into: &sink, bareForm: { $0.data(bytes) }, content: { $0.base64(bytes) })
                    return false
                }
                // Bytes with a kind (`DataKind`): `{"$data": "…", "$kind": {…}}`, as in the
                // other formats' readable views.
                let content: (inout Sink) -> Void = { sink in
                    sink.base64(bytes)
                    sink.kindMember(kind)
                }
                writeWrappedLeaf(readableClass, key: MappingKeys.data, object, into: &sink, content: content)
                return false
            }
            // UTF-8 text (`DataText`): `{"$text": "…"}`, no deeper than `$data`; after a byte
            // order mark, the text after it and `"$bom": "utf8"`.
            let marked = bytes.withUnsafeBufferPointer { DataText.markedText($0).map { (mark: $0.mark, length: $0.text.count) } }
            let text: (inout Sink) -> Void = { sink in
                guard let marked else { return sink.text(bytes) }
                sink.text(bytes.suffix(marked.length))
                sink.key(MappingKeys.bom)
                sink.string(marked.mark.name)
            }
            writeWrappedLeaf(readableClass, key: MappingKeys.text, object, into: &sink, content: text)
            return false
        case .date(let value):
            writeHead(.date, default: .date, object, into: &sink)
            sink.key(MappingKeys.date)
            if case .double(let bits) = stream.content(of: value) { sink.time(Double(bitPattern: bits)) }
            sink.closeObject()
            return false
        case .color(let space, let components):
            writeHead(.color, default: nil, object, into: &sink)
            sink.key(MappingKeys.space)
            sink.text(ReadableColor.spaceNameBytes[Int(space) - 1])
            sink.key(MappingKeys.components)
            sink.openArray()
            // The components' values as the stream holds them (floats), for an RGB colour's hex.
            var (red, green, blue, alpha) = (Double.nan, Double.nan, Double.nan, Double.nan)
            for (position, component) in components.enumerated() {
                guard case .float(let bits) = stream.content(of: component) else { continue }
                sink.real(FloatWidening.double(bits))
                let value = Double(Float(bitPattern: bits))
                switch position {
                case 0: red = value
                case 1: green = value
                case 2: blue = value
                default: alpha = value
                }
            }
            sink.closeArray()
            // An RGB colour's hex beside its components, as `NSRGB`'s in keyed archives, spelled
            // in place (`ColorHex.Spelling`).
            if ReadableColor.hasHex(space: space), components.count == 4, let hex = ColorHex.spelling(red, green, blue, alpha: alpha) {
                sink.key(MappingKeys.hex)
                sink.colorHex(hex)
            }
            sink.closeObject()
            return false
        case .font(let readableClass, let nameList, let size, let flags):
            writeFont(readableClass, nameList: nameList, size: size, flags: flags, object: object, into: &sink)
            return false
        case .array(let readableClass):
            if readableClass == .set || readableClass == .mutableSet {
                writeHead(readableClass, default: .set, object, into: &sink)
                sink.key(MappingKeys.set)
            } else if isWrapped(readableClass, default: .array, object) {
                writeHead(readableClass, default: .array, object, into: &sink)
                sink.key(MappingKeys.array)
            }
            sink.openArray()
            return true
        case .value(let type):
            writeHead(.value, default: nil, object, into: &sink)
            sink.key(MappingKeys.type)
            sink.text(stream.bytes(type))
            return true
        case .url, .namedColor:
            writeHead(readableClassOf(object), default: nil, object, into: &sink)
            return true
        case .dictionary(let readableClass, let stringKeys):
            guard stringKeys else {
                writeHead(readableClass, default: .dictionary, object, into: &sink)
                sink.key(MappingKeys.dict)
                sink.openArray()
                return true
            }
            if isWrapped(readableClass, default: .dictionary, object) {
                writeHead(readableClass, default: .dictionary, object, into: &sink)
            } else {
                sink.openObject()
            }
            return true
        case .attributedString(let readableClass, _):
            // Always named: a dictionary could not be told from it otherwise at a glance.
            writeHead(readableClass, default: nil, object, into: &sink)
            return true
        }
    }

    /// The next group of container `open` begins: sets its role (`roles`: the walk's role
    /// table), writes what opens it.
    func beginGroup<Sink: TypedStreamJSONSink>(values: Int, of open: inout OpenObject, roles: [ReadableForm.GroupRole], into sink: inout Sink) {
        guard let form = open.form else { return }
        open.role = form.role(ofGroup: open.groupsBegun, roles: roles)
        open.groupsBegun += 1
        switch open.role {
        case .key: if case .dictionary(_, stringKeys: false) = form { sink.openArray() }
        case .text: sink.key(MappingKeys.string)
        case .run(let length, let attributesOf):
            sink.openObject()
            sink.key(MappingKeys.length)
            sink.mappingInteger(Int64(length))  // an `I`: 32 bits
            if let attributesOf {
                sink.key(MappingKeys.attributesOf)
                sink.mappingInteger(Int64(attributesOf))
            }
        case .member(let member):
            sink.key(member.key)
            if values != 1 { sink.openArray() }
        case .count, .element, .value, .attributes: break
        }
    }

    /// Group `group` of container `open` ends: writes what closes it.
    func endGroup<Sink: TypedStreamJSONSink>(_ group: Int, of open: OpenObject, into sink: inout Sink) {
        switch open.role {
        case .value:
            if case .dictionary(_, stringKeys: false)? = open.form { sink.closeArray() }
        case .text:
            sink.key(MappingKeys.runs)
            sink.openArray()
        case .run(_, attributesOf: nil): sink.key(MappingKeys.attributes)
        case .run, .attributes: sink.closeObject()
        case .member: if stream.values(ofGroup: group).count != 1 { sink.closeArray() }
        case .count, .element, .key: break
        }
    }

    /// Value `index` in a group of container `open`: writes what the role makes of it; true
    /// when the value is to be written as any value is.
    func writeContainerValue<Sink: TypedStreamJSONSink>(_ index: Int, of open: OpenObject, into sink: inout Sink) -> Bool {
        switch open.role {
        case .count, .run: return false
        case .key:
            guard case .dictionary(_, stringKeys: true)? = open.form, case .object(let key?) = stream.content(of: index) else { return true }
            // A new, unshared NSString of UTF-8 text (`ReadableForm`): its one `+` value.
            let text = Int(stream.objects[key].firstValue)
            if case .byteString(let span?) = stream.content(of: text) { sink.dataKey(stream.bytes(span)) }
            return false
        default: return true
        }
    }

    /// Container `form` of object `object` ends.
    func endContainer<Sink: TypedStreamJSONSink>(_ form: ReadableForm, of object: Int, into sink: inout Sink) {
        switch form {
        case .array(let readableClass):
            sink.closeArray()
            if readableClass != .array || shared[object] { sink.closeObject() }
        case .dictionary(_, let stringKeys):
            if !stringKeys { sink.closeArray() }
            sink.closeObject()
        case .attributedString:
            sink.closeArray()
            sink.closeObject()
        case .value, .url, .namedColor: sink.closeObject()
        case .string, .number, .data, .date, .color, .font: break
        }
    }

    // MARK: Parts

    private func readableClassOf(_ object: Int) -> ReadableClass {
        readableClasses[Int(stream.objects[object].classIndex)]!
    }

    /// Whether object `object` of `readableClass` needs its object form: another class than
    /// the bare form's, or a shared object (its `$id`).
    private func isWrapped(_ readableClass: ReadableClass, default bare: ReadableClass, _ object: Int) -> Bool {
        readableClass != bare || shared[object]
    }

    /// Opens the object form: `$class` unless `readableClass` is `implied`, `$id` when shared.
    private func writeHead<Sink: TypedStreamJSONSink>(_ readableClass: ReadableClass, default implied: ReadableClass?, _ object: Int, into sink: inout Sink) {
        sink.openObject()
        if readableClass != implied {
            sink.key(MappingKeys.className)
            sink.text(ArraySlice(readableClass.name.utf8))
        }
        if shared[object] {
            sink.key(MappingKeys.identity)
            sink.mappingInteger(Int64(object))
        }
    }

    /// A data object whose bare form is the wrapper alone, `{key: content}` (`$text`, `$data`
    /// with `$kind`): the object form adds its class and identity to that wrapper.
    private func writeWrappedLeaf<Sink: TypedStreamJSONSink>(
        _ readableClass: ReadableClass, key: StaticString, _ object: Int, into sink: inout Sink, content: (inout Sink) -> Void
    ) {
        writeLeaf(
            readableClass, bare: .data, key: key, object, into: &sink,
            bareForm: { sink in
                sink.openObject()
                sink.key(key)
                content(&sink)
                sink.closeObject()
            }, content: content)
    }

    /// A string or data object: `bareForm` for an unshared object of class `bare`, else the
    /// object form with `content` under `key`.
    private func writeLeaf<Sink: TypedStreamJSONSink>(
        _ readableClass: ReadableClass, bare: ReadableClass, key: StaticString, _ object: Int, into sink: inout Sink, bareForm: (inout Sink) -> Void,
        content: (inout Sink) -> Void
    ) {
        guard isWrapped(readableClass, default: bare, object) else { return bareForm(&sink) }
        writeHead(readableClass, default: bare, object, into: &sink)
        sink.key(key)
        content(&sink)
        sink.closeObject()
    }

    /// An NSFont: `{"$class": "NSFont", "$version": v, "$name": …, "$size": …, "$flags": […]}`.
    private func writeFont<Sink: TypedStreamJSONSink>(
        _ readableClass: ReadableClass, nameList: TypedStream.Span, size: Int, flags: Range<Int>, object: Int, into sink: inout Sink
    ) {
        // `ReadableForm.of` read the name from the list before it made the form.
        let name = ReadableFont.name(in: stream.bytes(nameList), version: readableClass.chain[0].version) ?? ""
        writeHead(readableClass, default: nil, object, into: &sink)
        sink.key(MappingKeys.version)
        sink.mappingInteger(readableClass.chain[0].version)
        sink.key(MappingKeys.name)
        sink.text(ArraySlice(name.utf8))
        sink.key(MappingKeys.size)
        if case .float(let bits) = stream.content(of: size) { sink.real(FloatWidening.double(bits)) }
        sink.key(MappingKeys.flags)
        sink.openArray()
        for value in flags {
            if case .signed(let flag) = stream.content(of: value) { sink.mappingInteger(flag) }
        }
        sink.closeArray()
        sink.closeObject()
    }

    /// An NSNumber: bare when `ReadableNumber`'s rule gives its type and it is not shared,
    /// else `{"$id"?: n, "$number": value, "$type"?: "i"}`.
    private func writeNumber<Sink: TypedStreamJSONSink>(type: UInt8, value: Int, object: Int, into sink: inout Sink) {
        let spelling = ReadableNumber.spelling(of: value, type: type, in: stream)
        var bare = !shared[object]
        // A value the wrapping wraps is never bare: `{"$real": …}` or `{"$integer": …}` alone
        // would read as an object, so it stands in `$number`.
        switch stream.content(of: value) {
        case .double(let bits): if numbers.wraps(Double(bitPattern: bits)) { bare = false }
        case .signed(let integer): if numbers.wraps(PlistInteger(signed: integer)) { bare = false }
        case .unsigned(let integer): if numbers.wraps(PlistInteger(unsigned: integer)) { bare = false }
        default: break
        }
        if case .number(typeIsImplied: false) = spelling { bare = false }
        if !bare {
            writeHead(.number, default: .number, object, into: &sink)
            sink.key(MappingKeys.number)
        }
        switch (spelling, stream.content(of: value)) {
        case (.bool(let truth), _): sink.bool(truth)
        case (_, .signed(let integer)): sink.integer(integer)
        case (_, .unsigned(let integer)): sink.unsigned(integer)
        case (_, .float(let bits)): sink.real(FloatWidening.double(bits))
        case (_, .double(let bits)): sink.real(Double(bitPattern: bits))
        default: sink.null()  // `ReadableNumber.isNumberType` admits no other content.
        }
        guard !bare else { return }
        if case .number(typeIsImplied: false) = spelling {
            sink.key(MappingKeys.type)
            sink.text([type])
        }
        sink.closeObject()
    }
}
