/// Writes the raw view: the property list itself as JSON, for debugging. Dicts become
/// objects (keys as they are, not escaped), arrays arrays; UIDs `{"$uid": n}`, data
/// `{"$data": base64}`, dates `{"$date": text}`, NaN and infinities `{"$real": …}`.
/// Recursive: one level per container, `BinaryPlist.rawDepth` levels in all.
struct RawWriter {
    let view: BinaryPlistView
    var out: JSONOutput

    mutating func write(_ ref: Int) {
        if out.reachedLimit() { return }
        let header = view.header(of: ref)
        switch header.kind {
        case .bool: out.bool(view.bool(header))
        case .int:
            let value = view.integer(header)
            if value.isUnsigned { out.uint(value.bits) } else { out.int(Int64(bitPattern: value.bits)) }
        case .real: writeReal(view.real(header))
        case .date:
            out.openObject()
            out.key("$date")
            let time = view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8))
            if let text = DateText.readable(time) { out.rawString(text) } else { writeReal(time) }
            out.closeObject()
        case .data:
            out.openObject()
            out.key("$data")
            out.base64String(view.payload(header))
            out.closeObject()
        case .asciiString: out.string(utf8: view.payload(header))
        case .utf16String: out.string(utf16BigEndian: view.payload(header))
        case .uid:
            out.openObject()
            out.key("$uid")
            out.uint(view.uid(header))
            out.closeObject()
        case .array:
            out.openArray()
            for index in 0..<header.count { write(view.childRef(header, index)) }
            out.closeArray()
        case .dict:
            out.openObject()
            for index in 0..<header.count where !out.reachedLimit() {
                let key = view.header(of: view.childRef(header, index))
                if key.kind == .utf16String {
                    out.key(utf16BigEndian: view.payload(key))
                } else {
                    out.key(utf8: view.payload(key))
                }
                write(view.childRef(header, header.count + index))
            }
            out.closeObject()
        }
    }

    private mutating func writeReal(_ value: Double) {
        if value.isFinite {
            out.real(value)
        } else {
            out.openObject()
            out.key("$real")
            out.string(NonFiniteReal.text(value))
            out.closeObject()
        }
    }
}
