/// What "the same graph" means for two typedstreams: the same groups of the same type strings,
/// value for value in stream order, objects of the same class chains (names and versions)
/// shared at the same places, and strings and bytes equal (bytes that are nested payloads
/// equivalent, `NestedPayload.equivalent`). How a number is spelled in the stream is not
/// compared: a stream that spells one unlike Apple's writer reads the same. A byte array's
/// length (in its type, `[582c]`) is part of its bytes, and so is the count before it that
/// states that length (NSData's `{"i": 582}`): a nested payload written back in another
/// layout changes both.
enum TypedStreamEquivalence {
    /// Where `left` and `right` first differ, in words; nil when they are the same graph.
    static func difference(_ left: TypedStream, _ right: TypedStream, payloadNesting: Int) -> String? {
        guard left.byteOrder == right.byteOrder else { return "the byte orders differ" }
        guard left.systemVersion == right.systemVersion else { return "system versions \(left.systemVersion) against \(right.systemVersion)" }
        guard left.groups.count == right.groups.count, left.values.count == right.values.count else {
            return "\(left.groups.count) groups of \(left.values.count) values against \(right.groups.count) of \(right.values.count)"
        }
        for group in left.groups.indices {
            let (a, b) = (left.values(ofGroup: group), right.values(ofGroup: group))
            guard
                left.encoding(ofGroup: group).elementsEqual(right.encoding(ofGroup: group))
                    || (a.count == 1 && b.count == 1 && sameByteArrayType(left, right, a.lowerBound, b.lowerBound))
            else {
                return "group \(group): type \(text(left.encoding(ofGroup: group))) against \(text(right.encoding(ofGroup: group)))"
            }
        }
        for index in left.values.indices {
            if let difference = valueDifference(left, right, index, payloadNesting: payloadNesting) { return "value \(index): \(difference)" }
        }
        return nil
    }

    private static func valueDifference(_ l: TypedStream, _ r: TypedStream, _ index: Int, payloadNesting: Int) -> String? {
        guard l.encoding(of: index).elementsEqual(r.encoding(of: index)) || sameByteArrayType(l, r, index, index) else { return "types differ" }
        switch (l.content(of: index), r.content(of: index)) {
        case (.signed(let a), .signed(let b)) where a != b && index + 1 < l.values.count:
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
            return a.map { chain(l, $0) } == b.map { chain(r, $0) } ? nil : "classes differ"
        case (.object(let a), .object(let b)):
            guard a == b else { return "objects \(a.map(String.init) ?? "nil") against \(b.map(String.init) ?? "nil")" }
            guard let a, !l.isBackReference(index) else { return l.isBackReference(index) == r.isBackReference(index) ? nil : "a reference against a body" }
            guard !r.isBackReference(index) else { return "a body against a reference" }
            let (x, y) = (chain(l, Int(l.objects[a].classIndex)), chain(r, Int(r.objects[a].classIndex)))
            return x == y ? nil : "object of class \(text(x.first?.name ?? [])) against \(text(y.first?.name ?? []))"
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
        stream.classChain(index).map { Link(name: Array(stream.name(ofClass: $0)), version: stream.classes[$0].version) }
    }

    private struct Link: Equatable {
        let name: [UInt8]
        let version: Int64
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }
}
