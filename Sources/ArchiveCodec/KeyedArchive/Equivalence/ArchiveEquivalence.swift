/// Graph equivalence of two keyed archives: what "lossless" means for a round trip (docs/mapping.md).
extension KeyedArchive {
    /// Describes the first difference between this archive and `other`, or returns nil when
    /// they are equivalent: the same graph reachable from the same `$top` keys, with the same
    /// classes and class chains, keys, plist types and values, inline-versus-reference
    /// placement, sharing and cycles. UID numbers and object order may differ: the walk pairs
    /// the two archives' UIDs one to one and reports any pairing that breaks.
    ///
    /// The description names the place in this archive's readable view and both values
    /// (`DocumentDifference`, `$id 47 .home.name: "Bears" ≠ "Lions"`).
    ///
    /// Iterative (a work list, not recursion), so any depth is safe on any stack.
    ///
    /// With `plistDatesToWholeSeconds`, plist-level dates (not NSDate objects) only need to
    /// agree on the whole second, which is all an XML plist can hold.
    public func difference(from other: KeyedArchive, plistDatesToWholeSeconds: Bool = false) -> String? {
        documentDifference(from: other, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: 0)?.description
    }

    /// The first difference, named (`DifferenceNaming`) only once found: the walk itself keeps
    /// no more than its path steps. `payloadNesting`: how many payloads the two archives are
    /// nested in (`NestedPayload.equivalent`).
    func documentDifference(from other: KeyedArchive, plistDatesToWholeSeconds: Bool = false, payloadNesting: Int) -> DocumentDifference? {
        plist.withView { l in
            other.plist.withView { r in
                var checker = EquivalenceChecker(left: self, right: other, l: l, r: r)
                checker.wholeSecondDates = plistDatesToWholeSeconds
                checker.payloadNesting = payloadNesting
                guard let (mismatch, at) = checker.run() else { return nil }
                return DifferenceNaming(checker: checker).name(mismatch, at: at)
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
    /// A left UID whose pairing ends the walk (`pairingStep`): naming a difference of sharing
    /// asks where the walk first met an object.
    var watched = -1

    /// What differs at a step; plist references or UIDs of the left and right archives.
    enum Mismatch {
        /// The `$top` dictionaries' keys.
        case topKeys([String], [String])
        /// Two plist values of other types, or other values (data: other bytes or payloads).
        case values(Int, Int)
        /// Two plist arrays of other lengths.
        case lengths(Int, Int)
        /// Two plist dictionaries with other keys.
        case keys([String], [String])
        /// UID 0 against another (left and right UIDs).
        case nilAgainstObject(Int, Int)
        /// Left and right UIDs, the left one paired before with another right UID: the left
        /// archive shares it here.
        case sharedInFirst(Int, Int)
        /// Left and right UIDs, the right one paired before with another left UID (the first of
        /// the three): the right archive shares it here.
        case sharedInSecond(Int, Int, Int)
        /// Class instances of other classes (left and right UIDs).
        case classes(Int, Int)
        /// A class instance against a plain dictionary (left and right UIDs).
        case instanceAgainstPlain(Int, Int)
    }

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

    /// Key texts by identity: each key object's text is decoded and hashed once per side, and
    /// dictionaries are compared by the numbers of their keys' texts. A key object that many
    /// dictionaries share (however long its text) costs its length once, not once per
    /// dictionary, and every label that names it shares one copy of the text.
    var keyTexts: [String] = []
    private var keyNumbers: [String: Int] = [:]
    private var leftKeyNumbers: [Int: Int] = [:], rightKeyNumbers: [Int: Int] = [:]

    /// The number of the text of key object `ref` of `v` (the left view when `left`).
    mutating func keyNumber(_ v: BinaryPlistView, _ ref: Int, left: Bool) -> Int {
        if let known = left ? leftKeyNumbers[ref] : rightKeyNumbers[ref] { return known }
        let text = string(v, ref) ?? ""
        let number: Int
        if let known = keyNumbers[text] {
            number = known
        } else {
            number = keyTexts.count
            keyTexts.append(text)
            keyNumbers[text] = number
        }
        if left { leftKeyNumbers[ref] = number } else { rightKeyNumbers[ref] = number }
        return number
    }

    /// A dictionary's entries: its keys' text numbers to their values.
    mutating func dictEntries(_ v: BinaryPlistView, _ ref: Int, left: Bool) -> [Int: Int] {
        let h = v.header(of: ref)
        var result: [Int: Int] = [:]
        for i in 0..<h.count { result[keyNumber(v, v.childRef(h, i), left: left)] = v.childRef(h, h.count + i) }
        return result
    }

    /// The text number of `$class` (one that no key has when no dictionary holds it yet).
    private mutating func classKeyNumber() -> Int {
        let classKey = String(describing: MappingKeys.className)
        if let known = keyNumbers[classKey] { return known }
        keyTexts.append(classKey)
        keyNumbers[classKey] = keyTexts.count - 1
        return keyTexts.count - 1
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

    /// The first mismatch and the step where it stands (−1: the `$top` dictionary); nil when
    /// the archives are equivalent.
    mutating func run() -> (Mismatch, Int)? {
        let lt = dictEntries(l, left.topRef, left: true)
        let rt = dictEntries(r, right.topRef, left: false)
        guard Set(lt.keys) == Set(rt.keys) else {
            return (.topKeys(lt.keys.map { keyTexts[$0] }.sorted(), rt.keys.map { keyTexts[$0] }.sorted()), -1)
        }
        // Children are pushed last first, so the walk meets them in document order.
        for key in lt.keys.sorted(by: { keyTexts[$0] < keyTexts[$1] }).reversed() {
            pending.append((lt[key]!, rt[key]!, step(-1, .top(keyTexts[key]))))
        }
        while let (a, b, path) = pending.popLast() {
            if let problem = compareValue(a, b, path) { return problem }
        }
        return nil
    }

    /// The step at which the walk pairs left UID `uid` (where it first meets that object), by
    /// walking again up to there; nil if it never does.
    func pairingStep(of uid: Int) -> Int? {
        var again = EquivalenceChecker(left: left, right: right, l: l, r: r)
        again.wholeSecondDates = wholeSecondDates
        again.payloadNesting = payloadNesting
        again.watched = uid
        guard let (_, at) = again.run(), again.leftToRight[uid] != nil else { return nil }
        return at
    }

    mutating func step(_ parent: Int, _ label: Label) -> Int {
        steps.append((parent, label))
        return steps.count - 1
    }

    /// Compares two plist values in place (inline), queueing children; a mismatch comes with
    /// its step (an entry's own, below `at`, when the values are UIDs).
    mutating func compareValue(_ a: Int, _ b: Int, _ at: Int) -> (Mismatch, Int)? {
        let ha = l.header(of: a)
        let hb = r.header(of: b)
        func kindClass(_ k: PlistKind) -> PlistKind { k == .utf16String ? .asciiString : k }
        guard kindClass(ha.kind) == kindClass(hb.kind) else { return (.values(a, b), at) }
        switch ha.kind {
        case .uid:
            return compareUID(Int(l.uid(ha)), Int(r.uid(hb)), at)
        case .array:
            guard ha.count == hb.count else { return (.lengths(a, b), at) }
            for i in (0..<ha.count).reversed() { pending.append((l.childRef(ha, i), r.childRef(hb, i), step(at, .index(i)))) }
        case .dict:
            // Left keys in plist order: the walk is the same on every run (`pairingStep`).
            var ea: [(key: Int, value: Int)] = []
            ea.reserveCapacity(ha.count)
            for index in 0..<ha.count { ea.append((keyNumber(l, l.childRef(ha, index), left: true), l.childRef(ha, ha.count + index))) }
            let eb = dictEntries(r, b, left: false)
            guard ea.count == eb.count, ea.allSatisfy({ eb[$0.key] != nil }) else {
                return (.keys(ea.map { keyTexts[$0.key] }.sorted(), eb.keys.map { keyTexts[$0] }.sorted()), at)
            }
            let classKey = classKeyNumber()
            for entry in ea.reversed() where entry.key != classKey { pending.append((entry.value, eb[entry.key]!, step(at, .key(keyTexts[entry.key])))) }
        case .asciiString, .utf16String:
            guard string(l, a) == string(r, b) else { return (.values(a, b), at) }
        case .int:
            guard l.integer(ha) == r.integer(hb) else { return (.values(a, b), at) }
        case .real, .date:
            let x = l.real(PlistObjectHeader(kind: .real, marker: ha.marker, start: ha.start, count: ha.count))
            let y = r.real(PlistObjectHeader(kind: .real, marker: hb.marker, start: hb.start, count: hb.count))
            if ha.kind == .date && wholeSecondDates {
                guard x.rounded(.down) == y.rounded(.down) else { return (.values(a, b), at) }
            } else {
                guard x.bitPattern == y.bitPattern else { return (.values(a, b), at) }
            }
        case .bool:
            guard l.bool(ha) == r.bool(hb) else { return (.values(a, b), at) }
        case .data:
            guard NestedPayload.equivalent(l.payload(ha), r.payload(hb), nesting: payloadNesting) else { return (.values(a, b), at) }
        }
        return nil
    }

    /// Pairs two UIDs; the pairing must stay one-to-one (that is what preserves sharing).
    mutating func compareUID(_ a: Int, _ b: Int, _ at: Int) -> (Mismatch, Int)? {
        if a == 0 || b == 0 { return a == b ? nil : (.nilAgainstObject(a, b), at) }
        if let known = leftToRight[a] { return known == b ? nil : (.sharedInFirst(a, b), at) }
        if let other = rightToLeft[b] { return (.sharedInSecond(other, a, b), at) }
        leftToRight[a] = b
        rightToLeft[b] = a
        if a == watched { return (.sharedInFirst(a, b), at) }
        let ra = left.entryRef(a, l)
        let rb = right.entryRef(b, r)
        let ha = l.header(of: ra)
        let hb = r.header(of: rb)
        if ha.kind == .dict, hb.kind == .dict {
            let ea = dictEntries(l, ra, left: true)
            let eb = dictEntries(r, rb, left: false)
            let classKey = classKeyNumber()
            if let ca = ea[classKey], let cb = eb[classKey] {
                let classA = Int(l.uid(l.header(of: ca)))
                let classB = Int(r.uid(r.header(of: cb)))
                let da = leftClasses[classA] ?? classDescription(left, l, classA)
                let db = rightClasses[classB] ?? classDescription(right, r, classB)
                leftClasses[classA] = da
                rightClasses[classB] = db
                guard da == db else { return (.classes(a, b), at) }
            } else if (ea[classKey] == nil) != (eb[classKey] == nil) {
                return (.instanceAgainstPlain(a, b), at)
            }
        }
        return compareValue(ra, rb, step(at, .uid(a)))
    }
}
