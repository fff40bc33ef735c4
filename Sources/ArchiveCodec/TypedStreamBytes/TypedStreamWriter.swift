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
        try write(stream) { Array($0) }
    }

    /// Writes `stream` and lends its bytes to `body`, in place: a caller that hands them on
    /// in pieces holds them once, not once more as an array.
    static func write<Result>(_ stream: TypedStream, lending body: (UnsafeBufferPointer<UInt8>) throws(CodecError) -> Result) throws(CodecError) -> Result {
        var writing = Writing(stream)
        try writing.run()
        return try writing.output.withBytes(body)
    }
}

private struct Writing {
    let stream: TypedStream
    /// The stream's bytes (`OutputBytes`: written through a pointer, where an array checked
    /// its sharing at every append).
    var output: OutputBytes
    /// Per shared string, and per object-table entry (a slot each for the objects, then the
    /// classes, then the C strings): the number it was written under, or `unwritten` while it
    /// has not been. 32 bits: a number is below the count of the model's strings or entries,
    /// 32-bit indices each; a stream of small objects has an entry per 11 bytes.
    var stringNumbers: [UInt32]
    var entityNumbers: [UInt32]
    var nextString: UInt32 = 0
    var nextEntity: UInt32 = 0
    static let unwritten = UInt32.max
    var walk: TypedStreamWalk

    init(_ stream: TypedStream) {
        self.stream = stream
        walk = TypedStreamWalk(stream)
        stringNumbers = Array(filledWith: Self.unwritten, count: stream.sharedStrings.count)
        entityNumbers = Array(filledWith: Self.unwritten, count: stream.objects.count + stream.classes.count + stream.cStrings.count)
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
            output.append(UInt8(truncatingIfNeeded: value.word))
        case TypeCode.float:
            let real = Float(bitPattern: value.word)
            try writeReal(Double(real), bits: UInt64(value.word), size: 4, form: value.form)
        case TypeCode.double:
            // Kept spelled (`TypedStream.Value`): as read, or as the builder spelled it.
            guard !value.isNil else { return writeInteger(0, form: .byte) }
            copySpelledNumber(at: value.index)
        case TypeCode.byteString:
            guard !value.isNil else { return output.append(StreamTag.null) }
            appendStorage(stream.spelling(ofString: index))
        case TypeCode.cString:
            guard !value.isNil else { return output.append(StreamTag.null) }
            let index = value.index
            if writeReference(stream.objects.count + stream.classes.count + index) { return }
            output.append(StreamTag.new)
            writeSharedString(stream.cStrings[index])
        case TypeCode.atom, TypeCode.selector:
            guard !value.isNil else { return output.append(StreamTag.null) }
            writeSharedString(value.word)
        case TypeCode.classObject:
            guard !value.isNil else { return output.append(StreamTag.null) }
            writeClass(value.index)
        case TypeCode.object:
            guard !value.isNil else { return output.append(StreamTag.null) }
            let index = value.index
            if writeReference(index) { return }
            output.append(StreamTag.new)
            let object = stream.objects[index]
            writeClass(Int(object.classIndex))
            walk.enter(object: index)
        case TypeCode.ignored:
            break
        case TypeCode.arrayOpen where stream.types.isByteArray(value.type):
            guard !value.isNil else { return }  // a salvage's absent slot: no bytes, as before
            appendStorage(value.index..<(value.index + Int(node.count)))
        case TypeCode.arrayOpen, TypeCode.structOpen, TypeCode.pointer:
            walk.enter(childrenOf: index)
        case _ where TypeCode.bitWidth(node.code) == 64:
            guard !value.isNil else { return writeInteger(0, form: .byte) }
            copySpelledNumber(at: value.index)
        default:
            let integer = value.signedWord
            let form = value.form == .canonical ? NumberForm.canonical(integer, short: TypeCode.bitWidth(node.code) == 16) : value.form
            guard form.holds(integer) else { throw CodecError(.invalidDocument, "value \(index): \(integer) cannot be spelled as \(form)") }
            writeInteger(integer, form: form)
        }
    }

    mutating func writeReal(_ real: Double, bits: UInt64, size: Int, form recorded: NumberForm) throws(CodecError) {
        let form = recorded == .canonical ? NumberForm.canonical(real: real) : recorded
        if form == .real {
            output.room(for: NumberSpelling.maximumBytes)
            output.count += NumberSpelling.writeReal(bits: bits, size: size, bigEndian: stream.byteOrder == .big, to: output.end)
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
        if number != Self.unwritten {
            writeNumberedReference(number)
            return true
        }
        entityNumbers[slot] = nextEntity
        nextEntity += 1
        return false
    }

    mutating func writeSharedString(_ index: UInt32) {
        let number = stringNumbers[Int(index)]
        if number != Self.unwritten { return writeNumberedReference(number) }
        stringNumbers[Int(index)] = nextString
        nextString += 1
        let span = stream.sharedStrings[Int(index)]
        output.append(StreamTag.new)
        writeInteger(Int64(span.count), form: NumberForm.canonical(Int64(span.count)))
        appendStorage(span.range)
    }

    /// A reference to the string or entry numbered `number`.
    @inline(__always)
    mutating func writeNumberedReference(_ number: UInt32) {
        let reference = Int64(number) + StreamTag.firstReference
        writeInteger(reference, form: NumberForm.canonical(reference))
    }

    /// The `q Q d` spelling at `offset` of the storage (a tag and up to 8 bytes), copied with
    /// a store or two rather than a call to copy a few bytes.
    @inline(__always)
    mutating func copySpelledNumber(at offset: Int) {
        output.room(for: NumberSpelling.maximumBytes)
        let out = output.end
        let count = stream.storage.withUnsafeBufferPointer { storage in
            let at = storage.baseAddress! + offset
            out[0] = at[0]
            let count = NumberSpelling.count(at: at)
            let from = UnsafeRawPointer(at + 1)
            let to = UnsafeMutableRawPointer(out + 1)
            switch count {
            case 3: to.storeBytes(of: from.loadUnaligned(as: UInt16.self), as: UInt16.self)
            case 5: to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            case 9: to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            default: break
            }
            return count
        }
        output.count += count
    }

    /// Bytes `range` of the stream's storage, as they are.
    mutating func appendStorage(_ range: Range<Int>) {
        stream.storage.withUnsafeBufferPointer { output.append(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// `value` in `form`, an integer spelling that holds it (`NumberSpelling`).
    mutating func writeInteger(_ value: Int64, form: NumberForm) {
        output.room(for: NumberSpelling.maximumBytes)
        output.count += NumberSpelling.writeInteger(value, form: form, bigEndian: stream.byteOrder == .big, to: output.end)
    }
}
