/// What "lossless" means for a plain property list: the same value for value, with its type
/// (integer or real, string or data, date, UID, boolean); dictionaries equal as sets of keys,
/// whatever their order; a real equal bit for bit, so NaNs compare by payload. Walked without
/// recursion.
enum PlainPlistEquivalence {
    /// Where `left` and `right` first differ, as a place in the first one's readable JSON
    /// (`{"$propertyList": …}`: `.$propertyList.rp[0]`) and both values as that JSON spells
    /// them; nil when they are equal. Data that are nested payloads are equal when their
    /// documents are (`NestedPayload.equivalent`, `payloadNesting` payloads down); where they
    /// differ, the place goes on inside the payload. With `wholeSecondDates`, dates need only
    /// agree on the whole second (an XML property list holds no more).
    static func difference(_ left: BinaryPlist, _ right: BinaryPlist, wholeSecondDates: Bool = false, payloadNesting: Int = 0) -> DocumentDifference? {
        left.withView { l in
            right.withView { r in
                // The walk keeps path steps (parent, member or element), named once a difference is found.
                var steps: [(parent: Int, step: DocumentPath.Step)] = [(-1, .member(String(describing: MappingKeys.propertyList)))]
                var pending: [(left: Int, right: Int, at: Int)] = [(left.topObject, right.topObject, 0)]
                func path(_ at: Int) -> DocumentPath {
                    var reversed: [DocumentPath.Step] = []
                    var current = at
                    while current >= 0 {
                        reversed.append(steps[current].step)
                        current = steps[current].parent
                    }
                    return DocumentPath(reversed.reversed())
                }
                func differ(_ a: Int, _ b: Int, _ at: Int) -> DocumentDifference {
                    DocumentDifference(path: path(at), detail: ShownValue.pair(shown(l, a), shown(r, b)))
                }
                while let (a, b, at) = pending.popLast() {
                    let x = l.header(of: a)
                    let y = r.header(of: b)
                    guard sameKind(x.kind, y.kind) else { return differ(a, b, at) }
                    switch x.kind {
                    case .array:
                        guard x.count == y.count else { return DocumentDifference(path: path(at), detail: "\(x.count) elements ≠ \(y.count)") }
                        for index in (0..<x.count).reversed() {
                            steps.append((at, .index(index)))
                            pending.append((l.childRef(x, index), r.childRef(y, index), steps.count - 1))
                        }
                    case .dict:
                        var rightKeys: [String: Int] = [:]
                        for index in 0..<y.count { rightKeys[text(r, r.childRef(y, index))] = index }
                        let leftKeys = (0..<x.count).map { text(l, l.childRef(x, $0)) }
                        guard x.count == y.count, leftKeys.allSatisfy({ rightKeys[$0] != nil }) else {
                            return DocumentDifference(path: path(at), detail: DifferenceNaming.keysDetail(leftKeys, (0..<y.count).map { text(r, r.childRef(y, $0)) }))
                        }
                        for index in (0..<x.count).reversed() {
                            steps.append((at, DocumentPath.dataKey(leftKeys[index])))
                            pending.append((l.childRef(x, x.count + index), r.childRef(y, y.count + rightKeys[leftKeys[index]]!), steps.count - 1))
                        }
                    case .asciiString, .utf16String:
                        guard text(l, a) == text(r, b) else { return differ(a, b, at) }
                    case .int:
                        guard l.integer(x) == r.integer(y) else { return differ(a, b, at) }
                    case .real:
                        guard l.real(x).bitPattern == r.real(y).bitPattern else { return differ(a, b, at) }
                    case .date:
                        let (t, u) = (seconds(l, x), seconds(r, y))
                        guard wholeSecondDates ? t.rounded(.down) == u.rounded(.down) : t.bitPattern == u.bitPattern else { return differ(a, b, at) }
                    case .bool:
                        guard l.bool(x) == r.bool(y) else { return differ(a, b, at) }
                    case .data:
                        guard NestedPayload.equivalent(l.payload(x), r.payload(y), nesting: payloadNesting) else {
                            var data = path(at)
                            data.append(.mapping(MappingKeys.data))
                            return NestedPayload.differenceOfData(
                                l.payload(x), r.payload(y), nesting: payloadNesting, place: path(at), data: data, shown: (shown(l, a), shown(r, b)))
                        }
                    case .uid:
                        guard l.uid(x) == r.uid(y) else { return differ(a, b, at) }
                    }
                }
                return nil
            }
        }
    }

    /// Value `ref` as the readable JSON writes it, containers as `[…]` and `{…}`.
    private static func shown(_ view: BinaryPlistView, _ ref: Int) -> ShownValue {
        let header = view.header(of: ref)
        switch header.kind {
        case .asciiString, .utf16String: return ShownValue(text: text(view, ref))
        case .data: return ShownValue(bytes: view.payload(header), prefix: "{\"$data\": ", suffix: "}")
        case .date: return ShownValue(json: "{\"$date\": \(DifferenceNaming.json(view, header))}")
        case .uid: return ShownValue(json: "{\"$uid\": \(view.uid(header))}")
        case .array: return ShownValue(json: "[…]")
        case .dict: return ShownValue(json: "{…}")
        case .int, .real, .bool: return ShownValue(json: DifferenceNaming.json(view, header))
        }
    }

    private static func seconds(_ view: BinaryPlistView, _ header: PlistObjectHeader) -> Double {
        view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8))
    }

    /// Strings are equal as text, ASCII or UTF-16 alike.
    private static func sameKind(_ a: PlistKind, _ b: PlistKind) -> Bool {
        let strings: Set<PlistKind> = [.asciiString, .utf16String]
        return a == b || (strings.contains(a) && strings.contains(b))
    }

    private static func text(_ view: BinaryPlistView, _ ref: Int) -> String { view.text(of: ref) ?? "" }
}
