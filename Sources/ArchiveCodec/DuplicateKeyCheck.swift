/// Refuses plist dictionaries that hold the same key twice.
///
/// Apple's writers never produce them, readers disagree on which value wins, and neither
/// JSON view could show both values, so such a dictionary cannot be converted losslessly.
/// Keys are compared as text: an ASCII key and a UTF-16 key with the same characters are
/// the same key. Runs after every object has been validated.
extension BinaryPlistView {
    /// Small dictionaries (the usual archived object) are checked pairwise; larger ones
    /// through a randomly seeded hash, so crafted keys cannot force quadratic work.
    static let pairwiseKeyLimit = 12

    func checkDuplicateKeys() throws(CodecError) {
        for ref in 0..<objectCount where bytes[offset(of: ref)] >> 4 == 0xD {
            let header = header(of: ref)
            if let key = duplicateKey(header) {
                throw CodecError(.malformedPlist, "dictionary object \(ref) holds the key object \(key) twice (or an equal key)",
                                 byteOffset: offset(of: ref))
            }
        }
    }

    /// A key reference that repeats an earlier key of `dict`, if any.
    private func duplicateKey(_ dict: PlistObjectHeader) -> Int? {
        let count = dict.count
        if count < 2 { return nil }
        if count <= Self.pairwiseKeyLimit {
            for second in 1..<count {
                let b = childRef(dict, second)
                for first in 0..<second where sameText(childRef(dict, first), b) { return b }
            }
            return nil
        }
        var byHash: [Int: [Int]] = [:]
        byHash.reserveCapacity(count)
        for index in 0..<count {
            let key = childRef(dict, index)
            var hasher = Hasher()
            forEachUnit(of: key) { hasher.combine($0) }
            let hash = hasher.finalize()
            if let earlier = byHash[hash], earlier.contains(where: { sameText($0, key) }) { return key }
            byHash[hash, default: []].append(key)
        }
        return nil
    }

    /// Whether two validated string objects hold the same UTF-16 code units.
    func sameText(_ a: Int, _ b: Int) -> Bool {
        if a == b { return true }
        let ha = header(of: a), hb = header(of: b)
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
