/// Refuses plist dictionaries that hold the same key twice.
///
/// Apple's writers never produce them, readers disagree on which value wins, and neither
/// JSON view could show both values, so such a dictionary cannot be converted losslessly.
/// Keys are compared as text: an ASCII key and a UTF-16 key with the same characters are
/// the same key. Runs after every object has been validated.
extension BinaryPlistView {
    /// The exact check, run when two distinct key objects hold equal text (`ObjectRangeCheck`
    /// finds keys repeated by reference in every other file).
    /// Every key object gets a text class once (equal text, equal class), found by a randomly
    /// seeded hash and confirmed by comparison; dictionaries then compare classes, not text.
    /// So the work is proportional to the distinct key objects' bytes plus the keys, however
    /// many dictionaries share long keys.
    func checkDuplicateKeys() throws(CodecError) {
        var classOfKey = [Int32](filledWith: -1, count: objectCount)
        var classesByHash: [Int: [(ref: Int, textClass: Int)]] = [:]
        var seen = Set<Int>()
        try ConversionDeadline.forEachBlock(of: 0..<objectCount) { (block) throws(CodecError) in
            for ref in block where bytes[offset(of: ref)] >> 4 == 0xD {
                let dict = header(of: ref)
                guard dict.count >= 2 else { continue }
                if dict.count > 12 { seen.reuse(forAbout: dict.count) }
                for index in 0..<dict.count {
                    let key = childRef(dict, index)
                    let textClass: Int
                    if classOfKey[key] >= 0 {
                        textClass = Int(classOfKey[key])
                    } else {
                        var hasher = Hasher()
                        forEachUnit(of: key) { hasher.combine($0) }
                        let hash = hasher.finalize()
                        if let match = classesByHash[hash]?.first(where: { sameText($0.ref, key) }) {
                            textClass = match.textClass
                        } else {
                            textClass = key
                            classesByHash[hash, default: []].append((key, key))
                        }
                        classOfKey[key] = Int32(textClass)
                    }
                    // Small dictionaries (the usual archived object) compare their few classes
                    // directly; larger ones use a set.
                    let repeated =
                        dict.count <= 12
                        ? (0..<index).contains { classOfKey[childRef(dict, $0)] == Int32(textClass) }
                        : !seen.insert(textClass).inserted
                    guard !repeated else { throw Self.repeatedKeyError(dict: ref, key: key, at: offset(of: ref)) }
                }
            }
        }
    }

    static func repeatedKeyError(dict: Int, key: Int, at offset: Int) -> CodecError {
        CodecError(.malformedPlist, "dictionary object \(dict) holds the key object \(key) twice (or an equal key)", byteOffset: offset)
    }

    /// Whether two validated string objects hold the same UTF-16 code units.
    func sameText(_ a: Int, _ b: Int) -> Bool {
        if a == b { return true }
        let ha = header(of: a)
        let hb = header(of: b)
        guard ha.count == hb.count else { return false }
        for index in 0..<ha.count where unit(ha, index) != unit(hb, index) { return false }
        return true
    }

    @inline(__always)
    private func unit(_ header: PlistObjectHeader, _ index: Int) -> UInt16 {
        if header.kind == .asciiString { return UInt16(bytes[header.start + index]) }
        return UInt16(bytes[header.start + 2 * index]) << 8 | UInt16(bytes[header.start + 2 * index + 1])
    }

    private func forEachUnit(of ref: Int, _ body: (UInt16) -> Void) {
        let header = header(of: ref)
        for index in 0..<header.count { body(unit(header, index)) }
    }
}
