/// What "lossless" means for a plain property list: the same value for value, with its type
/// (integer or real, string or data, date, UID, boolean); dictionaries equal as sets of keys,
/// whatever their order; a real equal bit for bit, so NaNs compare by payload. Walked without
/// recursion.
enum PlainPlistEquivalence {
    /// Where `left` and `right` first differ, as a path and the two values' kinds or texts;
    /// nil when they are equal. Data that are nested payloads are equal when their documents
    /// are (`NestedPayload.equivalent`, `payloadNesting` payloads down).
    static func difference(_ left: BinaryPlist, _ right: BinaryPlist, payloadNesting: Int = 0) -> String? {
        left.withView { l in
            right.withView { r in
                var pending: [(left: Int, right: Int, path: String)] = [(left.topObject, right.topObject, "$")]
                while let (a, b, path) = pending.popLast() {
                    let x = l.header(of: a)
                    let y = r.header(of: b)
                    guard sameKind(x.kind, y.kind) else { return "\(path): \(x.kind) against \(y.kind)" }
                    switch x.kind {
                    case .array:
                        guard x.count == y.count else { return "\(path): \(x.count) elements against \(y.count)" }
                        for index in (0..<x.count).reversed() { pending.append((l.childRef(x, index), r.childRef(y, index), "\(path)[\(index)]")) }
                    case .dict:
                        guard x.count == y.count else { return "\(path): \(x.count) keys against \(y.count)" }
                        var rightKeys: [String: Int] = [:]
                        for index in 0..<y.count { rightKeys[text(r, r.childRef(y, index))] = index }
                        for index in (0..<x.count).reversed() {
                            let key = text(l, l.childRef(x, index))
                            guard let other = rightKeys[key] else { return "\(path): key \(key) only in the first" }
                            pending.append((l.childRef(x, x.count + index), r.childRef(y, y.count + other), "\(path).\(key)"))
                        }
                    case .asciiString, .utf16String:
                        guard text(l, a) == text(r, b) else { return "\(path): \"\(text(l, a))\" against \"\(text(r, b))\"" }
                    case .int:
                        guard l.integer(x) == r.integer(y) else { return "\(path): integers differ" }
                    case .real:
                        guard l.real(x).bitPattern == r.real(y).bitPattern else { return "\(path): \(l.real(x)) against \(r.real(y))" }
                    case .date:
                        let t = l.real(PlistObjectHeader(kind: .real, marker: 0x23, start: x.start, count: 8))
                        let u = r.real(PlistObjectHeader(kind: .real, marker: 0x23, start: y.start, count: 8))
                        guard t.bitPattern == u.bitPattern else { return "\(path): dates \(t) against \(u) (seconds since 2001)" }
                    case .bool:
                        guard l.bool(x) == r.bool(y) else { return "\(path): \(l.bool(x)) against \(r.bool(y))" }
                    case .data:
                        guard NestedPayload.equivalent(l.payload(x), r.payload(y), nesting: payloadNesting) else { return "\(path): data of \(x.count) bytes against \(y.count), or other bytes" }
                    case .uid:
                        guard l.uid(x) == r.uid(y) else { return "\(path): UID \(l.uid(x)) against \(r.uid(y))" }
                    }
                }
                return nil
            }
        }
    }

    /// Strings are equal as text, ASCII or UTF-16 alike.
    private static func sameKind(_ a: PlistKind, _ b: PlistKind) -> Bool {
        let strings: Set<PlistKind> = [.asciiString, .utf16String]
        return a == b || (strings.contains(a) && strings.contains(b))
    }

    private static func text(_ view: BinaryPlistView, _ ref: Int) -> String {
        let header = view.header(of: ref)
        switch header.kind {
        case .asciiString: return String(decoding: view.payload(header), as: UTF8.self)
        case .utf16String:
            let bytes = view.payload(header)
            return String(decoding: (0..<(bytes.count / 2)).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }, as: UTF16.self)
        default: return ""
        }
    }
}
