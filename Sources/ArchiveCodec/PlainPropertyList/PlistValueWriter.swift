/// Writes a property list value as JSON: dictionaries as objects, arrays as arrays, strings,
/// numbers and booleans as themselves; UIDs `{"$uid": n}`, data `{"$data": base64}`, dates
/// `{"$date": text}`, NaN and infinities `{"$real": …}`. Two uses, told apart by `dataKeys`:
/// - a plain property list's readable JSON (docs/mapping.md, "Plain property lists"): keys are
///   data keys (a leading `$` doubled), integers may be `{"$integer": "…"}` and data values
///   take their readable forms (`JSONOutput.dataMembers`: text, accounts), so
///   `PlainPlistEncoder` reads every value back;
/// - a keyed archive's raw view, for debugging: keys as they are, not read back.
///
/// Recursive: one level per container, `BinaryPlist.rawDepth` levels in all.
struct PlistValueWriter {
    let view: BinaryPlistView
    var out: JSONOutput
    /// Keys written as data keys (`$` doubled) rather than as they are.
    let dataKeys: Bool
    /// Integers beyond ±(2^53 − 1) written as `{"$integer": "…"}`.
    let numbers: NumberWrapping
    /// Data values with their accounts (`$bookmark`, `$alias`).
    let accounts: Bool
    /// A salvaged file's marks (`BinaryPlistSalvage`): each written in its object's place.
    let marks: [Int: BinaryPlistSalvage.Mark]?

    init(view: BinaryPlistView, out: JSONOutput, dataKeys: Bool = false, numbers: NumberWrapping = .nonFinite, accounts: Bool = false, marks: [Int: BinaryPlistSalvage.Mark]? = nil) {
        self.view = view
        self.out = out
        self.dataKeys = dataKeys
        self.numbers = numbers
        self.accounts = accounts
        self.marks = marks
    }

    mutating func write(_ ref: Int) {
        if out.reachedLimit() { return }
        if let marks, let mark = marks[ref] {
            out.brokenMark(offset: mark.offset, reason: mark.reason, rest: mark.rest)
            return
        }
        let header = view.header(of: ref)
        switch header.kind {
        case .bool: out.bool(view.bool(header))
        case .int: out.mappedInteger(view.integer(header), numbers)
        case .real: out.mappedReal(view.real(header), numbers)
        case .date:
            out.openObject()
            out.key(MappingKeys.date)
            let time = view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8))
            out.mappedTime(time, numbers)
            out.closeObject()
        case .data:
            out.openObject()
            if dataKeys {
                out.dataMembers(view.payload(header), inline: false, accounts: accounts, numbers)
            } else {
                out.key(MappingKeys.data)
                out.base64String(view.payload(header))
            }
            out.closeObject()
        case .asciiString: out.string(utf8: view.payload(header))
        case .utf16String: out.string(utf16BigEndian: view.payload(header))
        case .uid:
            out.openObject()
            out.key(MappingKeys.uid)
            out.uint(view.uid(header))
            out.closeObject()
        case .array:
            out.openArray()
            for index in 0..<header.count { write(view.childRef(header, index)) }
            out.closeArray()
        case .dict:
            out.openObject()
            for index in 0..<header.count where !out.reachedLimit() {
                let value = view.childRef(header, header.count + index)
                // A break where a key belongs: the dictionary's own `$broken` member.
                if let marks, let mark = marks[value], mark.standsForEntry {
                    // In the raw view a key is written as it is: beside a key `$broken` of the
                    // file's, the mark keeps its placeholder key's own text (U+0000 first).
                    if !dataKeys, (0..<header.count).contains(where: { view.isString(view.childRef(header, $0), equalTo: MappingKeys.broken) }) {
                        writeKey(view.header(of: view.childRef(header, index)))
                    } else {
                        out.key(MappingKeys.broken)
                    }
                    out.brokenMarkContent(offset: mark.offset, reason: mark.reason, rest: mark.rest)
                    continue
                }
                writeKey(view.header(of: view.childRef(header, index)))
                write(value)
            }
            out.closeObject()
        }
    }

    private mutating func writeKey(_ key: PlistObjectHeader) {
        switch (key.kind == .utf16String, dataKeys) {
        case (true, true): out.dataKey(utf16BigEndian: view.payload(key))
        case (true, false): out.key(utf16BigEndian: view.payload(key))
        case (false, true): out.dataKey(utf8: view.payload(key))
        case (false, false): out.key(utf8: view.payload(key))
        }
    }

}
