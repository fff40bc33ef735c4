/// Validates a range of a binary plist's objects (markers, bounds, counts without overflow,
/// references in range, dictionary keys being strings, text encodings) and, in the same
/// pass, gathers what the whole-file checks need, so that no later pass has to read
/// every object again or keep an array as long as the object table:
///
/// - which objects are dictionary keys (the repeated-key check compares their text once);
/// - which objects are referenced by a container once, and which more than once (a file in
///   which no container has two parents, and the top none, holds a tree of containers: no
///   cycle, no expansion larger than the file, and the full walk can be skipped);
/// - which objects hold the text `$class`;
/// - the first dictionary that holds one key object twice (reported only after every object
///   validated, so the first malformed object is still the error a file gets).
///
/// Ranges are independent: a caller may check several at once and merge them in order.
struct ObjectRangeCheck {
    let view: BinaryPlistView
    let range: Range<Int>
    private(set) var keys: Bitmap
    private(set) var referenced: Bitmap
    private(set) var referencedAgain: Bitmap
    private(set) var classKeyRefs: [Int] = []
    /// Arrays, sets and dictionaries in the range.
    private(set) var containerCount = 0
    private(set) var repeatedKey: CodecError?
    /// Key references of the dictionary being checked, when it has too many to compare pairwise.
    private var scratch: [Int] = []
    /// Salvage only (`checkEach`): an element or value reference past the object count is
    /// noted here (its byte offset, the refusal) instead of refusing its container, which
    /// then reads on as if it named object 0. Asked only where a reference fails.
    private(set) var danglingRefs: [(at: Int, error: CodecError)]? = nil
    /// Salvage only: more references past the object count than a salvage marks
    /// (`SalvageLimit.marks`); those past the limit are not noted.
    private(set) var tooManyDangling = false

    /// Where the object area ends: every object lies before it. The file's trailer, unless a
    /// salvage's repaired copy says where its input's ended (`BinaryPlistSalvage`: the copy
    /// appends a table no object of the input may run into).
    let areaEnd: Int

    init(view: BinaryPlistView, range: Range<Int>, areaEnd: Int? = nil) {
        self.view = view
        self.range = range
        self.areaEnd = areaEnd ?? view.bytes.count - 32
        keys = Bitmap(count: view.objectCount)
        referenced = Bitmap(count: view.objectCount)
        referencedAgain = Bitmap(count: view.objectCount)
    }

    mutating func run() throws(CodecError) {
        let bytes = view.bytes
        let limit = bytes.count - 32
        try ConversionDeadline.forEachBlock(of: range) { (block) throws(CodecError) in
            for ref in block {
                // UIDs of 1–8 bytes and integers of 1–8 bytes, most of a keyed archive's objects,
                // are checked here without a call: they lie inside the object area and have
                // nothing else to check or note. Anything else (including the failures of these
                // tests) goes through `check`.
                let position = view.offset(of: ref)
                let marker = bytes[position]
                let size = marker & 0xF8 == 0x80 ? Int(marker & 0x07) &+ 1 : marker & 0xFC == 0x10 ? 1 &<< Int(marker & 0x03) : -1
                if size > 0, position &+ 1 &+ size <= limit { continue }
                try check(ref, WholeFile.self)
            }
        }
    }

    /// Salvage: checks every object of the range on its own, handing each refused one to
    /// `refused` (its reference and the refusal) rather than stopping at the first; element
    /// and value references past the object count are noted (`danglingRefs`), not refused.
    /// Linear, as `run`; the table entries must have been checked first.
    mutating func checkEach(_ refused: (Int, CodecError) -> Void) {
        danglingRefs = []
        for ref in range {
            let noted = danglingRefs?.count ?? 0
            do throws(CodecError) {
                try check(ref, Salvaging.self)
            } catch {
                // A refused container's references stand for nothing.
                danglingRefs?.removeSubrange(noted...)
                refused(ref, error)
            }
        }
    }

    /// The first byte of 0x80 or above in `range`, eight bytes per step where it can.
    @inline(__always)
    private static func firstNonASCII(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Int? {
        var index = range.lowerBound
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        while index + 8 <= range.upperBound {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < range.upperBound {
            if bytes[index] >= 0x80 { return index }
            index += 1
        }
        return nil
    }

    /// Checks that object `ref` lies inside the file with a known marker, that its counts do
    /// not overflow, that its references are in range (dictionary keys being strings), and
    /// that its text is valid; notes what the whole-file checks need.
    private mutating func check<Reading: RangeReading>(_ ref: Int, _ reading: Reading.Type) throws(CodecError) {
        let bytes = view.bytes
        let limit = areaEnd
        let position = view.offset(of: ref)  // in the object area: the table was checked first
        let marker = bytes[position]
        let low = Int(marker & 0x0F)
        func need(_ end: Int) throws(CodecError) {
            guard end <= limit else { throw view.fail("object \(ref) (marker 0x\(String(marker, radix: 16))) runs past the end of the object area", at: position) }
        }
        switch marker >> 4 {
        case 0x0:
            guard marker == 0x08 || marker == 0x09 else {
                throw view.fail("unsupported marker 0x\(String(marker, radix: 16)) (null and fill are not plist values)", at: position)
            }
            return
        case 0x1:
            guard low <= 4 else { throw view.fail("integer of 2^\(low) bytes is not supported", at: position) }
            try need(position + 1 + (1 &<< low))
            if low == 4 {
                let high = view.readBigEndian(at: position + 1, size: 8)
                let lowBits = view.readBigEndian(at: position + 9, size: 8)
                guard high == 0 || (high == UInt64.max && lowBits >> 63 == 1) else {
                    throw view.fail("128-bit integer outside the signed and unsigned 64-bit range", at: position)
                }
            }
            return
        case 0x2:
            guard low == 2 || low == 3 else { throw view.fail("real of 2^\(low) bytes is not supported", at: position) }
            try need(position + 1 + (1 &<< low))
            return
        case 0x3:
            guard marker == 0x33 else { throw view.fail("date marker must be 0x33", at: position) }
            try need(position + 9)
            return
        case 0x8:
            guard low <= 7 else { throw view.fail("UID of \(low + 1) bytes is not supported", at: position) }
            try need(position + 2 + low)
            return
        case 0x4, 0x5, 0x6, 0xA, 0xC, 0xD:
            break
        default:
            throw view.fail("unknown marker 0x\(String(marker, radix: 16))", at: position)
        }
        var start = position + 1
        var count = low
        if low == 0xF {
            try need(start + 1)
            let intMarker = bytes[start]
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw view.fail("object \(ref) has a malformed length (marker 0x\(String(intMarker, radix: 16)))", at: start)
            }
            let size = 1 &<< Int(intMarker & 0x0F)
            try need(start + 1 + size)
            let count64 = view.readBigEndian(at: start + 1, size: size)
            guard count64 <= UInt64(limit) else {
                throw view.fail("object \(ref) claims \(count64) elements", at: start)
            }
            count = Int(count64)
            start += 1 + size
        }
        let refSize = view.refSize
        let elementSize: Int
        switch marker >> 4 {
        case 0x4, 0x5: elementSize = 1
        case 0x6: elementSize = 2
        case 0xD: elementSize = 2 * refSize
        default: elementSize = refSize
        }
        let (length, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow, length <= limit - start else {
            throw view.fail("object \(ref) claims \(count) elements, more than the file holds", at: position)
        }
        switch marker >> 4 {
        case 0x5:
            if let index = Self.firstNonASCII(bytes, in: start..<(start + length)) {
                throw view.fail("ASCII string object \(ref) holds byte 0x\(String(bytes[index], radix: 16))", at: index)
            }
            if count == 6 && view.isString(ref, equalTo: MappingKeys.className) { classKeyRefs.append(ref) }
        case 0x6:
            try validateUTF16(start: start, count: count, ref: ref)
            if count == 6 && view.isString(ref, equalTo: MappingKeys.className) { classKeyRefs.append(ref) }
        case 0xA, 0xC:
            containerCount += 1
            for index in 0..<count {
                let child = try childInRange(start + index * refSize, of: ref, reading)
                referenced.insert(child, notingRepeatsIn: &referencedAgain)
            }
        case 0xD:
            containerCount += 1
            var seen = DistinctKeyCheck()
            for index in 0..<count {
                let at = start + index * refSize
                let key = try childInRange(at, of: ref, reading, key: true)
                // The key may not be validated yet, but its offset is (table checked first).
                let keyMarker = bytes[view.offset(of: key)] >> 4
                guard keyMarker == 0x5 || keyMarker == 0x6 else {
                    throw view.fail("dictionary object \(ref) has a key (object \(key)) that is not a string", at: at)
                }
                keys.insert(key)
                seen.note(key)
            }
            for index in count..<(2 * count) {
                let child = try childInRange(start + index * refSize, of: ref, reading)
                referenced.insert(child, notingRepeatsIn: &referencedAgain)
            }
            if seen.mayRepeat, repeatedKey == nil, let key = repeatedKeyRef(start: start, count: count) {
                repeatedKey = BinaryPlistView.repeatedKeyError(dict: ref, key: key, at: position)
            }
        default:
            break
        }
    }

    /// `key`: a dictionary's key, refused when out of range even in salvage (a key must be
    /// a string); any other reference out of range is noted there (`danglingRefs`) and read
    /// as object 0.
    @inline(__always)
    private mutating func childInRange<Reading: RangeReading>(_ at: Int, of ref: Int, _: Reading.Type, key: Bool = false) throws(CodecError) -> Int {
        let child = Int(truncatingIfNeeded: view.readBigEndian(at: at, size: view.refSize))
        guard child >= 0, child < view.objectCount else {
            let error = view.fail("object \(ref) refers to object \(child); there are \(view.objectCount)", at: at)
            guard Reading.salvages, !key else { throw error }
            if (danglingRefs?.count ?? 0) < SalvageLimit.marks {
                danglingRefs?.append((at, error))
            } else {
                tooManyDangling = true
            }
            return 0
        }
        return child
    }

    private func validateUTF16(start: Int, count: Int, ref: Int) throws(CodecError) {
        let bytes = view.bytes
        var index = 0
        while index < count {
            let unit = UInt16(bytes[start + 2 * index]) << 8 | UInt16(bytes[start + 2 * index + 1])
            if unit >= 0xD800 && unit < 0xDC00 {
                guard index + 1 < count else {
                    throw view.fail("string object \(ref) ends inside a surrogate pair", at: start + 2 * index)
                }
                let next = UInt16(bytes[start + 2 * index + 2]) << 8 | UInt16(bytes[start + 2 * index + 3])
                guard next >= 0xDC00 && next < 0xE000 else {
                    throw view.fail("string object \(ref) has an unpaired high surrogate", at: start + 2 * index)
                }
                index += 2
            } else if unit >= 0xDC00 && unit < 0xE000 {
                throw view.fail("string object \(ref) has an unpaired low surrogate", at: start + 2 * index)
            } else {
                index += 1
            }
        }
    }

    /// A key object the dictionary holds twice, if any (equal text in distinct objects is
    /// the whole-file check's business).
    private mutating func repeatedKeyRef(start: Int, count: Int) -> Int? {
        scratch.removeAll(keepingCapacity: true)
        for index in 0..<count { scratch.append(Int(truncatingIfNeeded: view.readBigEndian(at: start + index * view.refSize, size: view.refSize))) }
        scratch.sort()
        for index in 1..<scratch.count where scratch[index] == scratch[index - 1] { return scratch[index] }
        return nil
    }

    /// Combines checks of consecutive ranges, `self` first.
    mutating func merge(_ later: ObjectRangeCheck) {
        keys.formUnion(later.keys)
        referencedAgain.formUnion(later.referencedAgain)
        referencedAgain.formUnion(intersectionOf: referenced, later.referenced)
        referenced.formUnion(later.referenced)
        classKeyRefs += later.classKeyRefs
        containerCount += later.containerCount
        if repeatedKey == nil { repeatedKey = later.repeatedKey }
    }

    /// Whether the containers reachable from `top` form a tree: no container is referenced
    /// twice and the top is not referenced at all. Then no container contains itself and
    /// the raw view expands to at most one value per object.
    func containersFormTree(top: Int) -> Bool {
        if view.isContainer(top) && referenced.contains(top) { return false }
        return !referencedAgain.contains { view.isContainer($0) }
    }

    /// Whether two distinct key objects hold the same text (then a dictionary could hold an
    /// equal key twice through different objects, and the exact check must run).
    func keyTextsRepeat() -> Bool {
        if let repeated = fewKeyTextsRepeat() { return repeated }
        var firstByHash = ScalarTable()
        var collisions: [UInt64: [Int]] = [:]
        var repeated = false
        keys.forEach { key in
            if repeated { return }
            let hash = ScalarIdentity.valueHash(view, key, .string)
            guard let first = firstByHash.find(tag: 1, bits: hash).map(Int.init) else {
                firstByHash.insert(tag: 1, bits: hash, value: UInt32(key))
                return
            }
            if view.sameText(first, key) || collisions[hash, default: []].contains(where: { view.sameText($0, key) }) {
                repeated = true
            } else {
                collisions[hash, default: []].append(key)
            }
        }
        return repeated
    }

    /// `keyTextsRepeat` compares the keys of a document of at most this many key objects
    /// pair by pair: a small document's (a nested payload's, a dozen keys) costs less so than
    /// the tables the hashed comparison makes.
    private static let fewKeys = 16

    /// `keyTextsRepeat` for at most `fewKeys` key objects: pairwise, lengths first, nothing
    /// allocated; nil when there are more.
    private func fewKeyTextsRepeat() -> Bool? {
        withUnsafeTemporaryAllocation(of: (ref: Int, count: Int).self, capacity: Self.fewKeys) { (found) -> Bool? in
            var count = 0
            let more = keys.contains { key in
                guard count < Self.fewKeys else { return true }
                found[count] = (key, view.header(of: key).count)
                count += 1
                return false
            }
            guard !more else { return nil }
            for second in 0..<count {
                for first in 0..<second where found[first].count == found[second].count {
                    if view.sameText(found[first].ref, found[second].ref) { return true }
                }
            }
            return false
        }
    }
}

/// How `ObjectRangeCheck` reads a range, fixed when its checks are compiled: a whole file's
/// check (`run`) has no salvage branch at all in its loops over references, a salvage
/// (`checkEach`) notes what it cannot read.
private protocol RangeReading {
    static var salvages: Bool { get }
}

private enum WholeFile: RangeReading {
    static var salvages: Bool { false }
}

private enum Salvaging: RangeReading {
    static var salvages: Bool { true }
}
