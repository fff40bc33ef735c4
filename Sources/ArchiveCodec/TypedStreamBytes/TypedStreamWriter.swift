/// Writes a `TypedStream` as bytes: a stream read by `TypedStreamReader` comes back byte for
/// byte; a model built by hand comes out as Apple's writer would spell it.
///
/// The writer walks the model in stream order (`TypedStreamWalk`: no recursion, however deep
/// the objects nest) and numbers the shared strings and the object table as Apple's writer
/// does: a string, object, class or C string is written in full where it first occurs and as
/// a reference everywhere after. Integers and reals take the spelling their value records
/// (`TypedStream.Value.form`), else Apple's (`NumberForm.canonical`).
///
/// The model must be one `TypedStreamBuilder` finished (the reader builds with one too); a
/// value spelled in a form that cannot hold it is refused (`.invalidDocument`).
enum TypedStreamWriter {
    static func write(_ stream: TypedStream) throws(CodecError) -> [UInt8] {
        var writing = Writing(stream)
        try writing.run()
        return writing.output.withBytes { Array($0) }
    }
}

private struct Writing {
    let stream: TypedStream
    /// The stream's bytes (`OutputBytes`: written through a pointer, where an array checked
    /// its sharing at every append).
    var output: OutputBytes
    /// Per shared string, and per object-table entry (a slot each for the objects, then the
    /// classes, then the C strings): the number it was written under, or -1 while it has not
    /// been.
    var stringNumbers: [Int64]
    var entityNumbers: [Int64]
    var nextString: Int64 = 0
    var nextEntity: Int64 = 0
    var walk: TypedStreamWalk

    init(_ stream: TypedStream) {
        self.stream = stream
        walk = TypedStreamWalk(stream)
        stringNumbers = Array(filledWith: -1, count: stream.sharedStrings.count)
        entityNumbers = Array(filledWith: -1, count: stream.objects.count + stream.classes.count + stream.cStrings.count)
        // Strings are written as often as they are referenced; most streams are this size.
        output = OutputBytes(capacity: stream.storage.count + 64)
    }

    mutating func run() throws(CodecError) {
        output.append(TypedStreamHeader.streamerVersion)
        let signature = stream.byteOrder.signature
        output.append(UInt8(signature.count))
        signature.withUnsafeBufferPointer { output.append($0) }
        writeInteger(stream.systemVersion, form: NumberForm.canonical(stream.systemVersion))
        var trips = 0
        while let step = walk.next() {
            trips &+= 1
            try ConversionDeadline.poll(trips)
            switch step {
            case .group(let index, _): writeSharedString(stream.string(ofGroup: index))
            case .value(let index): try writeValue(index)
            case .endOfObject: output.append(StreamTag.endOfObject)
            case .endOfGroup, .endOfComposite: break
            }
        }
    }

    mutating func writeValue(_ index: Int) throws(CodecError) {
        let value = stream.values[index]
        let node = stream.types[value.type]
        switch node.code {
        case TypeCode.char, TypeCode.unsignedChar, TypeCode.bool:
            output.append(UInt8(truncatingIfNeeded: value.payload))
        case TypeCode.float:
            let real = Float(bitPattern: UInt32(truncatingIfNeeded: value.payload))
            try writeReal(Double(real), bits: value.payload, size: 4, form: value.form)
        case TypeCode.double:
            try writeReal(Double(bitPattern: value.payload), bits: value.payload, size: 8, form: value.form)
        case TypeCode.byteString:
            guard !value.isNil else { return output.append(StreamTag.null) }
            let span = TypedStream.Span(packed: value.payload)
            writeInteger(Int64(span.count), form: NumberForm.canonical(Int64(span.count)))
            appendStorage(span.range)
        case TypeCode.cString:
            guard !value.isNil else { return output.append(StreamTag.null) }
            let index = Int(value.payload)
            if writeReference(stream.objects.count + stream.classes.count + index) { return }
            output.append(StreamTag.new)
            writeSharedString(stream.cStrings[index])
        case TypeCode.atom, TypeCode.selector:
            guard !value.isNil else { return output.append(StreamTag.null) }
            writeSharedString(UInt32(value.payload))
        case TypeCode.classObject:
            guard !value.isNil else { return output.append(StreamTag.null) }
            writeClass(Int(value.payload))
        case TypeCode.object:
            guard !value.isNil else { return output.append(StreamTag.null) }
            let index = Int(value.payload)
            if writeReference(index) { return }
            output.append(StreamTag.new)
            let object = stream.objects[index]
            writeClass(Int(object.classIndex))
            walk.enter(object: index)
        case TypeCode.ignored:
            break
        case TypeCode.arrayOpen where stream.types.isByteArray(value.type):
            appendStorage(TypedStream.Span(packed: value.payload).range)
        case TypeCode.arrayOpen, TypeCode.structOpen, TypeCode.pointer:
            walk.enter(childrenOf: index)
        default:
            let integer = Int64(bitPattern: value.payload)
            let form = value.form == .canonical ? NumberForm.canonical(integer, short: TypeCode.bitWidth(node.code) == 16) : value.form
            guard form.holds(integer) else { throw CodecError(.invalidDocument, "value \(index): \(integer) cannot be spelled as \(form)") }
            writeInteger(integer, form: form)
        }
    }

    mutating func writeReal(_ real: Double, bits: UInt64, size: Int, form recorded: NumberForm) throws(CodecError) {
        let form = recorded == .canonical ? NumberForm.canonical(real: real) : recorded
        if form == .real {
            output.append(StreamTag.real)
            appendFixed(bits, size: size)
            return
        }
        guard real.rounded(.towardZero) == real, !(real == 0 && real.sign == .minus), let whole = Int64(exactly: real), form.holds(whole) else {
            throw CodecError(.invalidDocument, "real \(real) cannot be spelled as the integer form \(form)")
        }
        writeInteger(whole, form: form)
    }

    /// A class and the superclasses after it up to nil or one written before.
    mutating func writeClass(_ index: Int) {
        var index = index
        while !writeReference(stream.objects.count + index) {
            let entry = stream.classes[index]
            output.append(StreamTag.new)
            writeSharedString(entry.name)
            writeInteger(entry.version, form: NumberForm.canonical(entry.version))
            guard let superclass = entry.superclass else { return output.append(StreamTag.null) }
            index = Int(superclass)
        }
    }

    /// Writes the reference to object-table entry `slot` if it was written before and returns
    /// true; or numbers the entry now and returns false (the caller writes it in full).
    mutating func writeReference(_ slot: Int) -> Bool {
        let number = entityNumbers[slot]
        if number >= 0 {
            writeInteger(number + StreamTag.firstReference, form: NumberForm.canonical(number + StreamTag.firstReference))
            return true
        }
        entityNumbers[slot] = nextEntity
        nextEntity += 1
        return false
    }

    mutating func writeSharedString(_ index: UInt32) {
        let number = stringNumbers[Int(index)]
        if number >= 0 { return writeInteger(number + StreamTag.firstReference, form: NumberForm.canonical(number + StreamTag.firstReference)) }
        stringNumbers[Int(index)] = nextString
        nextString += 1
        let span = stream.sharedStrings[Int(index)]
        output.append(StreamTag.new)
        writeInteger(Int64(span.count), form: NumberForm.canonical(Int64(span.count)))
        appendStorage(span.range)
    }

    /// Bytes `range` of the stream's storage, as they are.
    mutating func appendStorage(_ range: Range<Int>) {
        stream.storage.withUnsafeBufferPointer { output.append(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// `value` in `form`, an integer spelling that holds it.
    mutating func writeInteger(_ value: Int64, form: NumberForm) {
        switch form {
        case .int16:
            output.append(StreamTag.int16)
            appendFixed(UInt64(UInt16(truncatingIfNeeded: value)), size: 2)
        case .int32:
            output.append(StreamTag.int32)
            appendFixed(UInt64(UInt32(truncatingIfNeeded: value)), size: 4)
        case .int64:
            output.append(StreamTag.int64)
            appendFixed(UInt64(bitPattern: value), size: 8)
        default:
            output.append(UInt8(truncatingIfNeeded: value))
        }
    }

    /// The low `size` bytes (1 to 8) of `bits` in the stream's byte order, appended at once: the
    /// word is laid out in that order (in big-endian, shifted so that its low `size` bytes come
    /// first) and its first `size` bytes copied.
    mutating func appendFixed(_ bits: UInt64, size: Int) {
        let word = stream.byteOrder == .big ? (bits << UInt64(64 - 8 * size)).bigEndian : bits.littleEndian
        // All eight bytes are stored, `size` of them kept: one store, no copy of a length.
        output.room(for: 8)
        UnsafeMutableRawPointer(output.end).storeBytes(of: word, as: UInt64.self)
        output.count += size
    }
}
