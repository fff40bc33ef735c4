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
            // The placeholders: each broken entry's, in its place, then one per broken reference.
            var placeholders = Set((0..<damage.objectCount).filter { damage.brokenEntries[$0] >= 0 })
            placeholders.formUnion(damage.objectCount..<(damage.objectCount + damage.brokenReferences.count))
            let archive = try KeyedArchive(plist: repaired, sourceFormat: sourceFormat, parallelism: parallelism, placeholders: placeholders)
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

    /// The 64 fixed nonces a placeholder may take, in the order they are tried: 16 lowercase
    /// hex digits each, from a fixed seed, so a salvage writes the same text every time.
    static let candidates: [UInt64] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<64).map { _ in
            state = state &* 0x2545_F491_4F6C_DD1D &+ 0x1405_7B7E_F767_814F
            return state
        }
    }()

    /// The first of the `candidates` that `bytes` holds after `~brk~` in none of the three
    /// encodings (ASCII, big- or little-endian UTF-16), spelled as its 16 hex digits; nil when
    /// the input holds every one of them.
    ///
    /// One pass over `bytes`, whatever it plants: at each `~`, `~brk~` and 16 hex digits are
    /// read at a stride of one byte and of two (the byte between two UTF-16 characters is not
    /// looked at, so a near miss counts as held: it only rules a nonce out), and a nonce found
    /// among the candidates is marked in a 64-bit set. A `~` costs at most 2 × 20 reads and
    /// nothing is held per occurrence, so an input of planted nonces costs what any input of
    /// its size does (a search per candidate would read it up to 192 times).
    static func nonce(absentFrom bytes: [UInt8]) -> [UInt8]? {
        let candidates = Self.candidates
        var held: UInt64 = 0
        bytes.withUnsafeBufferPointer { buffer in
            let marker: (UInt8, UInt8, UInt8, UInt8) = (UInt8(ascii: "b"), UInt8(ascii: "r"), UInt8(ascii: "k"), UInt8(ascii: "~"))
            for index in buffer.indices where buffer[index] == UInt8(ascii: "~") {
                for step in 1...2 where index + step * 20 < buffer.count {
                    guard buffer[index + step] == marker.0, buffer[index + 2 * step] == marker.1,
                        buffer[index + 3 * step] == marker.2, buffer[index + 4 * step] == marker.3
                    else { continue }
                    var value: UInt64 = 0
                    var digits = 0
                    while digits < 16, let digit = lowercaseHexValue(buffer[index + step * (5 + digits)]) {
                        value = value << 4 | UInt64(digit)
                        digits += 1
                    }
                    if digits == 16, let position = candidates.firstIndex(of: value) { held |= 1 << UInt64(position) }
                }
            }
        }
        guard let position = (0..<candidates.count).first(where: { held & (1 << UInt64($0)) == 0 }) else { return nil }
        return spelled(candidates[position])
    }

    /// `value` as the 16 lowercase hex digits a nonce is written with.
    static func spelled(_ value: UInt64) -> [UInt8] {
        let hex = Array(String(value, radix: 16).utf8)
        return [UInt8](filledWith: UInt8(ascii: "0"), count: 16 - hex.count) + hex
    }

    private static func lowercaseHexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
