/// A damaged binary plist made readable for salvage (docs/mapping.md, "Salvage"): every object
/// that cannot be read stands aside for a placeholder, and a mark (`Mark`) says what stood
/// there, so that the rest of the file reads as it would whole.
///
/// What is marked, each where it would have stood:
/// - an object whose offset table entry points outside the object area (the mark's offset is
///   the entry's, `rest` its bytes);
/// - an object the validation refuses on its own (a marker it does not know, a length past the
///   object area, an ASCII string holding a byte of 0x80 or above, a UTF-16 string with an
///   unpaired surrogate, a dictionary key out of range or not a string): the mark's offset is
///   the object's, `rest` its bytes (up to the next object any table entry places, or the
///   object area's end);
/// - an array element or dictionary value that names an object past the object count: the
///   reference is marked (its offset and bytes), its container reads on;
/// - a dictionary one of whose keys is marked (a key must be text): the dictionary is marked.
///
/// The repaired file is the input's object area unchanged, one placeholder byte (`0x08`,
/// never written: the writer meets the mark first), a new offset table of 8-byte entries (the
/// input's, those of marked objects pointing at the placeholder, then one per marked
/// reference) and a trailer; it is then validated as any file is (`BinaryPlist.init`), so
/// everything the validation guarantees holds: a repaired file whose containers contain
/// themselves, or a dictionary that holds a key twice, is refused as the input would be.
///
/// Refused still: a trailer or offset table that cannot be read (`BinaryPlist.readTrailer`:
/// nothing can be located without it), more marked references than the input's reference
/// width can address. Linear: one pass over the table, one over the objects (a sort of the
/// offsets bounds each mark's bytes), one over the dictionaries.
enum BinaryPlistSalvage {
    /// What the JSON writes where a marked object stood: `{"$broken": {"offset", "reason",
    /// "rest"}}`, `rest` being the input's bytes there (kept: the repaired copy rewrites a
    /// marked reference's).
    struct Mark: Sendable {
        let offset: Int
        let reason: String
        let rest: ArraySlice<UInt8>
        /// The break came where a dictionary's key belongs (`XMLPlistReader.salvage`): the
        /// mark is written as that dictionary's `$broken` member, after its whole entries,
        /// and the placeholder key beside it is never written.
        var standsForEntry = false
    }

    /// The file repaired and its marks by object reference (in the repaired file); no marks
    /// when nothing was damaged (the caller then had no reason to salvage).
    static func repair(_ bytes: [UInt8], parallelism: Parallelism = .serial) throws(CodecError) -> (plist: BinaryPlist, marks: [Int: Mark]) {
        let (entrySize, refSize, objectCount, top, tableStart) = try BinaryPlist.readTrailer(bytes)
        let areaEnd = bytes.count - 32
        var marks: [Int: Mark] = [:]
        // The input's table entries, those outside the object area marked.
        var offsets = [Int](filledWith: areaEnd, count: objectCount)
        for ref in 0..<objectCount {
            let entry = tableStart + ref * entrySize
            let position = BinaryPlist.readBigEndian(bytes, at: entry, size: entrySize)
            if position >= 8, position < UInt64(areaEnd) {
                offsets[ref] = Int(position)
            } else {
                guard marks.count < SalvageLimit.marks else { throw SalvageLimit.tooMany }
                marks[ref] = Mark(offset: entry, reason: "object \(ref) has offset \(position), outside the object area", rest: bytes[entry..<(entry + entrySize)])
            }
        }
        // Each object's bytes: up to the next offset any entry gives.
        let starts = offsets.sorted()
        func extent(from position: Int) -> Range<Int> {
            var low = 0
            var high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] <= position { low = middle + 1 } else { high = middle }
            }
            return position..<(low < starts.count ? starts[low] : areaEnd)
        }
        var repaired = Array(bytes[0..<areaEnd])
        let placeholder = repaired.count
        repaired.append(0x08)
        func layOut(_ entries: [Int]) -> [UInt8] {
            var file = repaired
            let table = file.count
            for position in entries {
                for shift in stride(from: 56, through: 0, by: -8) { file.append(UInt8(truncatingIfNeeded: position >> shift)) }
            }
            file += [UInt8](filledWith: 0, count: 6) + [8, UInt8(refSize)]
            for value in [entries.count, top, table] {
                for shift in stride(from: 56, through: 0, by: -8) { file.append(UInt8(truncatingIfNeeded: value >> shift)) }
            }
            return file
        }
        var entries = offsets.indices.map { marks[$0] == nil ? offsets[$0] : placeholder }
        // Every object on its own, read through the repaired table.
        var dangling: [(at: Int, error: CodecError)] = []
        // Marks past `SalvageLimit.marks` are not made: the file is refused.
        var tooMany = false
        let firstLayout = layOut(entries)
        firstLayout.withUnsafeBufferPointer { buffer in
            let view = BinaryPlistView(bytes: buffer, tableStart: placeholder + 1, offsetSize: 8, refSize: refSize, objectCount: objectCount)
            var check = ObjectRangeCheck(view: view, range: 0..<objectCount, areaEnd: areaEnd)
            check.checkEach { ref, error in
                guard marks[ref] == nil, !tooMany else { return }
                guard marks.count < SalvageLimit.marks else {
                    tooMany = true
                    return
                }
                marks[ref] = Mark(offset: offsets[ref], reason: error.message, rest: bytes[extent(from: offsets[ref])])
            }
            dangling = check.danglingRefs ?? []
            tooMany = tooMany || check.tooManyDangling
        }
        guard !tooMany, marks.count + dangling.count <= SalvageLimit.marks else { throw SalvageLimit.tooMany }
        for ref in marks.keys { entries[ref] = placeholder }
        // A reference past the count names a new object, marked, in the repaired copy.
        guard refSize == 8 || objectCount + dangling.count <= 1 << (8 * refSize) else {
            throw dangling[0].error
        }
        for (at, error) in dangling {
            let ref = entries.count
            for index in 0..<refSize { repaired[at + index] = UInt8(truncatingIfNeeded: ref >> (8 * (refSize - 1 - index))) }
            entries.append(placeholder)
            marks[ref] = Mark(offset: at, reason: error.message, rest: bytes[at..<(at + refSize)])
        }
        // A dictionary with a marked key is marked.
        var file = layOut(entries)
        let keyless: [(ref: Int, key: Int)] = file.withUnsafeBufferPointer { buffer in
            let view = BinaryPlistView(bytes: buffer, tableStart: placeholder + 1, offsetSize: 8, refSize: refSize, objectCount: entries.count)
            return (0..<objectCount).compactMap { ref in
                guard marks[ref] == nil else { return nil }
                let header = view.header(of: ref)
                guard header.kind == .dict else { return nil }
                return (0..<header.count).lazy.map { view.childRef(header, $0) }.first { marks[$0] != nil }.map { (ref, $0) }
            }
        }
        if !keyless.isEmpty {
            guard marks.count + keyless.count <= SalvageLimit.marks else { throw SalvageLimit.tooMany }
            for (ref, key) in keyless {
                entries[ref] = placeholder
                marks[ref] = Mark(offset: offsets[ref], reason: "dictionary object \(ref) has a key (object \(key)) that could not be read", rest: bytes[extent(from: offsets[ref])])
            }
            file = layOut(entries)
        }
        let plist = try BinaryPlist(bytes: file, parallelism: parallelism)
        return (plist, reached(marks, in: plist))
    }

    /// The marks the top object reaches (a key's mark stands for nothing once its dictionary
    /// is marked; an object nothing refers to is not in the JSON), so that their count is the
    /// count of marks the JSON holds, each shared object once. One visit per object: the
    /// repaired file was validated, its containers hold no cycle.
    private static func reached(_ marks: [Int: Mark], in plist: BinaryPlist) -> [Int: Mark] {
        plist.withView { view in
            var seen = Bitmap(count: view.objectCount)
            var reached: [Int: Mark] = [:]
            var pending = [plist.topObject]
            seen.insert(plist.topObject)
            while let ref = pending.popLast() {
                if let mark = marks[ref] {
                    reached[ref] = mark
                    continue
                }
                let header = view.header(of: ref)
                guard header.kind == .array || header.kind == .dict else { continue }
                for index in (header.kind == .dict ? header.count : 0)..<(header.kind == .dict ? 2 * header.count : header.count) {
                    let child = view.childRef(header, index)
                    if !seen.contains(child) {
                        seen.insert(child)
                        pending.append(child)
                    }
                }
            }
            return reached
        }
    }
}
