/// Where two documents first differ, named in the first one's readable JSON (`DocumentPath`),
/// and what differs there: both values, shown short (`"Bears" ≠ "Lions"`), or in words
/// (`200 elements ≠ 201`). Its text is `path: detail`, what `archive-tool compare` prints.
struct DocumentDifference: Sendable, Equatable, CustomStringConvertible {
    var path: DocumentPath
    var detail: String

    var description: String { "\(path): \(detail)" }

    /// This difference, found between two payloads of `kind` (`NestedPayload`), seen from the
    /// document around them: `data` is the place of the data value's base64 text (`….$data`,
    /// `….$bytes`), where `decode --nested` writes the payload's document.
    func inPayload(of kind: NestedPayload.Kind, at data: DocumentPath) -> DocumentDifference {
        var outer = data
        if kind.format.payloadIsWrapped { outer.append(.mapping(kind.format.payloadKey)) }
        outer.append(contentsOf: path)
        return DocumentDifference(path: outer, detail: detail)
    }
}

extension NestedPayload {
    /// Where two data values that are not `equivalent` differ inside: their documents'
    /// difference when both are documents of the same kind and format (nil when they are not,
    /// and differ as bytes). `nesting`: how many payloads the values are in.
    static func difference(_ left: some Collection<UInt8>, _ right: some Collection<UInt8>, nesting: Int) -> (kind: Kind, difference: DocumentDifference)? {
        guard nesting < maximumNesting, let (a, kind) = document(Array(left)), let (b, other) = document(Array(right)), kind == other,
            let difference = a.documentDifference(from: b, payloadNesting: nesting + 1)
        else { return nil }
        return (kind, difference)
    }

    /// How two data values at `place` differ: where their payloads differ, seen from `data`
    /// (the place of the values' base64 text, inside `place` or `place` itself), or else
    /// `shown`, both values.
    static func differenceOfData(
        _ left: some Collection<UInt8>, _ right: some Collection<UInt8>, nesting: Int, place: DocumentPath, data: DocumentPath, shown: (ShownValue, ShownValue)
    ) -> DocumentDifference {
        if let (kind, inner) = difference(left, right, nesting: nesting) { return inner.inPayload(of: kind, at: data) }
        return DocumentDifference(path: place, detail: ShownValue.pair(shown.0, shown.1))
    }
}
