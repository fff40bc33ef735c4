@testable import ArchiveCodec
import XCTest

/// Checks that two archives are equivalent as PRODUCT.md defines it: the same graph reachable
/// from the same `$top` keys, with the same classes and chains, keys, plist types and values,
/// inline-versus-reference placement, sharing and cycles. UID numbers may differ: the walk
/// builds a one-to-one map between the two archives' UIDs and fails on any inconsistency.
func assertEquivalent(_ a: [UInt8], _ b: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
    let left = try KeyedArchive(parsing: a)
    let right = try KeyedArchive(parsing: b)
    try left.plist.withView { l in
        try right.plist.withView { r in
            var checker = EquivalenceChecker(left: left, right: right, l: l, r: r)
            if let problem = checker.run() { XCTFail(problem, file: file, line: line) }
        }
    }
}

struct EquivalenceChecker {
    let left: KeyedArchive, right: KeyedArchive
    let l: BinaryPlistView, r: BinaryPlistView
    var leftToRight: [Int: Int] = [:]
    var rightToLeft: [Int: Int] = [:]
    var pending: [(Int, Int, String)] = []  // plist refs to compare, with a path

    init(left: KeyedArchive, right: KeyedArchive, l: BinaryPlistView, r: BinaryPlistView) {
        self.left = left; self.right = right; self.l = l; self.r = r
    }

    func string(_ v: BinaryPlistView, _ ref: Int) -> String? {
        let h = v.header(of: ref)
        var scalars = String.UnicodeScalarView()
        guard h.kind == .asciiString || h.kind == .utf16String else { return nil }
        ScalarIdentity.forEachScalar(v, h) { scalars.append(Unicode.Scalar($0)!) }
        return String(scalars)
    }

    func dictEntries(_ v: BinaryPlistView, _ ref: Int) -> [String: Int] {
        let h = v.header(of: ref)
        var result: [String: Int] = [:]
        for i in 0..<h.count { result[string(v, v.childRef(h, i))!] = v.childRef(h, h.count + i) }
        return result
    }

    func classDescription(_ archive: KeyedArchive, _ v: BinaryPlistView, _ classUID: Int) -> String {
        let entries = dictEntries(v, archive.entryRef(classUID, v))
        let name = string(v, entries["$classname"]!)!
        var chain = "-"
        if let c = entries["$classes"] {
            let h = v.header(of: c)
            chain = (0..<h.count).map { string(v, v.childRef(h, $0))! }.joined(separator: ",")
        }
        return name + "|" + chain
    }

    mutating func run() -> String? {
        let lt = dictEntries(l, left.topRef), rt = dictEntries(r, right.topRef)
        guard Set(lt.keys) == Set(rt.keys) else { return "$top keys differ: \(lt.keys.sorted()) vs \(rt.keys.sorted())" }
        for key in lt.keys.sorted() { pending.append((lt[key]!, rt[key]!, "$top.\(key)")) }
        while let (a, b, path) = pending.popLast() {
            if let problem = compareValue(a, b, path) { return problem }
        }
        return nil
    }

    /// Compares two plist values in place (inline), queueing children.
    mutating func compareValue(_ a: Int, _ b: Int, _ path: String) -> String? {
        let ha = l.header(of: a), hb = r.header(of: b)
        func kindClass(_ k: PlistKind) -> PlistKind { k == .utf16String ? .asciiString : k }
        guard kindClass(ha.kind) == kindClass(hb.kind) else { return "\(path): plist types differ (\(ha.kind) vs \(hb.kind))" }
        switch ha.kind {
        case .uid:
            return compareUID(Int(l.uid(ha)), Int(r.uid(hb)), path)
        case .array:
            guard ha.count == hb.count else { return "\(path): array lengths differ" }
            for i in 0..<ha.count { pending.append((l.childRef(ha, i), r.childRef(hb, i), "\(path)[\(i)]")) }
        case .dict:
            let ea = dictEntries(l, a), eb = dictEntries(r, b)
            guard Set(ea.keys) == Set(eb.keys) else { return "\(path): keys differ \(ea.keys.sorted()) vs \(eb.keys.sorted())" }
            for key in ea.keys where key != "$class" { pending.append((ea[key]!, eb[key]!, "\(path).\(key)")) }
        case .asciiString, .utf16String:
            guard string(l, a) == string(r, b) else { return "\(path): strings differ" }
        case .int:
            guard l.integer(ha) == r.integer(hb) else { return "\(path): integers differ" }
        case .real, .date:
            let x = l.real(PlistObjectHeader(kind: .real, marker: ha.marker, start: ha.start, count: ha.count))
            let y = r.real(PlistObjectHeader(kind: .real, marker: hb.marker, start: hb.start, count: hb.count))
            guard x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) else { return "\(path): reals differ \(x) vs \(y)" }
        case .bool:
            guard l.bool(ha) == r.bool(hb) else { return "\(path): booleans differ" }
        case .data:
            guard l.payload(ha).elementsEqual(r.payload(hb)) else { return "\(path): data differ" }
        }
        return nil
    }

    /// Pairs two UIDs; the pairing must stay one-to-one (that is what preserves sharing).
    mutating func compareUID(_ a: Int, _ b: Int, _ path: String) -> String? {
        if a == 0 || b == 0 { return a == b ? nil : "\(path): nil versus an object" }
        if let known = leftToRight[a] { return known == b ? nil : "\(path): sharing differs (UID \(a) already paired with \(known), now \(b))" }
        if rightToLeft[b] != nil { return "\(path): sharing differs (right UID \(b) already paired)" }
        leftToRight[a] = b
        rightToLeft[b] = a
        let ra = left.entryRef(a, l), rb = right.entryRef(b, r)
        let ha = l.header(of: ra), hb = r.header(of: rb)
        if ha.kind == .dict, hb.kind == .dict {
            let ea = dictEntries(l, ra), eb = dictEntries(r, rb)
            if let ca = ea["$class"], let cb = eb["$class"] {
                let da = classDescription(left, l, Int(l.uid(l.header(of: ca))))
                let db = classDescription(right, r, Int(r.uid(r.header(of: cb))))
                guard da == db else { return "\(path): classes differ (\(da) vs \(db))" }
            } else if (ea["$class"] == nil) != (eb["$class"] == nil) {
                return "\(path): class instance versus plain dictionary"
            }
        }
        return compareValue(ra, rb, path + "→\(a)")
    }
}
