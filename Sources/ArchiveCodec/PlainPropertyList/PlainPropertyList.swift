/// A property list that is not a keyed archive (preferences, Terminal themes, iMessage edit
/// histories): its readable JSON is `{"$propertyList": value}` with the value wrappers of
/// docs/mapping.md, "Plain property lists", which `PlainPlistEncoder` writes back value for
/// value (integer or real, data or string, dates, UIDs).
public struct PlainPropertyList: Sendable {
    let plist: BinaryPlist
    public let sourceFormat: PlistFormat
    /// A salvaged file's marks (`BinaryPlistSalvage`), by object reference: each is written
    /// `{"$broken": …}` where its object stands. Nil for a file read whole.
    let marks: [Int: BinaryPlistSalvage.Mark]?

    init(plist: BinaryPlist, sourceFormat: PlistFormat, marks: [Int: BinaryPlistSalvage.Mark]? = nil) {
        self.plist = plist
        self.sourceFormat = sourceFormat
        self.marks = marks
    }

    /// The JSON nesting of a mark where a value stands: the mark, its members, `rest`'s `$data`.
    static let markHeight = 3

    /// The readable view's JSON nesting: the envelope, the containers, and the wrapper a leaf
    /// may take (`$data` with its account when `accounts`, `$date`, `$uid`, and `$real` or
    /// `$integer` where `numbers` wraps the value). Found without recursion, each object once (a
    /// binary plist may share objects). Past the thread's `ConversionDeadline` it ends early
    /// with a depth that means nothing: its callers check the deadline after.
    func readableDepth(numbers: NumberWrapping, accounts: Bool = true) -> Int {
        plist.withView { view in
            var height = [Int32](filledWith: -1, count: view.objectCount)
            var stack: [(ref: Int, next: Int)] = [(plist.topObject, 0)]
            var trips = 0
            while let (ref, next) = stack.last {
                trips &+= 1
                if ConversionDeadline.shouldStop(trips) { return 0 }
                if let marks, marks[ref] != nil {
                    height[ref] = Int32(Self.markHeight)
                    stack.removeLast()
                    continue
                }
                let header = view.header(of: ref)
                guard header.kind == .array || header.kind == .dict else {
                    height[ref] = Int32(leafHeight(header, view, numbers: numbers, accounts: accounts))
                    stack.removeLast()
                    continue
                }
                let values = header.kind == .dict ? header.count : 0
                if next < header.count {
                    stack[stack.count - 1].next = next + 1
                    let child = view.childRef(header, values + next)
                    if height[child] < 0 { stack.append((child, 0)) }
                    continue
                }
                var deepest: Int32 = 0
                for index in 0..<header.count { deepest = max(deepest, height[view.childRef(header, values + index)]) }
                height[ref] = deepest + 1
                stack.removeLast()
            }
            return 1 + Int(height[plist.topObject])
        }
    }

    private func leafHeight(_ header: PlistObjectHeader, _ view: BinaryPlistView, numbers: NumberWrapping, accounts: Bool) -> Int {
        switch header.kind {
        case .int: return numbers.wraps(view.integer(header)) ? 1 : 0
        case .real: return numbers.wraps(view.real(header)) ? 1 : 0
        case .date:
            let time = view.real(PlistObjectHeader(kind: .real, marker: 0x23, start: header.start, count: 8))
            return numbers.wrapsTime(time) ? 2 : 1
        case .data: return 1 + (accounts ? DataForm.accountHeight(view.payload(header), numbers) : 0)
        case .uid: return 1
        default: return 0
        }
    }

    /// `{"$propertyList": value}` (readable, data values with their accounts when `accounts`)
    /// or the value alone (raw), handed to `sink` in pieces when there is one; refused past
    /// `KeyedArchive.maximumOutputSize`.
    func render(view: ArchiveView, pretty: Bool, numbers: NumberWrapping, accounts: Bool = true, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let limit = KeyedArchive.maximumOutputSize(forInputSize: plist.bytes.count)
        var output = plist.withView { plistView -> JSONOutput in
            var out = JSONOutput(pretty: pretty, reserve: min(plist.bytes.count * 2, limit), sink: sink)
            out.limit = limit
            let readable = view == .readable
            var writer = PlistValueWriter(view: plistView, out: out, dataKeys: readable, numbers: readable ? numbers : .nonFinite, accounts: readable && accounts, marks: marks)
            if readable {
                writer.out.openObject()
                writer.out.key(MappingKeys.propertyList)
            }
            writer.write(plist.topObject)
            if readable { writer.out.closeObject() }
            return writer.out
        }
        try output.refuseIfUnfinished(
            CodecError(
                .limitExceeded, "the JSON would be larger than \(limit) bytes for a \(plist.bytes.count)-byte property list: it repeats shared values at every reference",
                limit: limit))
        return output.finish()
    }
}
