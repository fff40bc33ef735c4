/// The documents found in one document's data values (`NestedPayload`: a keyed archive, a
/// property list or a typedstream), counted by format. When `expanding` (`?nested=1`,
/// `summary --nested`), each payload is summed up too, its payloads in their turn down to
/// `NestedPayload.maximumNesting` levels, and its counts added to the document's (`found`).
///
/// Cost: a data value is parsed only when its first bytes begin as a document
/// (`NestedPayload.mightBeDocument`); a payload is parsed once per level it is nested in.
struct PayloadScan {
    /// How many payloads the document scanned is itself nested in.
    let nesting: Int
    let expanding: Bool
    /// The payloads' formats and, when expanding, their counts.
    private(set) var found = ArchiveSummary(format: .mixed)

    init(nesting: Int, expanding: Bool) {
        self.nesting = nesting
        self.expanding = expanding
    }

    /// Looks at one data value, met at `location` (nil: a place the summary does not name).
    /// The places of a payload's largest values go on from the data value's (its bytes' member,
    /// named with it), through the wrapper `decode --nested` writes (`$keyedArchive`; the
    /// other kinds' documents are their own wrappers).
    mutating func consider(_ bytes: UnsafeBufferPointer<UInt8>, at location: ArchiveSummary.Location?) {
        guard nesting < NestedPayload.maximumNesting, NestedPayload.mightBeDocument(bytes.prefix(64)),
            let (payload, kind) = NestedPayload.document(Array(bytes))
        else { return }
        var wrapper: [DocumentPath.Step] = []
        switch kind {
        case .keyedArchive:
            found.notePayload(.keyedArchive)
            wrapper.append(.member(String(describing: NestedPayload.keyedArchiveKey)))
        case .propertyList: found.notePayload(.propertyList)
        case .typedStream: found.notePayload(.typedStream)
        }
        guard expanding else { return }
        // One level per payload, at most `maximumNesting` deep: the recursion is bounded.
        var inner = payload.contentSummary(nesting: nesting + 1, expanding: true)
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
