/// The documents found in one document's data values (`NestedPayload`: a keyed archive, a
/// property list or a typedstream), counted by format; and every data value's kind by its
/// signature (`DataKind`, a few bytes compared), counted with its bytes. When `expanding` (`?nested=1`,
/// `summary --nested`), each payload is summed up too, its payloads in their turn down to
/// `NestedPayload.maximumNesting` levels, and its counts added to the document's (`found`).
///
/// What is counted: payloads, not places. The collectors hand over each data value the
/// document holds once (a plist data object however many keys, containers or entries refer to
/// it; a typedstream's byte array, which stands where it is used), so a payload referred to
/// from many places is one payload, summed up once. The scan also remembers where the bytes of
/// each value it parsed stand: bytes met again (a binary plist's offset table may give several
/// objects the same bytes) are not parsed or counted again.
///
/// Cost: a data value is parsed only when its first bytes begin as a document
/// (`NestedPayload.mightBeDocument`); a payload is parsed once per level it is nested in.
/// Memory: one payload per level is held at a time, each only once `hold` allowed its bytes
/// (the caller's budget, as for a decode of the payload alone); a refusal stops the scan
/// (`refused`) and the summary is refused with it.
struct PayloadScan {
    /// Asked with a payload's bytes before it is parsed, and with nil once it is let go.
    typealias Hold = (_ reading: [UInt8]?) -> Bool

    /// How many payloads the document scanned is itself nested in.
    let nesting: Int
    let expanding: Bool
    let hold: Hold
    /// The payloads' formats and, when expanding, their counts.
    private(set) var found = ArchiveSummary(format: .mixed)
    /// Whether `hold` refused a payload (here or further down): the counts are incomplete.
    private(set) var refused = false
    /// Where the bytes of each value that began as a document stand (few values do).
    private var parsed: Set<Place> = []

    private struct Place: Hashable {
        let start: UnsafeRawPointer?
        let count: Int
    }

    init(nesting: Int, expanding: Bool, hold: @escaping Hold) {
        self.nesting = nesting
        self.expanding = expanding
        self.hold = hold
    }

    /// Looks at one data value, met at `location` (nil: a place the summary does not name).
    /// `bytes` stay where they are for the whole scan (the document's own).
    /// The places of a payload's largest values go on from the data value's (its bytes' member,
    /// named with it), through the wrapper `decode --nested` writes (`$keyedArchive`; the
    /// other kinds' documents are their own wrappers).
    mutating func consider(_ bytes: UnsafeBufferPointer<UInt8>, at location: ArchiveSummary.Location?) {
        if DataKind.mightHaveOne(bytes), let kind = DataKind.name(of: bytes) { found.noteDataKind(kind.rawValue, bytes: bytes.count) }
        guard !refused, nesting < NestedPayload.maximumNesting, NestedPayload.mightBeDocument(bytes.prefix(64)) else { return }
        guard parsed.insert(Place(start: UnsafeRawPointer(bytes.baseAddress), count: bytes.count)).inserted else { return }
        let copy = Array(bytes)
        guard hold(copy) else {
            refused = true
            return
        }
        defer { _ = hold(nil) }
        guard let (payload, kind) = NestedPayload.document(copy) else { return }
        var wrapper: [DocumentPath.Step] = []
        found.notePayload(kind.format.summaryFormat)
        if kind.format.payloadIsWrapped { wrapper.append(.mapping(kind.format.payloadKey)) }
        guard expanding else { return }
        // One level per payload, at most `maximumNesting` deep: the recursion is bounded.
        let (summary, innerRefused) = payload.contentSummary(nesting: nesting + 1, expanding: true, hold: hold)
        var inner = summary
        refused = refused || innerRefused
        // Its values' places go on from this data value's.
        for index in inner.largestStrings.indices { Self.locate(&inner.largestStrings[index], at: location, through: wrapper) }
        for index in inner.largestData.indices { Self.locate(&inner.largestData[index], at: location, through: wrapper) }
        found.absorb(inner)
    }

    private static func locate(_ value: inout ArchiveSummary.LargeValue, at location: ArchiveSummary.Location?, through wrapper: [DocumentPath.Step]) {
        guard let steps = value.steps, let location else {
            value.steps = nil
            return
        }
        var outer = location
        outer.suffix = wrapper + steps
        value.location = outer
        value.steps = nil
    }
}
