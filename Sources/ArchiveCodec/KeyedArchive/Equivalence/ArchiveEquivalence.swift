/// Graph equivalence of two keyed archives: what "lossless" means for a round trip (docs/mapping.md).
extension KeyedArchive {
    /// Describes the first difference between this archive and `other`, or returns nil when
    /// they are equivalent: the same graph reachable from the same `$top` keys, with the same
    /// classes and class chains, keys, plist types and values, inline-versus-reference
    /// placement, sharing and cycles. UID numbers and object order may differ: the walk pairs
    /// the two archives' UIDs one to one and reports any pairing that breaks.
    ///
    /// Iterative (a work list, not recursion), so any depth is safe on any stack.
    ///
    /// With `plistDatesToWholeSeconds`, plist-level dates (not NSDate objects) only need to
    /// agree on the whole second, which is all an XML plist can hold.
    public func difference(from other: KeyedArchive, plistDatesToWholeSeconds: Bool = false) -> String? {
        difference(from: other, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: 0)
    }

    /// `payloadNesting`: how many payloads the two archives are nested in (`NestedPayload.equivalent`).
    func difference(from other: KeyedArchive, plistDatesToWholeSeconds: Bool = false, payloadNesting: Int) -> String? {
        plist.withView { l in
            other.plist.withView { r in
                var checker = EquivalenceChecker(left: self, right: other, l: l, r: r)
                checker.wholeSecondDates = plistDatesToWholeSeconds
                checker.payloadNesting = payloadNesting
                return checker.run()
            }
        }
    }
}

struct EquivalenceChecker {
    let left: KeyedArchive, right: KeyedArchive
    let l: BinaryPlistView, r: BinaryPlistView
    var leftToRight: [Int: Int] = [:]
    var rightToLeft: [Int: Int] = [:]
    /// Plist refs still to compare, each with the path step that led to it.
    var pending: [(Int, Int, Int)] = []
    /// The walk's path steps; a path is rebuilt from them only to report a difference, since
    /// carrying whole path strings would cost memory quadratic in the depth.
    var steps: [(parent: Int, label: Label)] = []
    var leftClasses: [Int: String] = [:], rightClasses: [Int: String] = [:]
    /// How many payloads the archives are nested in.
    var payloadNesting = 0

    enum Label {
        case top(String)
        case key(String)
        case index(Int)
        case uid(Int)
    }
    var wholeSecondDates = false

    init(left: KeyedArchive, right: KeyedArchive, l: BinaryPlistView, r: BinaryPlistView) {
        self.left = left
        self.right = right
        self.l = l
        self.r = r
    }

    func string(_ v: BinaryPlistView, _ ref: Int) -> String? {
        let h = v.header(of: ref)
        var scalars = String.UnicodeScalarView()
        guard h.kind == .asciiString || h.kind == .utf16String else { return nil }
        ScalarIdentity.forEachScalar(v, h) { scalars.append(Unicode.Scalar($0) ?? "\u{FFFD}") }
        return String(scalars)
    }

    func dictEntries(_ v: BinaryPlistView, _ ref: Int) -> [String: Int] {
        let h = v.header(of: ref)
        var result: [String: Int] = [:]
        for i in 0..<h.count { result[string(v, v.childRef(h, i)) ?? ""] = v.childRef(h, h.count + i) }
        return result
    }

    /// A class dictionary's whole content as text (keys sorted), whatever its shape:
    /// `$classname`, `$classes`, `$classhints` and anything else it holds. Iterative.
    func classDescription(_ archive: KeyedArchive, _ v: BinaryPlistView, _ classUID: Int) -> String {
        var text = ""
        var work: [Int?] = [archive.entryRef(classUID, v)]  // nil closes a container
        while let item = work.popLast() {
            guard let ref = item else {
                text += ")"
                continue
            }
            let h = v.header(of: ref)
            switch h.kind {
            case .dict:
                text += "d("
                work.append(nil)
                let entries = (0..<h.count).map { (key: string(v, v.childRef(h, $0)) ?? "", value: v.childRef(h, h.count + $0)) }
                for entry in entries.sorted(by: { $0.key > $1.key }) {
                    work.append(entry.value)
                    text += entry.key.utf8.count.description + ":" + entry.key + "="
                }
            case .array:
                text += "a("
                work.append(nil)
                for index in (0..<h.count).reversed() { work.append(v.childRef(h, index)) }
            case .asciiString, .utf16String:
                let value = string(v, ref) ?? ""
                text += "s\(value.utf8.count):" + value
            case .uid:
                text += "u"
            default:
                text += "\(h.kind)\(Array(v.payload(h)))"
            }
            text += ","
        }
        return text
    }

    mutating func run() -> String? {
        let lt = dictEntries(l, left.topRef)
        let rt = dictEntries(r, right.topRef)
        guard Set(lt.keys) == Set(rt.keys) else { return "$top keys differ: \(lt.keys.sorted()) vs \(rt.keys.sorted())" }
        for key in lt.keys.sorted() { pending.append((lt[key]!, rt[key]!, step(-1, .top(key)))) }
        while let (a, b, path) = pending.popLast() {
            if let problem = compareValue(a, b, path) { return problem }
        }
        return nil
    }

    mutating func step(_ parent: Int, _ label: Label) -> Int {
        steps.append((parent, label))
        return steps.count - 1
    }

    /// The path of step `index` as text, such as `$top.root→1.next→2.items[3]`.
    func describe(_ index: Int) -> String {
        var labels: [Label] = []
        var current = index
        while current >= 0 {
            labels.append(steps[current].label)
            current = steps[current].parent
        }
        var text = ""
        for label in labels.reversed() {
            switch label {
            case .top(let key): text += "$top.\(key)"
            case .key(let key): text += ".\(key)"
            case .index(let position): text += "[\(position)]"
            case .uid(let uid): text += "→\(uid)"
            }
        }
        return text
    }

    /// Compares two plist values in place (inline), queueing children.
    mutating func compareValue(_ a: Int, _ b: Int, _ at: Int) -> String? {
        var path: String { describe(at) }
        let ha = l.header(of: a)
        let hb = r.header(of: b)
        func kindClass(_ k: PlistKind) -> PlistKind { k == .utf16String ? .asciiString : k }
        guard kindClass(ha.kind) == kindClass(hb.kind) else { return "\(path): plist types differ (\(ha.kind) vs \(hb.kind))" }
        switch ha.kind {
        case .uid:
            return compareUID(Int(l.uid(ha)), Int(r.uid(hb)), at)
        case .array:
            guard ha.count == hb.count else { return "\(path): array lengths differ" }
            for i in 0..<ha.count { pending.append((l.childRef(ha, i), r.childRef(hb, i), step(at, .index(i)))) }
        case .dict:
            let ea = dictEntries(l, a)
            let eb = dictEntries(r, b)
            guard Set(ea.keys) == Set(eb.keys) else { return "\(path): keys differ \(ea.keys.sorted()) vs \(eb.keys.sorted())" }
            for key in ea.keys where key != "$class" { pending.append((ea[key]!, eb[key]!, step(at, .key(key)))) }
        case .asciiString, .utf16String:
            guard string(l, a) == string(r, b) else { return "\(path): strings differ" }
        case .int:
            guard l.integer(ha) == r.integer(hb) else { return "\(path): integers differ" }
        case .real, .date:
            let x = l.real(PlistObjectHeader(kind: .real, marker: ha.marker, start: ha.start, count: ha.count))
            let y = r.real(PlistObjectHeader(kind: .real, marker: hb.marker, start: hb.start, count: hb.count))
            if ha.kind == .date && wholeSecondDates {
                guard x.rounded(.down) == y.rounded(.down) else { return "\(path): dates differ \(x) vs \(y)" }
            } else {
                guard x.bitPattern == y.bitPattern else { return "\(path): reals differ \(x) vs \(y)" }
            }
        case .bool:
            guard l.bool(ha) == r.bool(hb) else { return "\(path): booleans differ" }
        case .data:
            guard NestedPayload.equivalent(l.payload(ha), r.payload(hb), nesting: payloadNesting) else { return "\(path): data differ" }
        }
        return nil
    }

    /// Pairs two UIDs; the pairing must stay one-to-one (that is what preserves sharing).
    mutating func compareUID(_ a: Int, _ b: Int, _ at: Int) -> String? {
        var path: String { describe(at) }
        if a == 0 || b == 0 { return a == b ? nil : "\(path): nil versus an object" }
        if let known = leftToRight[a] { return known == b ? nil : "\(path): sharing differs (UID \(a) already paired with \(known), now \(b))" }
        if rightToLeft[b] != nil { return "\(path): sharing differs (right UID \(b) already paired)" }
        leftToRight[a] = b
        rightToLeft[b] = a
        let ra = left.entryRef(a, l)
        let rb = right.entryRef(b, r)
        let ha = l.header(of: ra)
        let hb = r.header(of: rb)
        if ha.kind == .dict, hb.kind == .dict {
            let ea = dictEntries(l, ra)
            let eb = dictEntries(r, rb)
            if let ca = ea["$class"], let cb = eb["$class"] {
                let classA = Int(l.uid(l.header(of: ca)))
                let classB = Int(r.uid(r.header(of: cb)))
                let da = leftClasses[classA] ?? classDescription(left, l, classA)
                let db = rightClasses[classB] ?? classDescription(right, r, classB)
                leftClasses[classA] = da
                rightClasses[classB] = db
                guard da == db else { return "\(path): classes differ (\(da) vs \(db))" }
            } else if (ea["$class"] == nil) != (eb["$class"] == nil) {
                return "\(path): class instance versus plain dictionary"
            }
        }
        return compareValue(ra, rb, step(at, .uid(a)))
    }
}
