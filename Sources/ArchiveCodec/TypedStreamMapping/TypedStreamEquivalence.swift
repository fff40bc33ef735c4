/// What "the same graph" means for two typedstreams: the same groups of the same type strings,
/// value for value in stream order, objects of the same class chains (names and versions)
/// shared at the same places, and strings and bytes equal (bytes that are nested payloads
/// equivalent, `NestedPayload.equivalent`). How a number is spelled in the stream is not
/// compared: a stream that spells one unlike Apple's writer reads the same. A byte array's
/// length (in its type, `[582c]`) is part of its bytes, and so is the count before it that
/// states that length (NSData's `{"i": 582}`): a nested payload written back in another
/// layout changes both.
enum TypedStreamEquivalence {
    /// Where `left` and `right` first differ in stream order, as a place in the first one's
    /// JSON (`TypedStreamPathSink`) and both values; nil when they are the same graph. Data
    /// that are nested payloads compare by their documents; where those differ, the place
    /// goes on inside the payload.
    static func difference(_ left: TypedStream, _ right: TypedStream, payloadNesting: Int) -> DocumentDifference? {
        guard left.byteOrder == right.byteOrder else {
            return DocumentDifference(path: .root, detail: "\(left.byteOrder == .big ? "big" : "little")-endian ≠ \(right.byteOrder == .big ? "big" : "little")-endian")
        }
        guard left.systemVersion == right.systemVersion else {
            return DocumentDifference(path: DocumentPath([.mapping(MappingKeys.systemVersion)]), detail: "\(left.systemVersion) ≠ \(right.systemVersion)")
        }
        guard !isSame(left, right, payloadNesting: payloadNesting) else { return nil }
        guard let (targets, detail) = firstInStreamOrder(left, right, payloadNesting: payloadNesting) else {
            return DocumentDifference(
                path: DocumentPath([.mapping(MappingKeys.typedStream)]),
                detail: "\(left.countGroups()) groups of \(left.values.count) values ≠ \(right.countGroups()) groups of \(right.values.count)")
        }
        var sink = TypedStreamPathSink(targets: targets)
        TypedStreamJSONWriter(stream: left).walk(into: &sink)
        let place = sink.found?.path ?? .root
        switch detail {
        case .words(let words):
            return DocumentDifference(path: place, detail: words)
        case .values(let index):
            let shown = (shownValue(left, index), shownValue(right, index))
            switch (left.content(of: index), right.content(of: index)) {
            case (.byteArray(let a), .byteArray(let b)), (.byteString(let a?), .byteString(let b?)):
                var data = place
                data.append(.mapping(MappingKeys.data))
                return NestedPayload.differenceOfData(left.bytes(a), right.bytes(b), nesting: payloadNesting, place: place, data: data, shown: shown)
            default:
                return DocumentDifference(path: place, detail: ShownValue.pair(shown.0, shown.1))
            }
        }
    }

    /// The verdict, table by table: every group's type, every value, and the counts.
    private static func isSame(_ left: TypedStream, _ right: TypedStream, payloadNesting: Int) -> Bool {
        guard left.values.count == right.values.count, left.objects.count == right.objects.count else { return false }
        var classes = ClassChainMatch(leftClasses: left.classes.count)
        for index in left.values.indices where valueDifference(left, right, index, payloadNesting: payloadNesting, classes: &classes) != nil { return false }
        // The values match, so each object holds the same values in both: its groups must
        // start at the same values with the same type strings.
        guard sameGroups(left, right, left.topLevelGroups, right.topLevelGroups) else { return false }
        for object in left.objects.indices where !sameGroups(left, right, left.groups(ofObject: object), right.groups(ofObject: object)) { return false }
        return true
    }

    /// Whether two runs of groups start at the same values with the same type strings.
    private static func sameGroups(_ left: TypedStream, _ right: TypedStream, _ a: TypedStream.Groups, _ b: TypedStream.Groups) -> Bool {
        var (a, b) = (a, b)
        while true {
            let (x, y) = (a.next(), b.next())
            guard x == y else { return false }
            guard let group = x else { return true }
            guard sameGroupType(left, right, group) else { return false }
        }
    }

    private static func sameGroupType(_ left: TypedStream, _ right: TypedStream, _ group: Int) -> Bool {
        let (a, b) = (left.values(ofGroup: group), right.values(ofGroup: group))
        return left.encoding(ofGroup: group).elementsEqual(right.encoding(ofGroup: group))
            || (a.count == 1 && b.count == 1 && sameByteArrayType(left, right, a.lowerBound, b.lowerBound))
    }

    /// What differs at a value: its type or another thing in words, or the two values.
    private enum Detail {
        case words(String)
        case values(Int)
    }

    /// The first group or value of `left` that differs from `right`'s of the same index, in
    /// stream order: the value (a group's first) with the values that hold it, outermost
    /// first, and what differs. Nil when only the counts differ.
    private static func firstInStreamOrder(_ left: TypedStream, _ right: TypedStream, payloadNesting: Int) -> ([Int], Detail)? {
        var walk = TypedStreamWalk(left)
        var holders: [Int] = []
        // Where the right stream's groups start (a group is named by its first value).
        var rightStarts = Bitmap(count: right.values.count)
        right.forEveryGroup { rightStarts.insert($0) }
        var classes = ClassChainMatch(leftClasses: left.classes.count)
        while let step = walk.next() {
            switch step {
            case .group(let group, _):
                guard group < right.values.count else { break }
                guard rightStarts.contains(group) else {
                    let words = "a group of type \(DocumentPath.quoted(text(left.encoding(ofGroup: group)))) against values grouped otherwise"
                    return (holders + [group], .words(words))
                }
                if !sameGroupType(left, right, group) {
                    let words = "type \(DocumentPath.quoted(text(left.encoding(ofGroup: group)))) ≠ \(DocumentPath.quoted(text(right.encoding(ofGroup: group))))"
                    return (holders + [group], .words(words))
                }
            case .value(let index):
                if index < right.values.count, let words = valueDifference(left, right, index, payloadNesting: payloadNesting, classes: &classes) {
                    return (holders + [index], words == typesDiffer ? .words(typeWords(left, right, index)) : .values(index))
                }
                switch left.content(of: index) {
                case .object(let object?) where !left.isBackReference(index):
                    walk.enter(object: object)
                    holders.append(index)
                case .array, .structure, .pointer:
                    walk.enter(childrenOf: index)
                    holders.append(index)
                default: break
                }
            case .endOfObject, .endOfComposite:
                holders.removeLast()
            case .endOfGroup: break
            }
        }
        return nil
    }

    private static let typesDiffer = "types differ"

    private static func typeWords(_ left: TypedStream, _ right: TypedStream, _ index: Int) -> String {
        "type \(DocumentPath.quoted(text(left.encoding(of: index)))) ≠ \(DocumentPath.quoted(index < right.values.count ? text(right.encoding(of: index)) : ""))"
    }

    /// Value `index` shortly, as the JSON spells it (an object by its class).
    private static func shownValue(_ stream: TypedStream, _ index: Int) -> ShownValue {
        func json(_ write: (inout JSONOutput) -> Void) -> ShownValue {
            var out = JSONOutput(pretty: false)
            write(&out)
            return ShownValue(json: String(decoding: out.finish(), as: UTF8.self))
        }
        func textValue(_ bytes: ArraySlice<UInt8>?) -> ShownValue {
            guard let bytes else { return ShownValue(json: "null") }
            let valid = bytes.withUnsafeBufferPointer { UTF8Encoding.firstInvalidOffset($0) == nil }
            return valid ? ShownValue(text: text(bytes)) : ShownValue(bytes: bytes, prefix: "{\"\(MappingKeys.data)\": ", suffix: "}")
        }
        switch stream.content(of: index) {
        case .signed(let value): return ShownValue(json: String(value))
        case .unsigned(let value): return ShownValue(json: String(value))
        case .float(let bits): return json { $0.mappedReal(FloatWidening.double(bits), .nonFinite) }
        case .double(let bits): return json { $0.mappedReal(Double(bitPattern: bits), .nonFinite) }
        case .byteString(let span): return textValue(span.map { stream.bytes($0) })
        case .byteArray(let span): return ShownValue(bytes: stream.bytes(span), prefix: "{\"\(MappingKeys.data)\": ", suffix: "}")
        case .cString(let string): return textValue(string.map { stream.sharedString(Int(stream.cStrings[$0])) })
        case .atom(let string), .selector(let string): return textValue(string.map { stream.sharedString($0) })
        case .classReference(let index?):
            return ShownValue(json: "[" + chain(stream, index).map { "[\(DocumentPath.quoted(text($0.name))), \($0.version)]" }.joined(separator: ", ") + "]")
        case .object(let object?):
            let name = DocumentPath.quoted(text(stream.name(ofClass: Int(stream.objects[object].classIndex))))
            return ShownValue(json: stream.isBackReference(index) ? "{\"\(MappingKeys.reference)\": \(object)} (\(name))" : "{\"\(MappingKeys.className)\": \(name), …}")
        case .classReference(nil), .object(nil), .ignored: return ShownValue(json: "null")
        case .array, .structure, .pointer: return ShownValue(json: "[…]")
        }
    }

    /// Why value `index` differs between the streams (`typesDiffer` for its type), nil when it does not.
    /// Class chains are compared through `classes`, once per pair of classes.
    private static func valueDifference(_ l: TypedStream, _ r: TypedStream, _ index: Int, payloadNesting: Int, classes: inout ClassChainMatch) -> String? {
        guard l.encoding(of: index).elementsEqual(r.encoding(of: index)) || sameByteArrayType(l, r, index, index) else { return typesDiffer }
        switch (l.content(of: index), r.content(of: index)) {
        case (.signed(let a), .signed(let b)) where a != b && index + 1 < l.values.count && index + 1 < r.values.count:
            // The length of the byte array that follows, each its own.
            guard case .byteArray(let x) = l.content(of: index + 1), case .byteArray(let y) = r.content(of: index + 1), a == Int64(x.count), b == Int64(y.count) else {
                return "\(a) against \(b)"
            }
            return nil
        case (.byteString(let a), .byteString(let b)):
            guard let a, let b else { return a == nil && b == nil ? nil : "nil against a string" }
            return NestedPayload.equivalent(l.bytes(a), r.bytes(b), nesting: payloadNesting) ? nil : "strings differ"
        case (.byteArray(let a), .byteArray(let b)):
            return NestedPayload.equivalent(l.bytes(a), r.bytes(b), nesting: payloadNesting) ? nil : "bytes differ"
        case (.cString(let a), .cString(let b)):
            return a.map { l.sharedString(Int(l.cStrings[$0])) } == b.map { r.sharedString(Int(r.cStrings[$0])) } ? nil : "C strings differ"
        case (.atom(let a), .atom(let b)), (.selector(let a), .selector(let b)):
            return a.map { l.sharedString($0) } == b.map { r.sharedString($0) } ? nil : "strings differ"
        case (.classReference(let a), .classReference(let b)):
            guard let a, let b else { return a == nil && b == nil ? nil : "classes differ" }
            return classes.same(l, a, r, b) ? nil : "classes differ"
        case (.object(let a), .object(let b)):
            guard a == b else { return "objects \(a.map(String.init) ?? "nil") against \(b.map(String.init) ?? "nil")" }
            guard let a, !l.isBackReference(index) else { return l.isBackReference(index) == r.isBackReference(index) ? nil : "a reference against a body" }
            guard !r.isBackReference(index) else { return "a body against a reference" }
            let (x, y) = (Int(l.objects[a].classIndex), Int(r.objects[a].classIndex))
            return classes.same(l, x, r, y) ? nil : "object of class \(text(l.name(ofClass: x))) against \(text(r.name(ofClass: y)))"
        case (let a, let b):
            return a == b ? nil : "\(a) against \(b)"
        }
    }

    /// Whether two values are byte arrays of one element type (`[Nc]` or `[NC]`), whatever
    /// their lengths.
    private static func sameByteArrayType(_ l: TypedStream, _ r: TypedStream, _ a: Int, _ b: Int) -> Bool {
        guard l.types.isByteArray(l.values[a].type), r.types.isByteArray(r.values[b].type) else { return false }
        return l.encoding(of: a).suffix(2).elementsEqual(r.encoding(of: b).suffix(2))
    }

    private static func chain(_ stream: TypedStream, _ index: Int) -> [Link] {
        stream.classLinks(index).map { Link(name: Array(stream.name(ofClass: $0)), version: stream.classes[$0].version) }
    }

    private struct Link: Equatable {
        let name: [UInt8]
        let version: Int64
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }
}
