/// A binary property list (`bplist00`) validated once on creation: trailer, offset table,
/// every object header and payload bound, every object reference, string encodings, and the
/// absence of containers that contain themselves. Readers then use `BinaryPlistView`, which
/// reads without re-checking bounds.
struct BinaryPlist: @unchecked Sendable {
    let bytes: [UInt8]
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableStart: Int
    /// The objects holding the text `$class`, found while validating.
    let classKeys: ClassKeyRefs
    /// The objects some container refers to more than once in all (the rest have one
    /// referrer at most: e.g. a scalar no two `$objects` entries share).
    let sharedObjects: Bitmap
    /// Arrays, sets and dictionaries in the file.
    let containerCount: Int
    /// Whether no container has two parents (and the top none): each is then reached once.
    var containersFormTree: Bool { measuredRawDepth == nil }
    /// The raw view's depth when validation had to walk the containers to prove they hold
    /// no cycle; nil when they form a tree (the usual file), measured only if asked for.
    private let measuredRawDepth: Int?

    /// Height of the tree below the top object, counting containers (the raw view's depth).
    var rawDepth: Int {
        measuredRawDepth ?? withView { view in (try? view.checkAcyclicAndMeasure(from: topObject)) ?? Int.max }
    }

    /// The raw view expands containers that are shared at the plist level; this bounds the
    /// expansion so a small file cannot ask for an exponentially large answer.
    static func expansionLimit(objectCount: Int) -> Int { 8 * objectCount + 1_000_000 }

    /// `parallelism`: validation runs over ranges of objects, at the same time if it allows.
    init(bytes: [UInt8], parallelism: Parallelism = .serial) throws(CodecError) {
        self.bytes = bytes
        let trailer = bytes.count - 32
        (offsetSize, refSize, objectCount, topObject, offsetTableStart) = try Self.readTrailer(bytes)
        let (objects, refs, top, tableStart, entrySize) = (objectCount, refSize, topObject, offsetTableStart, offsetSize)
        (classKeys, sharedObjects, containerCount, measuredRawDepth) = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> (ClassKeyRefs, Bitmap, Int, Int?) in
            let view = BinaryPlistView(bytes: buffer, tableStart: tableStart, offsetSize: entrySize, refSize: refs, objectCount: objects)
            // Every table entry is checked before any object is read through it.
            let ranges = parallelism.ranges(of: objects)
            let misplaced = parallelism.map(ranges) { view.firstMisplacedOffset(in: $0, areaEnd: trailer) }
            if let ref = misplaced.lazy.compactMap({ $0 }).first {
                let position = view.readBigEndian(at: tableStart + ref * entrySize, size: entrySize)
                throw CodecError(.malformedPlist, "object \(ref) has offset \(position), outside the object area", byteOffset: tableStart + ref * entrySize)
            }
            // The first error in range order, whatever the split.
            let checks = try parallelism.mapOrFirstError(ranges) { (range) throws(CodecError) -> ObjectRangeCheck in
                var check = ObjectRangeCheck(view: view, range: range)
                try check.run()
                return check
            }
            var check = checks[0]
            for later in checks.dropFirst() { check.merge(later) }
            if check.keyTextsRepeat() {
                try view.checkDuplicateKeys()
            } else if let repeated = check.repeatedKey {
                throw repeated
            }
            return (ClassKeyRefs(refs: check.classKeyRefs), check.referencedAgain, check.containerCount, check.containersFormTree(top: top) ? nil : try view.checkAcyclicAndMeasure(from: top))
        }
    }

    /// The trailer of `bytes`, checked: the offset and reference widths, the object count and
    /// top object, where the offset table starts (it fits before the trailer). Without it
    /// nothing in the file can be located, so even salvage refuses a file it does not read.
    static func readTrailer(_ bytes: [UInt8]) throws(CodecError) -> (offsetSize: Int, refSize: Int, objectCount: Int, topObject: Int, offsetTableStart: Int) {
        let length = bytes.count
        guard length <= Int(UInt32.max) else {
            throw CodecError(.limitExceeded, "binary plist larger than 4 GiB", found: length, limit: Int(UInt32.max))
        }
        guard length >= 8 + 32 else {
            throw CodecError(.malformedPlist, "binary plist is truncated: \(length) bytes, the header and trailer alone take 40", byteOffset: length)
        }
        guard bytes.withUnsafeBufferPointer({ JSONText.text(UnsafeBufferPointer(rebasing: $0[0..<6]), equals: "bplist") }) else {
            throw CodecError(.malformedPlist, "missing bplist header", byteOffset: 0)
        }
        let trailer = length - 32
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        let objectCount64 = Self.readBigEndian(bytes, at: trailer + 8, size: 8)
        let top64 = Self.readBigEndian(bytes, at: trailer + 16, size: 8)
        let tableOffset64 = Self.readBigEndian(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize) else {
            throw CodecError(.malformedPlist, "trailer offset size \(offsetSize) is not 1...8", byteOffset: trailer + 6)
        }
        guard (1...8).contains(refSize) else {
            throw CodecError(.malformedPlist, "trailer object reference size \(refSize) is not 1...8", byteOffset: trailer + 7)
        }
        // Every object takes at least one byte, so a count above the file length is a lie.
        guard objectCount64 >= 1, objectCount64 <= UInt64(length) else {
            throw CodecError(.malformedPlist, "trailer claims \(objectCount64) objects in a \(length)-byte file", byteOffset: trailer + 8)
        }
        let objectCount = Int(objectCount64)
        guard top64 < objectCount64 else {
            throw CodecError(.malformedPlist, "trailer top object \(top64) is not below the object count \(objectCount)", byteOffset: trailer + 16)
        }
        let topObject = Int(top64)
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: offsetSize)
        guard tableOffset64 >= 9, tableOffset64 < UInt64(trailer), !overflow,
            Int(tableOffset64) + tableSize <= trailer
        else {
            throw CodecError(.malformedPlist, "offset table (at \(tableOffset64), \(objectCount) × \(offsetSize) bytes) does not fit before the trailer", byteOffset: trailer + 24)
        }
        let offsetTableStart = Int(tableOffset64)
        guard refSize == 8 || objectCount <= 1 << (8 * refSize) else {
            throw CodecError(.malformedPlist, "\(objectCount) objects cannot be addressed with \(refSize)-byte references", byteOffset: trailer + 7)
        }
        return (offsetSize, refSize, objectCount, topObject, offsetTableStart)
    }

    static func readBigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    func withView<R, E: Error>(_ body: (BinaryPlistView) throws(E) -> R) throws(E) -> R {
        try bytes.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try body(BinaryPlistView(bytes: buffer, tableStart: offsetTableStart, offsetSize: offsetSize, refSize: refSize, objectCount: objectCount))
        }
    }
}
