extension PlainPropertyList {
    /// The counts of a plain property list (`ArchiveSummary`): each plist object reached from
    /// the top once (a binary plist may refer to one object from several places: it counts as
    /// shared), its arrays and dictionaries, the keys of its dictionaries with the kinds of
    /// their values (`dictionaryKeys`), its largest strings and data values (each named by
    /// the first place it was reached from) and the payloads among the data. A property list
    /// has no classes and, validated, no cycles. Walked with an explicit stack.
    func summary(payloads: inout PayloadScan) -> ArchiveSummary {
        var summary = ArchiveSummary(format: .propertyList)
        // A payload's nesting is not the document's (`absorb` keeps the outer one): not measured.
        if payloads.nesting == 0 {
            summary.readableNesting = readableDepth(numbers: .nonFinite)
            summary.rawNesting = plist.rawDepth
        }
        var tally = SummaryTally()
        var values = LargestPlistValues(documentSize: plist.bytes.count)
        plist.withView { view in
            // Per object reached: the container it was first reached from, and where in it.
            var parent = [Int32](filledWith: -1, count: view.objectCount)
            var position = [Int32](filledWith: 0, count: view.objectCount)
            var reached = Bitmap(count: view.objectCount)
            var pending = [plist.topObject]
            reached.insert(plist.topObject)
            func reach(_ ref: Int, from container: Int, at index: Int) {
                guard !reached.contains(ref) else { return }
                reached.insert(ref)
                parent[ref] = Int32(container)
                position[ref] = Int32(index)
                pending.append(ref)
            }
            while let ref = pending.popLast() {
                // Past the deadline the counts stay short: `Archive.summary` throws instead.
                if ConversionDeadline.shouldStop(summary.objects) { break }
                summary.objects += 1
                if plist.sharedObjects.contains(ref) { summary.shared += 1 }
                let header = view.header(of: ref)
                let location = ArchiveSummary.Location(ref: ref)
                switch header.kind {
                case .asciiString, .utf16String, .data: values.consider(header, view: view, at: location, payloads: &payloads)
                case .array:
                    summary.arrays += 1
                    for index in (0..<header.count).reversed() { reach(view.childRef(header, index), from: ref, at: index) }
                case .dict:
                    summary.dictionaries += 1
                    for index in (0..<header.count).reversed() {
                        let (key, value) = (view.childRef(header, index), view.childRef(header, header.count + index))
                        let kind = SummaryKind(view.header(of: value).kind)
                        tally.noteKey(owner: -1, keyID: key, name: { view.text(of: key) ?? "" }, kind: SummaryTally.kind(kind))
                        reach(value, from: ref, at: index)
                    }
                case .bool, .int, .real, .date, .uid: break
                }
            }
            tally.finish(into: &summary)
            summary.largestStrings = values.strings.entries
            summary.largestData = values.data.entries
            // Nothing found, nothing to add (`absorb` would only sort the sorted lists again).
            if !payloads.found.nestedPayloads.isEmpty || !payloads.found.dataKinds.isEmpty { summary.absorb(payloads.found) }
            // `.$propertyList` and the keys and indices down to the value; data's bytes or text
            // are the member of the object standing there. A path is written only up to
            // `DocumentPath.shownSteps` steps and `ArchiveSummary.listedPathLength` bytes
            // (`Archive.summary`), so the walk up stops past the one, and at a key longer than
            // the other (UTF-16 units, each a byte of UTF-8 or more) before reading its text:
            // a chain of containers as long as the document, under one long key, would
            // otherwise be walked and its key copied at every step, for each value named.
            let place = { (location: ArchiveSummary.Location) -> [DocumentPath.Step]? in
                var steps: [DocumentPath.Step] = []
                let header = view.header(of: location.ref)
                if header.kind == .data { steps.append(.mapping(DataText.isText(view.payload(header)) ? MappingKeys.text : MappingKeys.data)) }
                var current = location.ref
                while parent[current] >= 0 {
                    guard steps.count < DocumentPath.shownSteps else { return nil }
                    let container = view.header(of: Int(parent[current]))
                    let index = Int(position[current])
                    if container.kind == .dict {
                        let key = view.childRef(container, index)
                        guard view.header(of: key).count <= ArchiveSummary.listedPathLength else { return nil }
                        steps.append(DocumentPath.dataKey(view.text(of: key) ?? ""))
                    } else {
                        steps.append(.index(index))
                    }
                    current = Int(parent[current])
                }
                steps.append(.member(String(describing: MappingKeys.propertyList)))
                return steps.reversed()
            }
            LargestValues.name(&summary.largestStrings, place)
            LargestValues.name(&summary.largestData, place)
        }
        return summary
    }
}
