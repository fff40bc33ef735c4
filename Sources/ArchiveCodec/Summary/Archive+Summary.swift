extension Archive {
    /// What the document holds (`ArchiveSummary`): counted in passes over its tables, without
    /// recursion and without writing its JSON; linear in the input (a payload is read once per
    /// level it is nested in). The nesting of its readable view is found as a decode finds it
    /// (`depth(of:)`): a front end refuses a summary whose readable view its stack would refuse
    /// to write, as it refuses the decode.
    ///
    /// `nested`: payloads in data values (`NestedPayload`) are summed up too, recursively, and
    /// their objects, classes, keys, sharing, cycles, containers and largest values counted
    /// with the document's; without it they are only counted by format. The nesting is the
    /// document's own either way.
    public func summary(nested: Bool = false) -> ArchiveSummary {
        var summary = contentSummary(nesting: 0, expanding: nested)
        for index in summary.largestStrings.indices { summary.largestStrings[index].path = summary.largestStrings[index].steps.map { DocumentPath($0).description } }
        for index in summary.largestData.indices { summary.largestData[index].path = summary.largestData[index].steps.map { DocumentPath($0).description } }
        return summary
    }

    /// The counts of the document and, when `expanding`, of its payloads (the largest values'
    /// places named as steps); `nesting`: how many payloads it is nested in.
    func contentSummary(nesting: Int, expanding: Bool) -> ArchiveSummary {
        var payloads = PayloadScan(nesting: nesting, expanding: expanding)
        var summary: ArchiveSummary
        switch content {
        case .keyedArchive(let archive): summary = archive.summary(payloads: &payloads)
        case .propertyList(let list): summary = list.summary(payloads: &payloads)
        case .typedStream(let document):
            summary = document.stream.summary(payloads: &payloads)
            summary.readableNesting = document.depth(numbers: .nonFinite)
            summary.rawNesting = summary.readableNesting
        }
        summary.bytes = inputSize
        return summary
    }
}
