/// JSON → typedstream bytes: reads the document `TypedStreamJSONWriter` writes (docs/mapping.md,
/// "typedstream") into a `TypedStreamBuilder`, which checks every value against the type its
/// place asks for, then writes the stream. Walks the document with an explicit stack, so any
/// depth the parser accepts encodes on any stack.
///
/// An `@` value is null, `{"$ref": n}`, a generic body or a readable form; a readable form is
/// lowered to the builder calls it stands for (`ReadableFormLowering`) and run as a frame of
/// its own, its nested values read in their turn.
///
/// A class chain names its classes by name and version; equal chains are one class. An object
/// is made where its body stands (`$id` names it for the `{"$ref": n}` after it); a C string
/// of the same text as one before is a reference to it, as the stream's object table shares it.
///
/// Hostile documents. Nothing a document declares (an array type's count, a chain's length)
/// sizes memory before it is checked against what the document holds: a struct's or array's
/// JSON values are counted before the builder reserves their slots, and the builder holds at
/// most `valueLimit(for:)` values. The encoder accepts only what the reader reads back
/// (`checkReadable`): a system version Apple wrote, a stream no denser in values than the
/// reader allows, and a document the decoder's output bound admits.
struct TypedStreamJSONEncoder {
    typealias Value = JSONDocument.Value

    let document: JSONDocument
    private var builder: TypedStreamBuilder
    /// Per class defined: its name (a shared string), version and superclass (-1: none), so a
    /// chain is found link by link from its root, in time linear in the chain. Found through
    /// `classTable` by a hash of the three, seeded as the shared strings' are (no input can make
    /// them collide), where a `Dictionary` ran each link's key through `Hasher` twice.
    private var classKeys: [(key: ClassKey, index: Int)] = []
    private var classTable = ByteStringTable()
    private var objects: [Int64: Int] = [:]
    /// Per shared string: the C string of its text + 1, 0 when none was made (`placeCString`).
    private var cStringOfString: [UInt32] = []
    /// Per distinct spelling of a class chain in the document's text (`[["Note", 2],
    /// ["NSObject", 0]]`), an entry of `chainSpellings`: every object's body spells its whole
    /// chain, which is then read link by link once per spelling, not once per object. A table
    /// of the document's own bytes, so a lookup allocates nothing.
    private var chainsBySpelling = ByteStringTable()
    private var chainSpellings: [(text: Range<Int>, classIndex: Int)] = []
    /// The builder calls of the readable forms open at once, outermost first: each `.steps`
    /// frame runs its own run of them, which the frames above it follow. A run is dropped when
    /// its frame ends (frames end innermost first), so the list holds what the open forms
    /// still have to do, and no form makes a list of its own.
    private var pendingSteps = ReadableSteps.reserved()
    /// The shared strings of the literal type strings the steps name (`.literalGroup`).
    private var literalStrings = LiteralStringCache()
    /// The class of each readable form's chain once defined, by the readable class's raw
    /// value (−1: not yet): a table of a few entries, where a dictionary hashed the class at
    /// every readable object.
    private var readableClasses = [Int](filledWith: -1, count: ReadableClass.caseCount)

    private struct ClassKey: Equatable {
        var name: UInt32
        var version: Int64
        var superclass: Int

        /// The three as three words, hashed as bytes (`ByteStringTable.hash`).
        var hash: UInt64 {
            var words = (UInt64(name), UInt64(bitPattern: version), UInt64(bitPattern: Int64(superclass)))
            return withUnsafeBytes(of: &words) { raw in raw.withMemoryRebound(to: UInt8.self) { ByteStringTable.hash($0) } }
        }
    }

    /// What is being read, innermost last: a list of groups (the stream's, an object's) or of
    /// values (a group's, a composite's; `builder.end()` closes it). Lists are read in place
    /// through the document's cursors: no array of their values is made.
    private enum Frame {
        case groups(JSONDocument.Cursor, object: Bool)
        case values(ValueRun)
        /// A readable form's builder calls (`ReadableBuildStep`), `pendingSteps` from `start`
        /// (where the list stood when they were appended) to `end`, the one at `next` to run next.
        case steps(start: ReadableSteps.Mark, next: Int, end: Int)
        /// A readable container's entries (`pendingSteps.entries[index]`), lowered one at a time.
        case entries(index: Int, next: Int)
    }

    /// Values read one at a time: an array's elements through its cursor, or one value alone (a
    /// group of one type, a pointer's pointee).
    private struct ValueRun {
        var cursor = JSONDocument.Cursor.none
        var single: Value?

        @inline(__always)
        mutating func next(in document: JSONDocument) -> Value? {
            if let value = single {
                single = nil
                return value
            }
            return document.nextElement(&cursor)
        }
    }

    /// The bytes of the stream `document` describes; `root` is its `{"$typedstream": …}` object.
    static func encode(_ document: JSONDocument, root: Value) throws(CodecError) -> [UInt8] {
        try write(build(document, root: root), documentSize: document.source.count) { Array($0) }
    }

    /// `encode(_:root:)` for a caller that gives the document up, the bytes lent to `body` in
    /// place (`TypedStreamWriter.write(_:lending:)`): the document is let go once the
    /// model is built, before the stream is written (the JSON's index is most of what an encode
    /// holds beside its model and its stream). An `.invalidDocument` refusal of the build is
    /// made the document's `$broken` mark's here (`JSONDocument.brokenMarkRefusal`); the
    /// writer's own refusals need not be, as a mark stands where no stream's value can and is
    /// refused while the model is built.
    static func encode<Result>(
        releasing document: consuming JSONDocument, root: Value, lending body: (UnsafeBufferPointer<UInt8>) throws(CodecError) -> Result
    ) throws(CodecError) -> Result {
        let documentSize = document.source.count
        let stream: TypedStream
        do {
            stream = try build(document, root: root)
        } catch let error where error.kind == .invalidDocument {
            throw document.brokenMarkRefusal() ?? error
        }
        _ = consume document
        return try write(stream, documentSize: documentSize, lending: body)
    }

    /// The model of the stream `document` describes.
    private static func build(_ document: JSONDocument, root: Value) throws(CodecError) -> TypedStream {
        var byteOrder = TypedStream.ByteOrder.little
        var systemVersion = TypedStreamHeader.currentSystemVersion
        var groups: Value?
        for (key, value) in document.members(of: root) {
            if document.stringEquals(key, MappingKeys.typedStream) {
                guard document.kind(value) == .array else { throw document.invalid("$typedstream holds an array of groups", at: value) }
                groups = value
            } else if document.stringEquals(key, MappingKeys.byteOrder) {
                guard document.kind(value) == .string, document.stringValue(value) == "big" || document.stringValue(value) == "little" else {
                    throw document.invalid("$byteOrder is \"big\" or \"little\"", at: value)
                }
                byteOrder = document.stringValue(value) == "big" ? .big : .little
            } else if document.stringEquals(key, MappingKeys.systemVersion) {
                guard document.kind(value) == .number, case .signed(let version) = document.number(value), TypedStreamHeader.knownSystemVersions.contains(version) else {
                    throw document.invalid("$systemVersion is one Apple or NeXT wrote (\(TypedStreamHeader.knownSystemVersions.sorted())), as the reader reads no other", at: value)
                }
                systemVersion = version
            } else {
                throw document.invalid("a typedstream document has $typedstream, $byteOrder and $systemVersion only", at: key)
            }
        }
        guard let groups else { throw document.invalid("no $typedstream", at: root) }
        // About a value of the stream per JSON value; the strings' bytes are at most the
        // document's (a `q` or `d` value's spelling, up to 9 bytes, can pass its text: the
        // storage then grows once).
        let builder = TypedStreamBuilder(
            byteOrder: byteOrder, systemVersion: systemVersion, valueLimit: valueLimit(for: document), reserving: document.valueCount,
            storageBytes: document.source.count)
        var encoder = TypedStreamJSONEncoder(document: document, builder: builder)
        try encoder.encodeGroups(document.children(of: groups))
        return try encoder.builder.finish()
    }

    /// Writes `stream`, built from a document of `documentSize` bytes, and lends its bytes to
    /// `body` once they pass `checkReadable`.
    private static func write<Result>(
        _ stream: TypedStream, documentSize: Int, lending body: (UnsafeBufferPointer<UInt8>) throws(CodecError) -> Result
    ) throws(CodecError) -> Result {
        try TypedStreamWriter.write(stream) { (bytes) throws(CodecError) -> Result in
            try checkReadable(stream, byteCount: bytes.count, documentSize: documentSize)
            return try body(bytes)
        }
    }

    /// The most values a stream built from `document` can hold: five per JSON value, and one
    /// per byte of its text.
    ///
    /// Each value of the stream is placed for a JSON value of the document, with two
    /// exceptions. A readable form lowers one JSON value to several: the most is a
    /// dictionary's entry, whose key (no JSON value: keys are not counted) is an NSString
    /// object and its `+` string, and whose value, a bare number, an NSNumber object, its `*`
    /// type and its number: five values for one JSON value (every other form places fewer per
    /// JSON value it reads). And a pointer (`^`) takes its pointee's JSON value, a group its
    /// type string's slots before its values are counted: both are at most the type string's
    /// length, text of the document. So a builder held to this bound never reserves more than
    /// the document stands for, whatever counts its type strings declare.
    static func valueLimit(for document: JSONDocument) -> Int {
        5 * document.valueCount + document.source.count
    }

    /// Refuses a stream the decoder would not read back: denser in values than a stream of its
    /// size may be (`TypedStreamReader.valueLimit(forSize:)`: `!` values and empty structs
    /// repeated through one type string take no bytes), 4 GiB or larger, or whose JSON would
    /// pass the decoder's output bound (`KeyedArchive.maximumOutputSize(forInputSize:)`: long
    /// type strings and C strings repeat by reference). The JSON the decoder writes is about
    /// the document's size (the readable forms, no whitespace; a number may gain a few bytes,
    /// `1` for a double reads back as `1.0`): only a document past half the bound is written
    /// to nowhere to count it.
    private static func checkReadable(_ stream: TypedStream, byteCount: Int, documentSize: Int) throws(CodecError) {
        guard byteCount < Int(UInt32.max) else {
            throw CodecError(.limitExceeded, "the typedstream would be larger than 4 GiB, which no reader reads", found: byteCount, limit: Int(UInt32.max) - 1)
        }
        let values = TypedStreamReader.valueLimit(forSize: byteCount)
        guard stream.values.count <= values else {
            throw CodecError(
                .limitExceeded,
                "the typedstream would hold \(stream.values.count) values in \(byteCount) bytes, more than a reader accepts (\(values)): values of no bytes repeated by a type string",
                found: stream.values.count, limit: values)
        }
        let output = KeyedArchive.maximumOutputSize(forInputSize: byteCount)
        guard documentSize > output / 2 else { return }
        var out = JSONOutput(pretty: false, reserve: 0) { _ in }
        out.limit = output
        TypedStreamJSONWriter(stream: stream).write(into: &out)
        try out.refuseIfUnfinished(
            CodecError(
                .limitExceeded,
                "the \(byteCount)-byte typedstream would decode to more than \(output) bytes of JSON, past what a decode of its size writes: it repeats long type strings or C strings",
                limit: output))
    }

    private init(document: JSONDocument, builder: TypedStreamBuilder) {
        self.document = document
        self.builder = builder
        // A stream defines a few classes: room for them at once (`SmallDocument`), not grown
        // from one (a nested payload's stream has an encoder of its own).
        classKeys.reserveCapacity(SmallDocument.things)
    }

    private mutating func encodeGroups(_ top: JSONDocument.Cursor) throws(CodecError) {
        // Frames are pushed and popped several times a group: a stack of the walk's own
        // (`InPlaceStack`), where an array asked the runtime whether it was shared each time.
        var stack = InPlaceStack<Frame>(capacity: 64)
        defer { stack.deallocate() }
        stack.push(.groups(top, object: false))
        var trips = 0
        while !stack.isEmpty {
            let frame = stack.pop()
            trips &+= 1
            try ConversionDeadline.poll(trips)
            switch frame {
            case .groups(var groups, let object):
                guard let group = document.nextElement(&groups) else {
                    if object { try builder.endObject() }
                    continue
                }
                stack.push(.groups(groups, object: object))
                stack.push(.values(try beginGroup(group)))
            case .values(var values):
                // Values that open nothing are placed in this loop; the frame goes back on the
                // stack only under one that opens an object or a composite.
                while true {
                    guard let value = values.next(in: document) else {
                        try builder.end()
                        break
                    }
                    if let opened = try encodeValue(value) {
                        stack.push(.values(values))
                        stack.push(opened)
                        break
                    }
                    trips &+= 1
                    try ConversionDeadline.poll(trips)
                }
            case .steps(let start, var next, let end):
                // As for values: a step that opens nothing (and so adds no steps) runs in this loop.
                while true {
                    guard next < end else {
                        // The frames above this one have ended and dropped their runs: its run is last.
                        assert(pendingSteps.count == end)
                        pendingSteps.truncate(to: start)
                        break
                    }
                    let step = pendingSteps[next]
                    next += 1
                    if let opened = try perform(step) {
                        stack.push(.steps(start: start, next: next, end: end))
                        stack.push(opened)
                        break
                    }
                    trips &+= 1
                    try ConversionDeadline.poll(trips)
                }
            case .entries(let index, let next):
                let entries = pendingSteps.entries[index]
                guard next < entries.count else { continue }
                stack.push(.entries(index: index, next: next + 1))
                let start = pendingSteps.mark
                try ReadableFormLowering(document: document).steps(forEntry: next, of: entries, into: &pendingSteps)
                stack.push(.steps(start: start, next: start.steps, end: pendingSteps.count))
            }
        }
    }

    /// Begins group `group` (`{"<type string>": value}`, or `[value, …]` for several types) and
    /// returns its values.
    private mutating func beginGroup(_ group: Value) throws(CodecError) -> ValueRun {
        guard let (key, value) = document.onlyMember(group) else {
            throw document.invalid("a group is an object of one member, its type string: {\"i\": 5}, {\"@\": {…}}", at: group)
        }
        try withText(key, at: key) { (text, builder) throws(CodecError) in try builder.beginGroup(string: try builder.intern(text)) }
        if builder.slotsLeft == 1 { return ValueRun(single: value) }
        guard document.kind(value) == .array, document.count(value) == builder.slotsLeft else {
            throw document.invalid("a group of \(builder.slotsLeft) types holds an array of as many values", at: value)
        }
        return ValueRun(cursor: document.children(of: value))
    }

    /// Places `value` in the slot the builder expects; returns the frame to read next when it
    /// opened an object or a composite.
    private mutating func encodeValue(_ value: Value) throws(CodecError) -> Frame? {
        guard let type = builder.expectedType else { throw document.invalid("no value goes here", at: value) }
        let code = builder.stream.types[type].code
        // A wrapper (`{"$ref": n}`, `{"$real": …}`, `{"$integer": …}`) is an object: a value of
        // another kind is not looked into for one.
        let kind = document.kind(value)
        switch code {
        case TypeCode.object:
            if kind == .null { return try place(value) { (b) throws(CodecError) in try b.object(nil) } }
            if kind == .object, let reference = document.singleMember(value, named: MappingKeys.reference) {
                guard document.kind(reference.value) == .number, case .signed(let id) = document.number(reference.value), let object = objects[id] else {
                    throw document.invalid("$ref names no object made before it", at: reference.value)
                }
                return try place(value) { (b) throws(CodecError) in try b.object(object) }
            }
            let start = pendingSteps.mark
            if try ReadableFormLowering(document: document).steps(for: value, into: &pendingSteps) { return .steps(start: start, next: start.steps, end: pendingSteps.count) }
            return try beginObject(value)
        case TypeCode.classObject:
            if kind == .null { return try place(value) { (b) throws(CodecError) in try b.classReference(nil) } }
            let index = try classIndex(value)
            return try place(value) { (b) throws(CodecError) in try b.classReference(index) }
        case TypeCode.float, TypeCode.double:
            let real: Double
            if kind == .object, let wrapped = document.singleMember(value, named: MappingKeys.real) {
                real = try document.wrappedReal(wrapped.value)
            } else {
                guard kind == .number else { throw document.invalid("a '\(TypeTable.character(code))' value is a number", at: value) }
                switch document.number(value) {
                case .signed(let integer): real = Double(integer)
                case .unsigned(let integer): real = Double(integer)
                case .real(let double): real = double
                }
            }
            if code == TypeCode.float {
                guard let float = FloatWidening.float(real) else { throw document.invalid("\(real) is not a float's value", at: value) }
                return try place(value) { (b) throws(CodecError) in try b.float(float) }
            }
            return try place(value) { (b) throws(CodecError) in try b.double(real) }
        case TypeCode.byteString:
            if kind == .string {
                // Text is read where it stands in the document, not copied out first.
                try withText(value, at: value) { (bytes, b) throws(CodecError) in try b.byteString(text: bytes) }
                return nil
            }
            let bytes = try textBytes(value)
            return try place(value) { (b) throws(CodecError) in try b.byteString(bytes) }
        case TypeCode.cString:
            if kind == .string {
                let string = try withText(value, at: value) { (bytes, b) throws(CodecError) in try b.intern(bytes) }
                return try placeCString(interned: string, at: value)
            }
            guard let bytes = try textBytes(value) else { return try place(value) { (b) throws(CodecError) in _ = try b.cString(nil) } }
            return try placeCString(bytes, at: value)
        case TypeCode.atom:
            let bytes = try textBytes(value)
            return try place(value) { (b) throws(CodecError) in try b.atom(bytes) }
        case TypeCode.selector:
            let bytes = try textBytes(value)
            return try place(value) { (b) throws(CodecError) in try b.selector(bytes) }
        case TypeCode.ignored:
            guard kind == .null else { throw document.invalid("a '!' value is null", at: value) }
            return try place(value) { (b) throws(CodecError) in try b.ignored() }
        case TypeCode.arrayOpen where builder.stream.types.isByteArray(type):
            guard let data = document.singleMember(value, named: MappingKeys.data) else { throw document.invalid("a byte array is {\"$data\": base64}", at: value) }
            let bytes = try document.dataBytes(data.value)
            return try place(value) { (b) throws(CodecError) in try b.byteArray(bytes) }
        case TypeCode.arrayOpen, TypeCode.structOpen:
            guard kind == .array else { throw document.invalid("a struct or array is a JSON array of its values", at: value) }
            // Counted before the builder reserves a slot per value the type declares.
            let declared = builder.stream.types[type].count
            guard document.count(value) == Int(declared) else {
                throw document.invalid("this struct or array holds \(declared) values, not \(document.count(value))", at: value)
            }
            _ = try place(value) { (b) throws(CodecError) in try b.beginComposite() }
            return .values(ValueRun(cursor: document.children(of: value)))
        case TypeCode.pointer:
            _ = try place(value) { (b) throws(CodecError) in try b.beginComposite() }
            return .values(ValueRun(single: value))
        default:
            if kind == .object, let wrapped = document.singleMember(value, named: MappingKeys.integer) {
                let integer = try document.exactInteger(wrapped.value)
                return try placeInteger(integer.isUnsigned ? .unsigned(integer.bits) : .signed(Int64(bitPattern: integer.bits)), code: code, at: value)
            }
            guard kind == .number else { throw document.invalid("a '\(TypeTable.character(code))' value is an integer", at: value) }
            return try placeInteger(document.number(value), code: code, at: value)
        }
    }

    /// An integer value of type `code`, signed or unsigned as the type is.
    private mutating func placeInteger(_ number: JSONNumber, code: UInt8, at value: Value) throws(CodecError) -> Frame? {
        switch number {
        case .signed(let integer):
            if TypeCode.isSignedInteger(code) { return try place(value) { (b) throws(CodecError) in try b.integer(integer) } }
            guard integer >= 0 else { throw document.invalid("a '\(TypeTable.character(code))' value is not negative", at: value) }
            return try place(value) { (b) throws(CodecError) in try b.unsigned(UInt64(integer)) }
        case .unsigned(let integer):
            return try place(value) { (b) throws(CodecError) in try b.unsigned(integer) }
        case .real:
            throw document.invalid("a '\(TypeTable.character(code))' value is an integer", at: value)
        }
    }

    /// An object's body: `{"$class": …, "$classes": […], "$id"?: n, "$groups": […]}`.
    private mutating func beginObject(_ value: Value) throws(CodecError) -> Frame? {
        guard document.kind(value) == .object else { throw document.invalid("an '@' value is null, {\"$ref\": n} or an object's body", at: value) }
        var chain: Value?
        var name: Value?
        var id: Int64?
        var groups = JSONDocument.Cursor.none
        var members = document.children(of: value)
        while let (key, member) = document.nextMember(&members) {
            switch Self.bodyKey(key, in: document) {
            case .classes:
                chain = member
            case .className:
                name = member
            case .identity:
                guard document.kind(member) == .number, case .signed(let number) = document.number(member) else {
                    throw document.invalid("$id is an integer no other object has", at: member)
                }
                try checkNewIdentity(number, at: member)
                id = number
            case .groups:
                guard document.kind(member) == .array else { throw document.invalid("$groups is an array of groups", at: member) }
                groups = document.children(of: member)
            case nil:
                throw document.invalid("an object's body has $class, $classes, $id and $groups only", at: key)
            }
        }
        guard let chain else { throw document.invalid("an object's body needs $classes", at: value) }
        let index = try classIndex(chain)
        if let name,
            document.kind(name) != .string
                || !Self.text(name, in: document, equals: builder.stream.sharedStrings[Int(builder.stream.classes[index].name)], of: builder.stream.storage)
        {
            throw document.invalid("$class is not the first class of $classes", at: name)
        }
        var object = 0
        _ = try place(value) { (b) throws(CodecError) in object = try b.beginObject(class: index) }
        if let id { objects[id] = object }
        return .groups(groups, object: true)
    }

    /// The keys of an object's body.
    private enum BodyKey {
        case className, classes, identity, groups
    }

    /// Which key of an object's body `key` is (nil: none of them): a key without escapes is
    /// compared with the one key of its length only, its length read from its handle. Static,
    /// as the other helpers of the hot path: a method's closure copied the encoder.
    private static func bodyKey(_ key: Value, in document: JSONDocument) -> BodyKey? {
        guard key.payload & Value.escapedBit != 0 else {
            // The text between the quotes.
            switch Int(key.payload) - 2 {
            case 3: return document.stringEquals(key, MappingKeys.identity) ? .identity : nil
            case 6: return document.stringEquals(key, MappingKeys.className) ? .className : nil
            case 7: return document.stringEquals(key, MappingKeys.groups) ? .groups : nil
            case 8: return document.stringEquals(key, MappingKeys.classes) ? .classes : nil
            default: return nil
            }
        }
        if document.stringEquals(key, MappingKeys.identity) { return .identity }
        if document.stringEquals(key, MappingKeys.className) { return .className }
        if document.stringEquals(key, MappingKeys.groups) { return .groups }
        return document.stringEquals(key, MappingKeys.classes) ? .classes : nil
    }

    /// Whether string `value` holds the bytes of `span` of `storage`, compared in place.
    private static func text(_ value: Value, in document: JSONDocument, equals span: TypedStream.Span, of storage: [UInt8]) -> Bool {
        document.withString(value) { text in
            text.count == Int(span.count)
                && storage.withUnsafeBufferPointer { storage in
                    text.isEmpty || ByteStringTable.bytesEqual(text.baseAddress!, storage.baseAddress! + Int(span.start), count: text.count)
                }
        }
    }

    /// The class of chain `[[name, version], …]`, defined (root first) where new; a chain
    /// spelled as one before is that one's class (`chainsBySpelling`).
    private mutating func classIndex(_ chain: Value) throws(CodecError) -> Int {
        guard document.kind(chain) == .array else { return try readClassChain(chain) }
        let text = document.sourceRange(of: chain)
        let spellings = chainSpellings
        let (hash, known) = document.source.withUnsafeBufferPointer { source in
            let spelling = UnsafeBufferPointer(rebasing: source[text])
            let hash = ByteStringTable.hash(spelling)
            return (
                hash,
                chainsBySpelling.find(hash: hash) { candidate in
                    let other = spellings[Int(candidate)].text
                    return other.count == text.count && ByteStringTable.bytesEqual(source.baseAddress! + other.lowerBound, spelling.baseAddress!, count: text.count)
                }
            )
        }
        if let known { return chainSpellings[Int(known)].classIndex }
        let index = try readClassChain(chain)
        let entry = UInt32(chainSpellings.count)
        chainSpellings.append((text, index))
        _ = chainsBySpelling.findOrInsert(hash: hash, equals: { _ in false }, newValue: { entry })
        return index
    }

    /// `classIndex(_:)` read link by link.
    private mutating func readClassChain(_ chain: Value) throws(CodecError) -> Int {
        guard document.kind(chain) == .array, document.count(chain) > 0 else {
            throw document.invalid("a class chain is [[name, version], …], the class first", at: chain)
        }
        var links: [(name: [UInt8], version: Int64)] = []
        for link in document.elements(of: chain) {
            let parts = document.kind(link) == .array ? document.elements(of: link) : []
            guard parts.count == 2, document.kind(parts[0]) == .string, document.kind(parts[1]) == .number, case .signed(let version) = document.number(parts[1]) else {
                throw document.invalid("a class is [name, version]", at: link)
            }
            links.append((document.withString(parts[0]) { Array($0) }, version))
        }
        return try classIndex(links, at: chain)
    }

    /// The class of chain `links` (the class first), defined (root first) where new; a refusal
    /// is located at `value`. Each link is found by its name, version and the class of the
    /// links after it, so a chain costs its length, however long.
    private mutating func classIndex(_ links: [(name: [UInt8], version: Int64)], at value: Value) throws(CodecError) -> Int {
        var superclass: Int?
        for link in links.reversed() {
            var name: UInt32 = 0
            try located(value) { (b) throws(CodecError) in name = try b.intern(link.name) }
            let key = ClassKey(name: name, version: link.version, superclass: superclass ?? -1)
            let hash = key.hash
            if let known = knownClass(key, hash: hash) {
                superclass = known
                continue
            }
            let parent = superclass
            var defined = 0
            try located(value) { (b) throws(CodecError) in defined = try b.defineClass(name: link.name, version: link.version, superclass: parent) }
            let entry = UInt32(classKeys.count)
            classKeys.append((key, defined))
            _ = classTable.findOrInsert(hash: hash, equals: { _ in false }, newValue: { entry })
            superclass = defined
        }
        return superclass!
    }

    /// The class defined for `key` (whose hash is `hash`), if one was.
    private func knownClass(_ key: ClassKey, hash: UInt64) -> Int? {
        classTable.find(hash: hash) { classKeys[Int($0)].key == key }.map { classKeys[Int($0)].index }
    }

    /// Refuses `$id` `number` when another object has it.
    private func checkNewIdentity(_ number: Int64, at value: Value) throws(CodecError) {
        guard objects[number] == nil else { throw document.invalid("$id is an integer no other object has", at: value) }
    }

    /// A `*` value of `bytes`: a reference to the C string of the same text made before, else
    /// a new one (the stream's object table shares C strings).
    private mutating func placeCString(_ bytes: [UInt8], at value: Value) throws(CodecError) -> Frame? {
        var string: UInt32 = 0
        try located(value) { (b) throws(CodecError) in string = try b.intern(bytes) }
        return try placeCString(interned: string, at: value)
    }

    /// A `*` value of shared string `string` (made by `intern`), as `placeCString(_:at:)` places it.
    private mutating func placeCString(interned string: UInt32, at value: Value) throws(CodecError) -> Frame? {
        if Int(string) < cStringOfString.count, cStringOfString[Int(string)] != 0 {
            let known = Int(cStringOfString[Int(string)]) - 1
            return try place(value) { (b) throws(CodecError) in try b.cString(reference: known) }
        }
        var made = 0
        _ = try place(value) { (b) throws(CodecError) in made = try b.cString(interned: string) }
        cStringOfString.store(UInt32(made) + 1, at: Int(string), filling: 0)
        return nil
    }

    /// Runs one builder call of a readable form; returns the frame to read next when a
    /// `.value` step opened one.
    private mutating func perform(_ step: ReadableBuildStep) throws(CodecError) -> Frame? {
        switch step {
        case .beginObject(let readableClass, let id, let value):
            var index = readableClasses[readableClass.rawValue]
            if index < 0 {
                index = try classIndex(readableClass.byteChain, at: value)
                readableClasses[readableClass.rawValue] = index
            }
            if let id { try checkNewIdentity(id.number, at: id.at) }
            var object = 0
            _ = try place(value) { (b) throws(CodecError) in object = try b.beginObject(class: index) }
            if let id { objects[id.number] = object }
            return nil
        case .endObject(let value): return try place(value) { (b) throws(CodecError) in try b.endObject() }
        case .group(let type, let value):
            // The pool is read through a reference of its own while the builder is lent.
            let pool = pendingSteps.bytes
            return try place(value) { (b) throws(CodecError) in
                try pool.withUnsafeBufferPointer { (bytes) throws(CodecError) in try b.beginGroup(string: try b.intern(UnsafeBufferPointer(rebasing: bytes[type]))) }
            }
        case .literalGroup(let type, let value):
            var string: UInt32
            if let known = literalStrings.string(for: type) {
                string = known
            } else {
                string = 0
                try located(value) { (b) throws(CodecError) in
                    string = try b.intern(UnsafeBufferPointer(start: type.utf8Start, count: type.utf8CodeUnitCount))
                }
                literalStrings.keep(string, for: type)
            }
            return try place(value) { (b) throws(CodecError) in try b.beginGroup(string: string) }
        case .end(let value): return try place(value) { (b) throws(CodecError) in try b.end() }
        case .value(let value): return try encodeValue(value)
        case .integer(let integer, let value): return try place(value) { (b) throws(CodecError) in try b.integer(integer) }
        case .unsigned(let integer, let value): return try place(value) { (b) throws(CodecError) in try b.unsigned(integer) }
        case .double(let real, let value): return try place(value) { (b) throws(CodecError) in try b.double(real) }
        case .truth(let truth, let value):
            guard let type = builder.expectedType, TypeCode.bitWidth(builder.stream.types[type].code) != 0 else {
                throw document.invalid("true or false is an integer type's value (c, B, …)", at: value)
            }
            let signed = TypeCode.isSignedInteger(builder.stream.types[type].code)
            return try place(value) { (b) throws(CodecError) in signed ? try b.integer(truth ? 1 : 0) : try b.unsigned(truth ? 1 : 0) }
        case .byteString(let text, let skip, let value):
            try withText(text, at: value) { (bytes, b) throws(CodecError) in try b.byteString(text: UnsafeBufferPointer(rebasing: bytes[skip...])) }
            return nil
        case .cString(let text, let value):
            let pool = pendingSteps.bytes
            var string: UInt32 = 0
            try located(value) { (b) throws(CodecError) in
                string = try pool.withUnsafeBufferPointer { (bytes) throws(CodecError) in try b.intern(UnsafeBufferPointer(rebasing: bytes[text])) }
            }
            return try placeCString(interned: string, at: value)
        case .byteArray(let range, let value):
            let array = Array(pendingSteps.bytes[range])
            return try place(value) { (b) throws(CodecError) in try b.byteArray(array) }
        case .entries(let index): return .entries(index: index, next: 0)
        }
    }

    /// A string's bytes: text, `{"$data": base64}` for bytes that are not UTF-8, nil for null.
    private func textBytes(_ value: Value) throws(CodecError) -> [UInt8]? {
        switch document.kind(value) {
        case .null: return nil
        case .string: return document.withString(value) { Array($0) }
        default:
            guard let data = document.singleMember(value, named: MappingKeys.data) else { throw document.invalid("a string is text, {\"$data\": base64} or null", at: value) }
            return try document.dataBytes(data.value)
        }
    }

    /// Runs a builder call for `value`, its refusal located at `value`.
    @discardableResult
    private mutating func place(_ value: Value, _ body: (inout TypedStreamBuilder) throws(CodecError) -> Void) throws(CodecError) -> Frame? {
        try located(value, body)
        return nil
    }

    private mutating func located(_ value: Value, _ body: (inout TypedStreamBuilder) throws(CodecError) -> Void) throws(CodecError) {
        do {
            try body(&builder)
        } catch {
            throw document.invalid(error.message, at: value)
        }
    }

    /// `located` for a builder call given the text of string `text` (unescaped, where it
    /// stands in the document when it holds no escape).
    private mutating func withText<Result>(
        _ text: Value, at value: Value, _ body: (UnsafeBufferPointer<UInt8>, inout TypedStreamBuilder) throws(CodecError) -> Result
    ) throws(CodecError) -> Result {
        do {
            return try document.withString(text, updating: &builder, body)
        } catch {
            throw document.invalid(error.message, at: value)
        }
    }
}
