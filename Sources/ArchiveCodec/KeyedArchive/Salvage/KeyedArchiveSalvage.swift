/// A keyed archive whose object graph is broken, read for salvage (docs/mapping.md, "Salvage"):
/// what cannot be read is found (`KeyedGraphDamage`), the property list is repaired so that it
/// stands for a placeholder there, the repaired archive is read as any archive is
/// (`KeyedArchive`), and its readable view is written with each placeholder replaced by its
/// mark (`SalvagedKeyedArchive`, `BrokenTokenFilter`).
///
/// The placeholder is a string entry of its own per broken entry or reference, whose text
/// (`BrokenToken`) no input holds and no other placeholder has: a string referenced from
/// several places is written at each, never with `$id` (no other entry equals it), so a shared
/// broken entry stands marked at each of its places, and every other value reads as the whole
/// archive has it. The repaired file is the input's bytes unchanged, then the placeholder
/// strings, a UID object per broken reference (naming a new entry, its placeholder), a new
/// `$objects` array (the input's entries, a broken one replaced by its placeholder, then the
/// new entries) and a new offset table of 8-byte entries; the objects repointed are the broken
/// references and `$objects`. Object references keep the input's
/// width: more new objects than it can number are refused, as the binary plist salvage does.
///
/// Refused with the strict read's `refusal`: whatever `KeyedGraphDamage` refuses; a repaired
/// archive the strict read still refuses (damage of a kind not salvaged); no placeholder text
/// absent from the input found in 64 tries. Linear in the file.
enum KeyedArchiveSalvage {
    /// The archive `plist` (read as `sourceFormat`) with its damage marked; `plistMarks`: the
    /// marks of a salvaged binary plist by object reference, `areaEnd`: where the input's
    /// objects end (the offset table's start when it follows them).
    static func salvage(
        _ plist: BinaryPlist, sourceFormat: PlistFormat, plistMarks: [Int: BinaryPlistSalvage.Mark] = [:], areaEnd: Int? = nil, parallelism: Parallelism,
        refusal: CodecError
    ) throws(CodecError) -> SalvagedKeyedArchive {
        let end = areaEnd ?? (plist.offsetTableStart > 8 ? plist.offsetTableStart : plist.bytes.count - 32)
        let found = plist.withView { view in
            KeyedGraphDamage(plist: plist, view: view, knowsOffsets: sourceFormat == .binary, plistMarks: plistMarks, areaEnd: end)
        }
        // The passes finding the damage are linear and cannot stop part way: the deadline is
        // checked after them (the strict read below polls it as it goes).
        try ConversionDeadline.check()
        if let found, found.tooMany { throw SalvageLimit.tooMany }
        guard let damage = found, damage.objectCount + damage.brokenReferences.count < 100_000_000, let nonce = BrokenToken.nonce(absentFrom: plist.bytes) else { throw refusal }
        guard let (bytes, placeholderMarks) = layOut(plist, damage, nonce) else { throw refusal }
        do {
            let repaired = try BinaryPlist(bytes: bytes, parallelism: parallelism)
            let archive = try KeyedArchive(plist: repaired, sourceFormat: sourceFormat, parallelism: parallelism)
            return SalvagedKeyedArchive(
                archive: archive, marks: damage.marks, placeholderMarks: placeholderMarks, token: BrokenToken(nonce: nonce), breaks: damage.reachedMarks)
        } catch {
            guard error.kind == .timedOut || error.kind == .limitExceeded else { throw refusal }
            throw error
        }
    }

    /// The repaired file (above) and, per placeholder, the index of its mark (each place
    /// of an entry or reference has a placeholder of its own, with a text of its own: two
    /// equal strings would be told apart with `$id`); nil when its references would not fit
    /// the input's width.
    private static func layOut(_ plist: BinaryPlist, _ damage: KeyedGraphDamage, _ nonce: [UInt8]) -> (bytes: [UInt8], placeholderMarks: [Int32])? {
        plist.withView { view -> (bytes: [UInt8], placeholderMarks: [Int32])? in
            let refSize = plist.refSize
            let brokenEntries = (0..<damage.objectCount).filter { damage.brokenEntries[$0] >= 0 }
            let total = view.objectCount + brokenEntries.count + 2 * damage.brokenReferences.count
            guard refSize >= 8 || total <= 1 << (8 * refSize) else { return nil }
            var file = Array(plist.bytes[0..<(plist.bytes.count - 32)])
            var offsets = (0..<view.objectCount).map { view.offset(of: $0) }
            offsets.reserveCapacity(total)
            var placeholderMarks: [Int32] = []
            func placeholder(for mark: Int32) -> Int {
                offsets.append(file.count)
                let text = BrokenToken.text(nonce: nonce, index: placeholderMarks.count)
                placeholderMarks.append(mark)
                BinaryPlistWriter.appendMarker(0x50, count: text.count, to: &file)
                file += text
                return offsets.count - 1
            }
            var entryPlaceholders: [Int: Int] = [:]
            for uid in brokenEntries { entryPlaceholders[uid] = placeholder(for: damage.brokenEntries[uid]) }
            let referencePlaceholders = damage.brokenReferences.map { placeholder(for: damage.referenceMarks[$0]!) }
            // A broken reference's object becomes a UID naming its new entry.
            for (number, ref) in damage.brokenReferences.enumerated() {
                offsets[ref] = file.count
                let uid = UInt64(damage.objectCount + number)
                let width = BinaryPlistWriter.byteWidth(uid)
                file.append(0x80 | UInt8(width - 1))
                BinaryPlistWriter.appendBigEndian(uid, size: width, to: &file)
            }
            let objects = view.header(of: damage.objectsRef)
            offsets[damage.objectsRef] = file.count
            BinaryPlistWriter.appendMarker(0xA0, count: damage.objectCount + damage.brokenReferences.count, to: &file)
            for uid in 0..<damage.objectCount {
                let ref = entryPlaceholders[uid] ?? view.childRef(objects, uid)
                BinaryPlistWriter.appendBigEndian(UInt64(ref), size: refSize, to: &file)
            }
            for ref in referencePlaceholders { BinaryPlistWriter.appendBigEndian(UInt64(ref), size: refSize, to: &file) }
            let table = file.count
            for offset in offsets { BinaryPlistWriter.appendBigEndian(UInt64(offset), size: 8, to: &file) }
            file += [0, 0, 0, 0, 0, 0, 8, UInt8(refSize)]
            for value in [offsets.count, plist.topObject, table] { BinaryPlistWriter.appendBigEndian(UInt64(value), size: 8, to: &file) }
            return (file, placeholderMarks)
        }
    }
}

/// The text a salvaged archive's placeholder string holds (`KeyedArchiveSalvage`), written by
/// the readable view as the JSON string `"~brk~<nonce>~<index>"`: `~brk~`, 16 hex digits no
/// input holds (as ASCII, big- or little-endian UTF-16), `~`, the mark's index in 8 digits.
/// `~` is neither escaped in JSON nor in base64's alphabet, and a string of the input is
/// written from its bytes, so only a placeholder is written as this text.
struct BrokenToken: Sendable {
    /// The quoted text up to the index: `"~brk~<nonce>~`.
    let prefix: [UInt8]
    static let digits = 8
    /// The quoted text's length.
    var length: Int { prefix.count + Self.digits + 1 }

    init(nonce: [UInt8]) {
        prefix = Array("\"~brk~".utf8) + nonce + [UInt8(ascii: "~")]
    }

    static func text(nonce: [UInt8], index: Int) -> [UInt8] {
        let number = String(index)
        return Array("~brk~".utf8) + nonce + [UInt8(ascii: "~")] + Array((String(repeating: "0", count: digits - number.count) + number).utf8)
    }

    /// The first of 64 fixed nonces that `bytes` holds in none of the three encodings. One
    /// pass finds whether `bytes` holds `~brk~` in any of them at all (the usual file does not:
    /// then the first nonce is taken without looking further); only a file that does is
    /// searched again per nonce.
    static func nonce(absentFrom bytes: [UInt8]) -> [UInt8]? {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let holdsPrefix = bytes.withUnsafeBufferPointer { buffer -> Bool in
            let prefix = Array("~brk~".utf8)
            var index = 0
            while index < buffer.count {
                if buffer[index] == UInt8(ascii: "~") {
                    for step in 1...2 where index + step * (prefix.count - 1) < buffer.count {
                        if (1..<prefix.count).allSatisfy({ buffer[index + step * $0] == prefix[$0] }) { return true }
                    }
                }
                index += 1
            }
            return false
        }
        for _ in 0..<64 {
            state = state &* 0x2545_F491_4F6C_DD1D &+ 0x1405_7B7E_F767_814F
            let hex = Array(String(state, radix: 16).utf8)
            let nonce = [UInt8](repeating: UInt8(ascii: "0"), count: 16 - hex.count) + hex
            let ascii = Array("~brk~".utf8) + nonce
            let bigEndian: [UInt8] = ascii.flatMap { byte -> [UInt8] in [0, byte] }
            let littleEndian: [UInt8] = ascii.flatMap { byte -> [UInt8] in [byte, 0] }
            if !holdsPrefix || [ascii, bigEndian, littleEndian].allSatisfy({ KeyedArchive.firstIndex(of: $0, in: bytes) == nil }) { return nonce }
        }
        return nil
    }
}
