/// Reads a typedstream into a `TypedStream` that `TypedStreamWriter` writes back to the same
/// bytes.
///
/// What is accepted is what Apple's writers wrote: streamer version 4, either byte order, the
/// system versions NeXT and Apple used, the tags and type codes of `StreamTag` and `TypeCode`.
/// Anything else is a `CodecError` (`.malformedTypedStream`, or `.limitExceeded` for a stream
/// past a limit) with the offset where the stream went wrong, never a trap:
/// - every length and count is checked against the bytes left before anything is reserved
///   for it, and the model holds at most `valueLimit(forSize:)` values, so a hostile stream
///   cannot make the reader allocate much more than its own size;
/// - nothing recurses: objects inside objects, structs inside structs are open frames on the
///   builder's stack, and the reader loops;
/// - a reference must point at an entry of the kind its place wants (an `@` at an object, a
///   `#` at a class, a `*` at a C string), and a class chain may not refer back into itself.
///
/// Where Apple's writer could spell a value more than one way (a whole float as an integer or
/// as a real, an integer longer than it needs), the value records the spelling
/// (`TypedStream.Value.form`); structural integers (`TypedStreamCursor`) spelled otherwise
/// than Apple's writer spells them are refused.
enum TypedStreamReader {
    /// The most values a stream of `size` bytes may hold. Every value takes a byte of the
    /// stream but `!`, an empty struct and a composite's own record; a stream asking for more
    /// than four values a byte repeats those through a shared type string, which no writer
    /// does, and would make the model many times its input. (The builder also holds any model
    /// to `TypedStreamBuilder.maximumValues`.)
    static func valueLimit(forSize size: Int) -> Int { 4 * size + 1024 }

    /// `salvaging`: a stream that goes wrong after its header is read up to where it does
    /// (`TypedStream.Break`, in the model's `broken`) rather than refused. What is refused
    /// still is what is no damage of the bytes read so far: a header that cannot be read
    /// (nothing can be), a limit (`.limitExceeded`), the deadline.
    static func read(_ bytes: [UInt8], salvaging: Bool = false) throws(CodecError) -> TypedStream {
        guard bytes.count < Int(UInt32.max) else {
            throw CodecError(.limitExceeded, "typedstream larger than 4 GiB", found: bytes.count, limit: Int(UInt32.max) - 1)
        }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> TypedStream in
            var reading = try Reading(buffer, storage: bytes)
            // One call of `run`, which its readers are inlined into; any other error goes on.
            do throws(CodecError) {
                try reading.run()
            } catch let error where salvaging && error.kind == .malformedTypedStream {
                try reading.closeAtBreak(error, inputSize: bytes.count)
            }
            return try reading.builder.finish()
        }
    }
}

/// One read in progress: the cursor, the model being built, and the stream's object table.
private struct Reading {
    var cursor: TypedStreamCursor
    var builder: TypedStreamBuilder
    /// The stream's object table: objects, classes and C strings numbered together in order.
    var objectTable = TypedStreamObjectTable()
    /// Whether an object's class is being read: the object is numbered, not yet begun (a
    /// salvage that stops there counts it as open for the depth, as if begun: `closeAtBreak`).
    var classless = false

    /// Numbers a new object, class or C string, `index` in its own table
    /// (`TypedStreamObjectTable.limit`: past it the stream is refused as over a limit, not as
    /// malformed).
    @inline(__always)
    mutating func number(_ kind: TypedStreamObjectTable.Kind, index: UInt32, at start: Int) throws(CodecError) {
        let limit = TypedStreamObjectTable.limit
        guard objectTable.count < limit else {
            throw CodecError(.limitExceeded, "a typedstream numbering more than \(limit) objects, classes and C strings", byteOffset: start, limit: limit)
        }
        let numbered = objectTable.append(kind)
        assert(numbered == index, "the object table numbers each kind as its table grows")
    }

    /// Reads the header.
    init(_ buffer: UnsafeBufferPointer<UInt8>, storage: [UInt8]) throws(CodecError) {
        var cursor = TypedStreamCursor(buffer)
        let version = try cursor.byte("the streamer version")
        guard version == TypedStreamHeader.streamerVersion else {
            let known = version == 3 ? "streamer version 3 (early NeXTSTEP) is not supported" : "streamer version \(version) is none Apple wrote"
            throw cursor.fail("not a typedstream that can be read: \(known); \(TypedStreamHeader.streamerVersion) expected", at: 0)
        }
        let signatureLength = try cursor.byte("the signature's length")
        let signatureStart = try cursor.skip(Int(signatureLength), of: "the signature", startedAt: 1)
        let signature = buffer[signatureStart..<cursor.position]
        let order: TypedStream.ByteOrder
        switch signature {
        case _ where signature.elementsEqual(TypedStreamHeader.littleEndianSignature): order = .little
        case _ where signature.elementsEqual(TypedStreamHeader.bigEndianSignature): order = .big
        default: throw cursor.fail("not a typedstream: the signature is neither \"streamtyped\" nor \"typedstream\"", at: 1)
        }
        cursor.bigEndian = order == .big
        let systemStart = cursor.position
        let system = try cursor.structuralInteger(head: try cursor.byte("the system version"), at: systemStart, "the system version")
        guard TypedStreamHeader.knownSystemVersions.contains(system) else {
            throw cursor.fail("system version \(system) is none Apple or NeXT wrote (\(TypedStreamHeader.knownSystemVersions.sorted()))", at: systemStart)
        }
        self.cursor = cursor
        builder = TypedStreamBuilder(byteOrder: order, systemVersion: system, storage: storage, valueLimit: TypedStreamReader.valueLimit(forSize: buffer.count))
        objectTable.reserveCapacity(Swift.min(buffer.count / 4, SmallDocument.things))
    }

    /// A trip per value, group start and object end. A value's slot is asked for first, as
    /// most trips read one; whatever a value or an object's end fills is closed at once, so a
    /// trip never finds a full group or composite open.
    mutating func run() throws(CodecError) {
        var trips = 0
        while true {
            trips &+= 1
            try ConversionDeadline.poll(trips)
            if let type = builder.expectedType {
                try readValue(type)
                while builder.closeIfFull() {}
                continue
            }
            switch builder.innermost {
            case .stream:
                if cursor.isAtEnd { return }
                try readGroupStart()
            case .object:
                let start = cursor.position
                if try cursor.peek("the next group or the end of an object (0x86)") == StreamTag.endOfObject {
                    cursor.position += 1
                    try builder.endObject(at: start)
                    while builder.closeIfFull() {}
                } else {
                    try readGroupStart()
                }
            case .group, .composite:
                try builder.close(at: cursor.position)
            }
        }
    }

    mutating func readGroupStart() throws(CodecError) {
        let start = cursor.position
        let head = try cursor.byte("a type string")
        let string = try sharedString(head: head, at: start, "a type string")
        try builder.beginGroup(string: string!, at: start, bytesLeft: cursor.remaining)
    }

    /// Inlined into `run`, its one caller: a call per value cost more than its work for most.
    @inline(__always)
    mutating func readValue(_ type: UInt32) throws(CodecError) {
        let start = cursor.position
        let node = builder.stream.types[type]
        let code = node.code
        switch code {
        case TypeCode.char:
            builder.place(TypedStream.Value(type: type, word: UInt32(bitPattern: Int32(Int8(bitPattern: try cursor.byte("a 'c'"))))))
        case TypeCode.unsignedChar, TypeCode.bool:
            builder.place(TypedStream.Value(type: type, word: UInt32(try cursor.byte("a '\(TypeTable.character(code))'"))))
        case TypeCode.float, TypeCode.double:
            try readReal(type, isDouble: code == TypeCode.double, at: start)
        case TypeCode.byteString:
            let head = try cursor.byte("a '+' string")
            if head == StreamTag.null { return builder.place(TypedStream.Value(type: type, isNil: true)) }
            let count = try cursor.length(head: head, at: start, of: "a '+' string")
            _ = try cursor.skip(count, of: "a '+' string", startedAt: start)
            // The value is its spelling: the length's head is at `start` (`Value.word`).
            builder.place(TypedStream.Value(type: type, word: UInt32(start)))
        case TypeCode.cString:
            let head = try cursor.byte("a '*' string")
            let index: UInt32?
            switch head {
            case StreamTag.null: index = nil
            case StreamTag.new:
                let textStart = cursor.position
                let text = try sharedString(head: try cursor.byte("a C string's text"), at: textStart, "a C string's text")!
                index = builder.appendCString(text)
                try number(.cString, index: index!, at: start)
            default: index = try tableEntry(head: head, at: start, .cString)
            }
            builder.place(TypedStream.Value(type: type, isNil: index == nil, word: index ?? 0))
        case TypeCode.object:
            try readObject(type, at: start)
        default:
            if TypeCode.bitWidth(code) != 0 {
                try readInteger(type, code: code, at: start)
            } else {
                try readOtherValue(type, node: node, at: start)
            }
        }
    }

    /// `readValue` for the codes few values have: atoms, selectors, classes, `!`, arrays,
    /// structs and pointers. Apart, so that `readValue` keeps a small frame.
    mutating func readOtherValue(_ type: UInt32, node: TypeTable.Node, at start: Int) throws(CodecError) {
        let code = node.code
        switch code {
        case TypeCode.atom, TypeCode.selector:
            let head = try cursor.byte("a shared string")
            let index = try sharedString(head: head, at: start, code == TypeCode.atom ? "an atom" : "a selector", nilAllowed: true)
            builder.place(TypedStream.Value(type: type, isNil: index == nil, word: index ?? 0))
        case TypeCode.classObject:
            let index = try readClass(head: try cursor.byte("a class"), at: start, nilAllowed: true)
            builder.place(TypedStream.Value(type: type, isNil: index == nil, word: index ?? 0))
        case TypeCode.ignored:
            builder.place(TypedStream.Value(type: type))
        case TypeCode.arrayOpen:
            if builder.stream.types.isByteArray(type) {
                let first = try cursor.skip(Int(node.count), of: "an array of \(node.count) bytes", startedAt: start)
                builder.place(TypedStream.Value(type: type, word: UInt32(first)))
                return
            }
            let needed = UInt64(node.count) * UInt64(builder.stream.types[TypeTable.firstChild(of: type)].minimumBytes)
            guard needed <= UInt64(cursor.remaining) else {
                throw cursor.fail("an array of \(node.count) values needs at least \(needed) bytes, \(cursor.remaining) left", at: start)
            }
            try builder.openComposite(at: start, bytesLeft: cursor.remaining)
        default:
            // A struct or a pointer: its children follow.
            try builder.openComposite(at: start, bytesLeft: cursor.remaining)
        }
    }

    /// Inlined into `readValue`, as integers are most values.
    @inline(__always)
    mutating func readInteger(_ type: UInt32, code: UInt8, at start: Int) throws(CodecError) {
        let (value, form) = try cursor.compactInteger(head: try cursor.byte("an integer"), at: start, "an integer")
        let width = TypeCode.bitWidth(code)
        guard width == 64 || (value >> Int64(width - 1) == 0 || value >> Int64(width - 1) == -1) else {
            throw cursor.fail("\(value) does not fit the \(width)-bit type '\(TypeTable.character(code))'", at: start)
        }
        let canonical = NumberForm.canonical(value, short: width == 16)
        // A 64-bit integer is its spelling at `start`; a narrower one's bits fit the word.
        let word = width == 64 ? UInt32(start) : UInt32(truncatingIfNeeded: value)
        builder.place(TypedStream.Value(type: type, form: form == canonical ? .canonical : form, word: word))
    }

    mutating func readReal(_ type: UInt32, isDouble: Bool, at start: Int) throws(CodecError) {
        let head = try cursor.byte("a real")
        let bits: UInt64
        let real: Double
        let form: NumberForm
        if head == StreamTag.real {
            if isDouble {
                bits = try cursor.fixed(UInt64.self, of: "a double", startedAt: start)
                real = Double(bitPattern: bits)
            } else {
                let single = try cursor.fixed(UInt32.self, of: "a float", startedAt: start)
                (bits, real) = (UInt64(single), Double(Float(bitPattern: single)))
            }
            form = .real
        } else {
            // A whole real stored as an integer, which must be exactly that real.
            let (value, integerForm) = try cursor.compactInteger(head: head, at: start, "a real")
            if isDouble {
                guard let exact = Double(exactly: value) else { throw cursor.fail("integer \(value) stored for a double is not exactly a double", at: start) }
                (bits, real) = (exact.bitPattern, exact)
            } else {
                guard let exact = Float(exactly: value) else { throw cursor.fail("integer \(value) stored for a float is not exactly a float", at: start) }
                (bits, real) = (UInt64(exact.bitPattern), Double(exact))
            }
            form = integerForm
        }
        // A double is its spelling at `start`; a float's bits fit the word.
        let word = isDouble ? UInt32(start) : UInt32(truncatingIfNeeded: bits)
        builder.place(TypedStream.Value(type: type, form: form == NumberForm.canonical(real: real) ? .canonical : form, word: word))
    }

    mutating func readObject(_ type: UInt32, at start: Int) throws(CodecError) {
        let head = try cursor.byte("an object")
        switch head {
        case StreamTag.null:
            builder.place(TypedStream.Value(type: type, isNil: true))
        case StreamTag.new:
            // The object is numbered before its class, as NeXT's reader numbers it, and begun
            // once its class is read (so with its class, not set after).
            try number(.object, index: UInt32(builder.stream.objects.count), at: start)
            classless = true
            let classStart = cursor.position
            let classIndex = try readClass(head: try cursor.byte("an object's class"), at: classStart, nilAllowed: false)!
            classless = false
            _ = try builder.beginObject(classIndex: classIndex, at: start)
        default:
            let index = try tableEntry(head: head, at: start, .object)
            builder.place(TypedStream.Value(type: type, word: index))
        }
    }

    /// A class: nil, a reference, or new classes each followed by its superclass, up to nil
    /// or a reference to a class from before this chain.
    mutating func readClass(head: UInt8, at start: Int, nilAllowed: Bool) throws(CodecError) -> UInt32? {
        switch head {
        case StreamTag.null:
            guard nilAllowed else { throw cursor.fail("an object whose class is nil", at: start) }
            return nil
        case StreamTag.new:
            let chainStart = UInt32(builder.stream.classes.count)
            var last: UInt32?
            var head = head
            var headStart = start
            while head == StreamTag.new {
                let nameStart = cursor.position
                let name = try sharedString(head: try cursor.byte("a class name"), at: nameStart, "a class name")!
                let versionStart = cursor.position
                let version = try cursor.structuralInteger(head: try cursor.byte("a class version"), at: versionStart, "a class version")
                let index = builder.appendClass(name: name, version: version)
                try number(.classObject, index: index, at: nameStart)
                if let last { builder.setSuperclass(of: last, to: index) }
                last = index
                headStart = cursor.position
                head = try cursor.byte("a superclass")
            }
            if head != StreamTag.null {
                let superclass = try tableEntry(head: head, at: headStart, .classObject)
                guard superclass < chainStart else { throw cursor.fail("a class chain whose superclass refers back into the chain", at: headStart) }
                builder.setSuperclass(of: last!, to: superclass)
            }
            return chainStart
        default:
            return try tableEntry(head: head, at: start, .classObject)
        }
    }

    /// A shared string whose first byte `head` was read at `start`: nil (where allowed), a
    /// new one, or a reference to one before. Inlined, as a group's type string is one.
    @inline(__always)
    mutating func sharedString(head: UInt8, at start: Int, _ what: @autoclosure () -> String, nilAllowed: Bool = false) throws(CodecError) -> UInt32? {
        switch head {
        case StreamTag.null:
            guard nilAllowed else { throw cursor.fail("nil where \(what()) was expected", at: start) }
            return nil
        case StreamTag.new:
            let lengthStart = cursor.position
            let lengthHead = try cursor.byte("the length of \(what())")
            guard lengthHead != StreamTag.null else { throw cursor.fail("a new shared string that is nil, for \(what())", at: lengthStart) }
            let count = try cursor.length(head: lengthHead, at: lengthStart, of: what())
            let first = try cursor.skip(count, of: what(), startedAt: lengthStart)
            return builder.appendSharedString(TypedStream.Span(start: UInt32(first), count: UInt32(count)))
        default:
            return UInt32(try cursor.reference(head: head, at: start, into: builder.stream.sharedStrings.count, of: "the shared strings, for \(what())"))
        }
    }

    /// The index (in its own table) of the object, class or C string a reference points at.
    @inline(__always)
    mutating func tableEntry(head: UInt8, at start: Int, _ kind: TypedStreamObjectTable.Kind) throws(CodecError) -> UInt32 {
        let number = try cursor.reference(head: head, at: start, into: objectTable.count, of: "the object table, for \(kind.name)")
        let entity = objectTable.entry(number)
        guard entity.kind == kind else { throw cursor.fail("a reference to \(entity.kind.name) (entry \(number)) where \(kind.name) was expected", at: start) }
        return entity.index
    }
}

extension Reading {
    /// Closes what is open where `error` stopped the read, as `TypedStream.Break` says: the
    /// mark at the slot being read (or after the groups of the innermost object or of the
    /// stream, where a group or an object's end was being read), nil values in the slots left
    /// after it, every open object ended. Linear in what is open: each slot is filled once.
    mutating func closeAtBreak(_ error: CodecError, inputSize: Int) throws(CodecError) {
        if classless {
            builder.noteObjectNotBegun()
            classless = false
        }
        let offset = min(error.byteOffset ?? cursor.position, inputSize)
        var place = TypedStream.Break.Place.endOfStream
        if let type = builder.expectedType {
            place = .value(builder.nextSlot)
            builder.place(TypedStream.Value(type: type, isNil: true))
        } else if let object = builder.innermostObject {
            place = .endOfObject(object)
        }
        var absentValues: Set<UInt32> = []
        var openObjects: Set<UInt32> = []
        while true {
            switch builder.innermost {
            case .stream:
                let rest = TypedStream.Span(start: UInt32(offset), count: UInt32(inputSize - offset))
                builder.recordBreak(
                    TypedStream.Break(offset: offset, reason: error.message, rest: rest, place: place, absentValues: absentValues, openObjects: openObjects))
                return
            case .object:
                openObjects.insert(builder.innermostObject!)
                try builder.endObject()
            case .group, .composite:
                while let type = builder.expectedType {
                    absentValues.insert(builder.nextSlot)
                    builder.place(TypedStream.Value(type: type, isNil: true))
                }
                try builder.close()
            }
        }
    }
}
