extension TypedStream {
    /// The counts of a typedstream (`ArchiveSummary`): its objects by class (the chain from
    /// the superclass links), each object's groups as its keys (the group's type string, such
    /// as `@` or `{CGSize=dd}`, with the kinds of its values), the objects referred to by more
    /// than one `@` value (shared) or on a reference cycle, the largest strings (`+` and `*`
    /// values; a C string's text once, however many values refer to it) and byte arrays, and
    /// the payloads among the byte arrays (their places are not named). Values are walked in
    /// flat runs with a kept work list, never by recursion.
    func summary(payloads: inout PayloadScan) -> ArchiveSummary {
        var summary = ArchiveSummary(format: .typedStream)
        summary.objects = objects.count
        var tally = SummaryTally()
        let classIndex = classes.indices.map { index in
            tally.classIndex(name: text(name(ofClass: index)), chain: classLinks(index, limit: ArchiveSummary.listedChainLength).map { text(name(ofClass: $0)) })
        }
        var walk = TypedStreamValueWalk(stream: self, objectCount: objects.count)
        // The top-level groups refer to objects but belong to none.
        for group in topLevelGroups { walk.walk(group: group, owner: nil, payloads: &payloads) }
        walk.edgeStart.reserveCapacity(objects.count + 1)
        // Past the deadline the rest of the objects are skipped (the tables stay whole, the
        // counts do not): `Archive.summary` throws `timedOut` instead of answering.
        var stopped = false
        for (number, object) in objects.enumerated() {
            walk.edgeStart.append(Int32(walk.targets.count))
            if stopped || ConversionDeadline.shouldStop(number + 1) {
                stopped = true
                continue
            }
            let owner = classIndex[Int(object.classIndex)]
            for group in groups(ofObject: number) {
                for value in values(ofGroup: group) {
                    tally.noteKey(owner: owner, keyID: Int(string(ofGroup: group)), name: { text(encoding(ofGroup: group)) }, kind: kind(of: value, classIndex: classIndex))
                }
                walk.walk(group: group, owner: number, payloads: &payloads)
            }
        }
        walk.edgeStart.append(Int32(walk.targets.count))
        let cyclic = ReferenceCycles.onCycle(edgeStart: walk.edgeStart, targets: walk.targets)
        for (number, object) in objects.enumerated() {
            let isShared = walk.references[number] > 1
            if isShared { summary.shared += 1 }
            if cyclic[number] { summary.cyclic += 1 }
            tally.noteInstance(of: classIndex[Int(object.classIndex)], shared: isShared, cyclic: cyclic[number])
        }
        tally.finish(into: &summary)
        // No places: naming one would take a walk of the writer (`TypedStreamPathSink`).
        summary.largestStrings = walk.strings.entries
        summary.largestData = walk.data.entries
        // Nothing found, nothing to add (`absorb` would only sort the sorted lists again).
        if !payloads.found.nestedPayloads.isEmpty || !payloads.found.dataKinds.isEmpty { summary.absorb(payloads.found) }
        return summary
    }

    private func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The kind a group's value counts under: an object under its class, numbers, text, byte
    /// arrays, structs (`dictionary`) and other arrays under theirs; a class reference as the
    /// string naming it, a pointer as what it points at.
    private func kind(of value: Int, classIndex: [Int]) -> Int {
        var value = value
        while true {
            switch content(of: value) {
            case .signed, .unsigned: return SummaryTally.kind(.integer)
            case .float, .double: return SummaryTally.kind(.real)
            case .byteString(let span): return SummaryTally.kind(span == nil ? .null : .string)
            case .cString(let index), .atom(let index), .selector(let index), .classReference(let index):
                return SummaryTally.kind(index == nil ? .null : .string)
            case .byteArray: return SummaryTally.kind(.data)
            case .object(let object?): return SummaryTally.classKind(classIndex[Int(objects[object].classIndex)])
            case .object(nil), .ignored: return SummaryTally.kind(.null)
            case .array: return SummaryTally.kind(.array)
            case .structure: return SummaryTally.kind(.dictionary)
            case .pointer(let pointee): value = pointee
            }
        }
    }
}

/// The values of a typedstream's groups as the summary walks them: how many `@` values refer
/// to each object, the references each object's groups make (laid end to end per object, for
/// `ReferenceCycles`), the largest strings and byte arrays.
///
/// Each object's groups are walked once (a back-reference is not followed), and `+` strings
/// and byte arrays stand in the stream where they are used. A C string (`*`) is a reference
/// into the stream's shared strings, which any number of values may make to one text: each
/// shared string is read once, where the walk first meets it, so the cost is linear in the
/// stream however often a long text is referred to.
struct TypedStreamValueWalk {
    let stream: TypedStream
    var references: [Int]
    var edgeStart: [Int32] = []
    var targets: [Int32] = []
    var strings: LargestValues
    var data: LargestValues
    private var pending: [Int] = []
    /// The shared strings already read as C strings' text.
    private var read: Bitmap

    init(stream: TypedStream, objectCount: Int) {
        self.stream = stream
        references = [Int](filledWith: 0, count: objectCount)
        read = Bitmap(count: stream.sharedStrings.count)
        strings = LargestValues(comparing: 2 * stream.storage.count)
        data = LargestValues(comparing: 2 * stream.storage.count)
    }

    /// Walks the values of `group`, which belongs to object `owner` (nil: a top-level group).
    mutating func walk(group: Int, owner: Int?, payloads: inout PayloadScan) {
        let stream = stream
        // Whether the storage holds the same bytes at two ranges.
        let equal = { (a: Range<Int>, b: Range<Int>) in stream.storage[a].elementsEqual(stream.storage[b]) }
        // Considers the text at a range of the storage.
        func note(string range: Range<Int>) {
            let bytes = stream.storage[range]
            strings.consider(length: Self.utf16Length(bytes), at: nil, span: range, equal: equal) { bytes.withUnsafeBufferPointer { ValuePreview.text(utf8: $0) } }
        }
        pending.append(contentsOf: stream.values(ofGroup: group).reversed())
        while let value = pending.popLast() {
            switch stream.content(of: value) {
            case .object(let object?):
                references[object] += 1
                if owner != nil { targets.append(Int32(object)) }
            case .byteString(let span?):
                note(string: span.range)
            case .cString(let index?):
                let shared = Int(stream.cStrings[index])
                guard !read.contains(shared) else { continue }
                read.insert(shared)
                note(string: stream.sharedStrings[shared].range)
            case .byteArray(let span):
                data.consider(length: span.range.count, at: nil, span: span.range, equal: equal) {
                    stream.storage[span.range].withUnsafeBufferPointer { ValuePreview.data($0) }
                }
                stream.storage[span.range].withUnsafeBufferPointer { payloads.consider($0, at: nil) }
            case .array(let children), .structure(let children): pending.append(contentsOf: children.reversed())
            case .pointer(let pointee): pending.append(pointee)
            default: break
            }
        }
    }

    /// The UTF-16 code units of UTF-8 text: one per scalar, two for those beyond U+FFFF.
    static func utf16Length(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : $1 >= 0xF0 ? 2 : 1) }
    }
}
