/// What `TypedStreamJSONWriter`'s walk writes to: the JSON text (`TypedStreamJSONText`), or
/// only its nesting (`TypedStreamJSONMeasure`, for `depth`). Every character of the document
/// goes through one of these calls, so the two never disagree about the nesting.
protocol TypedStreamJSONSink {
    /// Whether the sink follows only the nesting, never a value's text: a class chain
    /// (`$classes`, as long as the stream makes it, and written at every object of its class)
    /// is then given as one link, which nests as deep as all of them, so that measuring or
    /// finding a place costs no walk of a chain per object.
    static var followsNestingOnly: Bool { get }
    mutating func isStopped() -> Bool
    mutating func openObject()
    mutating func closeObject()
    mutating func openArray()
    mutating func closeArray()
    mutating func key(_ literal: StaticString)
    /// A group's key: the type string, shared string `string` of `stream`.
    mutating func groupKey(_ string: Int, of stream: TypedStream)
    /// A data key (a dictionary's): its text, `$$…` when it begins with `$`.
    mutating func dataKey(_ bytes: ArraySlice<UInt8>)
    mutating func null()
    mutating func bool(_ value: Bool)
    /// A value's integer, in `{"$integer": …}` where the wrapping wraps it (`NumberWrapping`).
    mutating func integer(_ value: Int64)
    mutating func unsigned(_ value: UInt64)
    /// An integer the mapping itself writes (an id, a class version, a run's length, a flag,
    /// the system version): always bare, as the encoder reads it.
    mutating func mappingInteger(_ value: Int64)
    /// A real, in `{"$real": …}` where the wrapping wraps it (`NumberWrapping`).
    mutating func real(_ value: Double)
    /// Seconds since 2001 as `$date` holds them (`JSONOutput.mappedTime`).
    mutating func time(_ seconds: Double)
    mutating func string(_ literal: StaticString)
    /// UTF-8 text as a JSON string (`text(_:)` of a slice lends it here).
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>)
    /// A colour's hex (`ColorHex.Spelling`) as a JSON string.
    mutating func colorHex(_ spelling: ColorHex.Spelling)
    mutating func data(_ bytes: ArraySlice<UInt8>)
    /// Bytes as a base64 string (a `$data` member's value).
    mutating func base64(_ bytes: ArraySlice<UInt8>)
    mutating func reference(_ object: Int)
    /// `[[name, version], …]`: class `index` of `stream` and its superclasses (only the class
    /// for a sink that follows the nesting only, `followsNestingOnly`).
    mutating func classChain(_ index: Int, of stream: TypedStream)
    /// `{"$class": name, "$classes": chain`: an object of class `index` in the generic form up
    /// to its `$id` or `$groups`, the object left open.
    mutating func objectHead(_ index: Int, of stream: TypedStream)
    /// Value `index` of the stream is about to be written (or taken by a readable form's
    /// container without text of its own), and has been (its object entered, if it is one).
    mutating func willWrite(value index: Int)
    mutating func didWrite(value index: Int)
    /// A salvaged stream's mark where reading stopped (`JSONOutput.brokenMark`, the one home of
    /// its shape): one value, three levels deep.
    mutating func brokenMark(offset: Int, reason: String, rest: ArraySlice<UInt8>)
    /// `"$kind": {…}` beside an NSData's `$data`: the member `JSONOutput.account` writes for
    /// `kind.account` in the other formats (the one home of its text), as deep as that
    /// account's `height`.
    mutating func kindMember(_ kind: DataKind)
}

extension TypedStreamJSONSink {
    static var followsNestingOnly: Bool { false }
    mutating func text(_ bytes: ArraySlice<UInt8>) { bytes.withUnsafeBufferPointer { text($0) } }

    mutating func classChain(_ index: Int, of stream: TypedStream) {
        openArray()
        for link in stream.classLinks(index, limit: Self.followsNestingOnly ? 1 : .max) {
            openArray()
            text(stream.name(ofClass: link))
            mappingInteger(stream.classes[link].version)
            closeArray()
        }
        closeArray()
    }

    mutating func objectHead(_ index: Int, of stream: TypedStream) {
        openObject()
        key(MappingKeys.className)
        text(stream.name(ofClass: index))
        key(MappingKeys.classes)
        classChain(index, of: stream)
    }

    mutating func willWrite(value index: Int) {}
    mutating func didWrite(value index: Int) {}
}

struct TypedStreamJSONMeasure: TypedStreamJSONSink {
    static var followsNestingOnly: Bool { true }
    let numbers: NumberWrapping
    var level = 0
    var deepest = 0
    /// Steps walked: past the thread's `ConversionDeadline` the measure stops part way (its
    /// callers check the deadline after).
    var steps = 0
    mutating func isStopped() -> Bool {
        steps &+= 1
        return ConversionDeadline.shouldStop(steps)
    }
    mutating func openObject() { open() }
    mutating func closeObject() { level -= 1 }
    mutating func openArray() { open() }
    mutating func closeArray() { level -= 1 }
    mutating func key(_ literal: StaticString) {}
    mutating func groupKey(_ string: Int, of stream: TypedStream) {}
    mutating func dataKey(_ bytes: ArraySlice<UInt8>) {}
    mutating func null() {}
    mutating func bool(_ value: Bool) {}
    mutating func integer(_ value: Int64) { leaf(wrapped: numbers.wraps(PlistInteger(signed: value))) }
    mutating func mappingInteger(_ value: Int64) {}
    mutating func unsigned(_ value: UInt64) { leaf(wrapped: numbers.wraps(PlistInteger(unsigned: value))) }
    mutating func real(_ value: Double) { leaf(wrapped: numbers.wraps(value)) }
    mutating func time(_ seconds: Double) { leaf(wrapped: numbers.wrapsTime(seconds)) }
    mutating func string(_ literal: StaticString) {}
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {}
    mutating func colorHex(_ spelling: ColorHex.Spelling) {}
    mutating func data(_ bytes: ArraySlice<UInt8>) { deepest = max(deepest, level + 1) }
    mutating func base64(_ bytes: ArraySlice<UInt8>) {}
    mutating func reference(_ object: Int) { deepest = max(deepest, level + 1) }
    mutating func brokenMark(offset: Int, reason: String, rest: ArraySlice<UInt8>) { deepest = max(deepest, level + 3) }
    mutating func kindMember(_ kind: DataKind) { deepest = max(deepest, level + kind.account.height(numbers)) }
    private mutating func open() {
        level += 1
        deepest = max(deepest, level)
    }
    private mutating func leaf(wrapped: Bool) { if wrapped { deepest = max(deepest, level + 1) } }
}

struct TypedStreamJSONText: TypedStreamJSONSink {
    var out: JSONOutput
    let numbers: NumberWrapping
    /// Per class, the compact text of its generic object's head once written twice
    /// (`objectHead`), the chain (`classChain`) its tail from `chainStart`: every object of a
    /// class spells the same `{"$class": …, "$classes": …`, then copied. Only in compact
    /// output (indented text depends on the depth) and for heads of at most
    /// `largestPreparedHead` bytes; a class written once (as most of a small payload's are) is
    /// only noted. Only an object's head is kept (a `#` value, which writes the chain alone,
    /// uses a head kept before and keeps none): each text kept was written out whole, so the
    /// cache holds less than the output, and an entry per class (made at the first head).
    private var preparedHeads: [PreparedHead?] = []
    private static let largestPreparedHead = 320
    /// Group keys' text by type string (`groupKey`): a stream spells a few type strings
    /// thousands of times. None for a stream of fewer than `valuesBeforeKeyCache` values, so
    /// as many groups or fewer (a nested payload's), whose few keys cost less written afresh
    /// than the cache's tables.
    private var groupKeys: KeyTextCache?
    private static let valuesBeforeKeyCache = 64

    private enum PreparedHead {
        case writtenOnce, tooLong
        case text([UInt8], chainStart: Int)
    }

    /// For a stream of `values` values and `sharedStrings` shared strings (its counts, not
    /// the stream: an initialiser's argument is its own copy, which a stream's tables made at
    /// every payload).
    init(out: JSONOutput, numbers: NumberWrapping, values: Int, sharedStrings: Int) {
        self.out = out
        self.numbers = numbers
        if values >= Self.valuesBeforeKeyCache { groupKeys = KeyTextCache(references: sharedStrings) }
    }

    mutating func objectHead(_ index: Int, of stream: TypedStream) {
        if !out.pretty, case .text(let text, _) = preparedHead(index, of: stream) {
            text.withUnsafeBufferPointer { out.openObject(prepared: $0) }
            return
        }
        Self.writeHead(index, of: stream, into: &out)
    }

    mutating func classChain(_ index: Int, of stream: TypedStream) {
        if !out.pretty, index < preparedHeads.count, case .text(let text, let chainStart)? = preparedHeads[index] {
            text.withUnsafeBufferPointer { out.scalar(json: UnsafeBufferPointer(rebasing: $0[chainStart...])) }
            return
        }
        Self.writeChain(index, of: stream, into: &out)
    }

    /// Class `index`'s head as kept: noted at its first object (the caller writes it afresh),
    /// made at its second. Compact output only.
    private mutating func preparedHead(_ index: Int, of stream: TypedStream) -> PreparedHead? {
        if preparedHeads.isEmpty { preparedHeads = Array(filledWith: nil, count: stream.classes.count) }
        switch preparedHeads[index] {
        case nil:
            preparedHeads[index] = .writtenOnce
            return nil
        case .writtenOnce?:
            var scratch = JSONOutput(pretty: false)
            let chainStart = Self.writeHead(index, of: stream, into: &scratch)
            let text = scratch.finish()
            preparedHeads[index] = text.count <= Self.largestPreparedHead ? .text(text, chainStart: chainStart) : .tooLong
            return preparedHeads[index]
        case let kept?:
            return kept
        }
    }

    /// The head's text as the sink's other calls write it; returns where its chain begins in
    /// the text. Static, as `writeChain`.
    @discardableResult
    private static func writeHead(_ index: Int, of stream: TypedStream, into out: inout JSONOutput) -> Int {
        out.openObject()
        out.key(MappingKeys.className)
        stream.name(ofClass: index).withUnsafeBufferPointer { out.string(utf8: $0) }
        out.key(MappingKeys.classes)
        let chainStart = out.textCount
        writeChain(index, of: stream, into: &out)
        return chainStart
    }

    /// The chain's text as the sink's other calls write it. Static: a method of the sink
    /// called with its own `out` would be called on a copy of the sink.
    private static func writeChain(_ index: Int, of stream: TypedStream, into out: inout JSONOutput) {
        out.openArray()
        for link in stream.classLinks(index) {
            out.openArray()
            stream.name(ofClass: link).withUnsafeBufferPointer { out.string(utf8: $0) }
            out.int(stream.classes[link].version)
            out.closeArray()
        }
        out.closeArray()
    }

    mutating func isStopped() -> Bool { out.reachedLimit() }
    // Inlined into the walk: a group opens an object, and the call cost more than the work.
    @inline(__always) mutating func openObject() { out.openObject() }
    mutating func closeObject() { out.closeObject() }
    @inline(__always) mutating func openArray() { out.openArray() }
    mutating func closeArray() { out.closeArray() }
    mutating func key(_ literal: StaticString) { out.key(literal) }
    mutating func groupKey(_ string: Int, of stream: TypedStream) {
        if let slot = groupKeys?.slot(of: string) { return groupKeys!.write(slot, to: &out) }
        stream.sharedString(string).withUnsafeBufferPointer { out.key(utf8: $0) }
        groupKeys?.keep(out.lastKeyText, for: string)
    }
    mutating func dataKey(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { out.key(utf8: $0, prefix: $0.first == MappingKeys.marker ? MappingKeys.marker : nil) }
    }
    mutating func null() { out.null() }
    mutating func bool(_ value: Bool) { out.bool(value) }
    mutating func integer(_ value: Int64) { out.mappedInteger(PlistInteger(signed: value), numbers) }
    mutating func mappingInteger(_ value: Int64) { out.int(value) }
    mutating func unsigned(_ value: UInt64) { out.mappedInteger(PlistInteger(unsigned: value), numbers) }
    mutating func real(_ value: Double) { out.mappedReal(value, numbers) }
    mutating func time(_ seconds: Double) { out.mappedTime(seconds, numbers) }
    mutating func string(_ literal: StaticString) { out.string(literal) }
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) { out.string(utf8: bytes) }
    mutating func colorHex(_ spelling: ColorHex.Spelling) { out.hexString(packed: spelling.digits, digitCount: spelling.digitCount) }
    mutating func data(_ bytes: ArraySlice<UInt8>) {
        out.openObject()
        out.key(MappingKeys.data)
        base64(bytes)
        out.closeObject()
    }
    mutating func base64(_ bytes: ArraySlice<UInt8>) { bytes.withUnsafeBufferPointer { out.base64String($0) } }
    mutating func reference(_ object: Int) { out.reference(object) }
    mutating func brokenMark(offset: Int, reason: String, rest: ArraySlice<UInt8>) { out.brokenMark(offset: offset, reason: reason, rest: rest) }
    mutating func kindMember(_ kind: DataKind) {
        out.key(MappingKeys.kind)
        out.account(kind.account, numbers)
    }
}
