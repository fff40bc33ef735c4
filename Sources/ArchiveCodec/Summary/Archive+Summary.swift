extension Archive {
    /// What the document holds (`ArchiveSummary`): counted in passes over its tables, without
    /// recursion and without writing its JSON; linear in the input. Each string and data value
    /// the document holds is read once, however many places refer to it (a plist object; a
    /// typedstream's C string), and a payload in it is counted and summed up once; the largest
    /// values are distinct (equal bytes listed once, at the first place met). A payload is
    /// read once per level it is nested in. The nesting of its readable view is found as a
    /// decode finds it (`depth(of:)`), and measured for the document only, not its payloads.
    ///
    /// `nested`: payloads in data values (`NestedPayload`) are summed up too, recursively, and
    /// their objects, classes, keys, sharing, cycles, containers and largest values counted
    /// with the document's; without it they are only counted by format. The nesting is the
    /// document's own either way.
    ///
    /// `hold` is the caller's memory budget, asked with a payload's bytes before it is read
    /// (its working memory is estimated as for any decode) and with nil once it is let go;
    /// when it says no, the summary is refused with `limitExceeded`. `parallelism`: how the
    /// placement of a keyed archive's readable view may be split (the summary is the same for
    /// every choice).
    public func summary(
        nested: Bool = false, parallelism: Parallelism = .serial, hold: @escaping (_ reading: [UInt8]?) -> Bool = { _ in true }
    ) throws(CodecError) -> ArchiveSummary {
        var (summary, refused) = contentSummary(nesting: 0, expanding: nested, parallelism: parallelism, hold: hold)
        // A pass that met the deadline left its counts short.
        try ConversionDeadline.check()
        guard !refused else { throw CodecError(.limitExceeded, "the nested payloads would take more memory than is free to read them") }
        // A path `DocumentPath` would show with its middle left out, or past the length listed,
        // leads nowhere: none is written.
        func written(_ steps: [DocumentPath.Step]?) -> String? {
            guard let steps, steps.count <= DocumentPath.shownSteps else { return nil }
            let text = DocumentPath(steps).description
            return text.utf8.count <= ArchiveSummary.listedPathLength ? text : nil
        }
        for index in summary.largestStrings.indices { summary.largestStrings[index].path = written(summary.largestStrings[index].steps) }
        for index in summary.largestData.indices { summary.largestData[index].path = written(summary.largestData[index].steps) }
        return summary
    }

    /// The counts of the document and, when `expanding`, of its payloads (the largest values'
    /// places named as steps); `nesting`: how many payloads it is nested in.
    /// `refused`: a payload was refused by `hold` (the counts are incomplete).
    func contentSummary(nesting: Int, expanding: Bool, parallelism: Parallelism = .serial, hold: @escaping PayloadScan.Hold) -> (summary: ArchiveSummary, refused: Bool) {
        var payloads = PayloadScan(nesting: nesting, expanding: expanding, hold: hold)
        var summary = document.summary(payloads: &payloads, parallelism: parallelism, nesting: nesting)
        summary.bytes = inputSize
        return (summary, payloads.refused)
    }
}
