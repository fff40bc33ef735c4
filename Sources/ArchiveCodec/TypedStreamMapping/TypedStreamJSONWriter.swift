/// Writes a typedstream's JSON (docs/mapping.md, "typedstream"): `{"$typedstream": [group, …]}`,
/// each group `{"<type string>": value}` (or `[value, …]` for a string of several types), an
/// object `{"$class": …, "$classes": [[name, version], …], "$id"?: n, "$groups": [group, …]}` where
/// it first occurs in the stream and `{"$ref": n}` after, the rest as `TypedStreamJSONEncoder`
/// reads it back.
///
/// Follows the stream's own order (`TypedStreamWalk`) with no recursion, so any nesting writes
/// on any stack; `depth` is the JSON nesting, found by the same walk without writing.
struct TypedStreamJSONWriter {
    let stream: TypedStream
    /// Per object, whether a later value refers back to it (it then carries `$id`).
    private let shared: [Bool]

    init(stream: TypedStream) {
        self.stream = stream
        var shared = [Bool](repeating: false, count: stream.objects.count)
        for index in stream.values.indices where stream.code(of: index) == TypeCode.object {
            if case .object(let object?) = stream.content(of: index), stream.isBackReference(index) { shared[object] = true }
        }
        self.shared = shared
    }

    /// The JSON nesting of the document.
    var depth: Int {
        var measure = Measure()
        walk(into: &measure)
        return measure.deepest
    }

    /// Writes the document into `out`; stops descending once `out` passes its limit.
    func write(into out: inout JSONOutput) {
        var text = Text(out: out)
        walk(into: &text)
        out = text.out
    }

    // MARK: The walk

    private func walk<Sink: TypedStreamJSONSink>(into sink: inout Sink) {
        sink.openObject()
        if stream.byteOrder == .big {
            sink.key("$byteOrder")
            sink.string("big")
        }
        if stream.systemVersion != TypedStreamHeader.currentSystemVersion {
            sink.key("$systemVersion")
            sink.integer(stream.systemVersion)
        }
        sink.key("$typedstream")
        sink.openArray()
        var walk = TypedStreamWalk(stream)
        while let step = walk.next() {
            if sink.isStopped() { return }
            switch step {
            case .group(let group):
                sink.openObject()
                sink.key(bytes: stream.encoding(ofGroup: group))
                if stream.values(ofGroup: group).count != 1 { sink.openArray() }
            case .endOfGroup(let group):
                if stream.values(ofGroup: group).count != 1 { sink.closeArray() }
                sink.closeObject()
            case .value(let index):
                writeValue(index, walk: &walk, into: &sink)
            case .endOfComposite(let index):
                if stream.code(of: index) != TypeCode.pointer { sink.closeArray() }
            case .endOfObject:
                sink.closeArray()
                sink.closeObject()
            }
        }
        sink.closeArray()
        sink.closeObject()
    }

    private func writeValue<Sink: TypedStreamJSONSink>(_ index: Int, walk: inout TypedStreamWalk, into sink: inout Sink) {
        switch stream.content(of: index) {
        case .signed(let value): sink.integer(value)
        case .unsigned(let value): sink.unsigned(value)
        case .float(let bits): sink.real(Double(Float(bitPattern: bits)))
        case .double(let bits): sink.real(Double(bitPattern: bits))
        case .byteString(let span): writeText(span.map { stream.bytes($0) }, into: &sink)
        case .byteArray(let span): sink.data(stream.bytes(span))
        case .cString(let string): writeText(string.map { stream.sharedString(Int(stream.cStrings[$0])) }, into: &sink)
        case .atom(let string), .selector(let string): writeText(string.map { stream.sharedString($0) }, into: &sink)
        case .classReference(let index):
            guard let index else { return sink.null() }
            writeChain(index, into: &sink)
        case .ignored: sink.null()
        case .object(nil): sink.null()
        case .object(let object?):
            if stream.isBackReference(index) { return sink.reference(object) }
            sink.openObject()
            let classIndex = Int(stream.objects[object].classIndex)
            sink.key("$class")
            sink.text(stream.name(ofClass: classIndex))
            sink.key("$classes")
            writeChain(classIndex, into: &sink)
            if shared[object] {
                sink.key("$id")
                sink.integer(Int64(object))
            }
            sink.key("$groups")
            sink.openArray()
            walk.enter(object: object)
        case .array, .structure:
            sink.openArray()
            walk.enter(childrenOf: index)
        case .pointer:
            walk.enter(childrenOf: index)
        }
    }

    /// `[[name, version], …]`, the class and its superclasses.
    private func writeChain<Sink: TypedStreamJSONSink>(_ index: Int, into sink: inout Sink) {
        sink.openArray()
        for link in stream.classChain(index) {
            sink.openArray()
            sink.text(stream.name(ofClass: link))
            sink.integer(stream.classes[link].version)
            sink.closeArray()
        }
        sink.closeArray()
    }

    /// A string as text when it is UTF-8, else `{"$data": base64}`; nil is `null`.
    private func writeText<Sink: TypedStreamJSONSink>(_ bytes: ArraySlice<UInt8>?, into sink: inout Sink) {
        guard let bytes else { return sink.null() }
        let valid = bytes.withUnsafeBufferPointer { UTF8Encoding.firstInvalidOffset($0) == nil }
        if valid { sink.text(bytes) } else { sink.data(bytes) }
    }
}

/// What the walk writes to: the JSON text, or only its nesting.
private protocol TypedStreamJSONSink {
    mutating func isStopped() -> Bool
    mutating func openObject()
    mutating func closeObject()
    mutating func openArray()
    mutating func closeArray()
    mutating func key(_ literal: StaticString)
    mutating func key(bytes: ArraySlice<UInt8>)
    mutating func null()
    mutating func integer(_ value: Int64)
    mutating func unsigned(_ value: UInt64)
    mutating func real(_ value: Double)
    mutating func string(_ literal: StaticString)
    mutating func text(_ bytes: ArraySlice<UInt8>)
    mutating func data(_ bytes: ArraySlice<UInt8>)
    mutating func reference(_ object: Int)
}

private struct Measure: TypedStreamJSONSink {
    var level = 0
    var deepest = 0
    mutating func isStopped() -> Bool { false }
    mutating func openObject() { open() }
    mutating func closeObject() { level -= 1 }
    mutating func openArray() { open() }
    mutating func closeArray() { level -= 1 }
    mutating func key(_ literal: StaticString) {}
    mutating func key(bytes: ArraySlice<UInt8>) {}
    mutating func null() {}
    mutating func integer(_ value: Int64) {}
    mutating func unsigned(_ value: UInt64) {}
    mutating func real(_ value: Double) { if !value.isFinite { deepest = max(deepest, level + 1) } }
    mutating func string(_ literal: StaticString) {}
    mutating func text(_ bytes: ArraySlice<UInt8>) {}
    mutating func data(_ bytes: ArraySlice<UInt8>) { deepest = max(deepest, level + 1) }
    mutating func reference(_ object: Int) { deepest = max(deepest, level + 1) }
    private mutating func open() {
        level += 1
        deepest = max(deepest, level)
    }
}

private struct Text: TypedStreamJSONSink {
    var out: JSONOutput
    mutating func isStopped() -> Bool { out.reachedLimit() }
    mutating func openObject() { out.openObject() }
    mutating func closeObject() { out.closeObject() }
    mutating func openArray() { out.openArray() }
    mutating func closeArray() { out.closeArray() }
    mutating func key(_ literal: StaticString) { out.key(literal) }
    mutating func key(bytes: ArraySlice<UInt8>) { bytes.withUnsafeBufferPointer { out.key(utf8: $0) } }
    mutating func null() { out.null() }
    mutating func integer(_ value: Int64) { out.int(value) }
    mutating func unsigned(_ value: UInt64) { out.uint(value) }
    mutating func real(_ value: Double) { out.mappedReal(value) }
    mutating func string(_ literal: StaticString) { out.string(literal) }
    mutating func text(_ bytes: ArraySlice<UInt8>) { bytes.withUnsafeBufferPointer { out.string(utf8: $0) } }
    mutating func data(_ bytes: ArraySlice<UInt8>) {
        out.openObject()
        out.key("$data")
        bytes.withUnsafeBufferPointer { out.base64String($0) }
        out.closeObject()
    }
    mutating func reference(_ object: Int) { out.reference(object) }
}
