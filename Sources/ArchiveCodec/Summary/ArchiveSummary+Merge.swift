/// Summaries put together: several files into one (`merged(with:)`: sums, the deepest nesting,
/// `mixed` when the formats differ), and a nested payload's counts into the document around it
/// (`absorb`). Lists are ordered and cut to their caps again after every merge; what a cut
/// leaves out is added to the counts of what is not listed.
extension ArchiveSummary {
    /// This summary and `other`'s as one, as if the two documents had been summed up together
    /// (the files and bytes add; the nesting is the deeper of the two).
    public func merged(with other: ArchiveSummary) -> ArchiveSummary {
        var result = self
        result.format = format == other.format ? format : .mixed
        result.files += other.files
        result.bytes += other.bytes
        result.readableNesting = max(readableNesting, other.readableNesting)
        result.rawNesting = max(rawNesting, other.rawNesting)
        result.absorb(other)
        return result
    }

    /// Adds the counts of `other` (a payload found in this document, or another file) to this
    /// summary's: objects, sharing, cycles, classes, keys, payloads, containers and the
    /// largest values. Format, files, bytes and nesting stay this summary's.
    mutating func absorb(_ other: ArchiveSummary) {
        objects += other.objects
        shared += other.shared
        cyclic += other.cyclic
        arrays += other.arrays
        dictionaries += other.dictionaries
        classesNotListed += other.classesNotListed
        classes = Self.merged(classes, other.classes, name: \.name) { use, more in
            use.count += more.count
            use.shared += more.shared
            use.cyclic += more.cyclic
            use.keysNotListed += more.keysNotListed
            if use.chain.isEmpty { use.chain = more.chain }
            use.keys = Self.merged(use.keys, more.keys)
        }
        dictionaryKeys = Self.merged(dictionaryKeys, other.dictionaryKeys)
        dictionaryKeysNotListed += other.dictionaryKeysNotListed
        absorbPayloads(other.nestedPayloads)
        for kind in other.dataKinds { noteDataKind(kind.kind, count: kind.count, bytes: kind.bytes) }
        largestStrings = LargestValues.merged(largestStrings, other.largestStrings)
        largestData = LargestValues.merged(largestData, other.largestData)
        capLists()
    }

    /// Counts one payload of `format` found in this document.
    mutating func notePayload(_ format: Format) {
        absorbPayloads([PayloadCount(format: format, count: 1)])
    }

    /// Counts `count` data values of `kind` (`DataKind.Name`'s raw value), `bytes` in all,
    /// keeping `dataKinds` in order: the entry moves up past those it now outnumbers (a list of
    /// at most one entry per kind, so a step costs a few comparisons).
    mutating func noteDataKind(_ kind: String, count: Int = 1, bytes: Int) {
        var index: Int
        if let found = dataKinds.firstIndex(where: { $0.kind == kind }) {
            index = found
            dataKinds[index].count += count
            dataKinds[index].bytes += bytes
        } else {
            dataKinds.append(DataKindCount(kind: kind, count: count, bytes: bytes))
            index = dataKinds.count - 1
        }
        while index > 0, Self.precedes(dataKinds[index], dataKinds[index - 1]) {
            dataKinds.swapAt(index, index - 1)
            index -= 1
        }
    }

    private static func precedes(_ left: DataKindCount, _ right: DataKindCount) -> Bool {
        left.count != right.count ? left.count > right.count : left.kind < right.kind
    }

    private mutating func absorbPayloads(_ payloads: [PayloadCount]) {
        for payload in payloads {
            if let index = nestedPayloads.firstIndex(where: { $0.format == payload.format }) {
                nestedPayloads[index].count += payload.count
            } else {
                nestedPayloads.append(payload)
            }
        }
        nestedPayloads.sort { $0.format < $1.format }
    }

    /// The summary with `file` named as where its largest values were found (those that name
    /// no file yet), for a merge of several files.
    ///
    /// `exactName`: the name's bytes when they are not UTF-8 (a Latin-1 file name), which
    /// `file` as text cannot hold: kept beside it (`fileBase64`), as `decode --ndjson` does.
    public func attributed(to file: String, exactName: [UInt8]? = nil) -> ArchiveSummary {
        var result = self
        for index in largestStrings.indices where largestStrings[index].file == nil {
            result.largestStrings[index].file = file
            result.largestStrings[index].fileBytes = exactName
        }
        for index in largestData.indices where largestData[index].file == nil {
            result.largestData[index].file = file
            result.largestData[index].fileBytes = exactName
        }
        return result
    }

    /// Two lists of a class's keys as one, by key name.
    private static func merged(_ keys: [KeyUse], _ more: [KeyUse]) -> [KeyUse] {
        merged(keys, more, name: \.key) { use, other in
            use.count += other.count
            use.kindsNotListed += other.kindsNotListed
            var kinds: [String: Int] = [:]
            for kind in use.kinds + other.kinds { kinds[kind.kind, default: 0] += kind.count }
            use.kinds = kinds.map { KindCount(kind: $0.key, count: $0.value) }
            use = use.capped()
        }
    }

    /// `list` and `more` as one: an element of `more` whose `name` is in `list` is added to
    /// that one (`add`), any other appended, in order.
    private static func merged<Element>(_ list: [Element], _ more: [Element], name: (Element) -> String, add: (inout Element, Element) -> Void) -> [Element] {
        var result = list
        var position: [String: Int] = [:]
        for (index, element) in result.enumerated() { position[name(element)] = index }
        for element in more {
            guard let index = position[name(element)] else {
                position[name(element)] = result.count
                result.append(element)
                continue
            }
            add(&result[index], element)
        }
        return result
    }

    /// Orders every list (most first, then by name) and cuts it to its cap, counting what is
    /// cut as not listed.
    mutating func capLists() {
        classes.sort { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        if classes.count > Self.listedClasses {
            classesNotListed += classes.count - Self.listedClasses
            classes.removeLast(classes.count - Self.listedClasses)
        }
        for index in classes.indices {
            let (keys, notListed) = Self.capped(classes[index].keys)
            classes[index].keys = keys
            classes[index].keysNotListed += notListed
        }
        let (keys, notListed) = Self.capped(dictionaryKeys)
        dictionaryKeys = keys
        dictionaryKeysNotListed += notListed
        nestedPayloads.sort { $0.format < $1.format }
    }

    /// `keys` ordered and cut to `listedKeys`, and the uses of the keys cut.
    private static func capped(_ keys: [KeyUse]) -> ([KeyUse], Int) {
        let ordered = keys.sorted { $0.count != $1.count ? $0.count > $1.count : $0.key < $1.key }
        guard ordered.count > listedKeys else { return (ordered, 0) }
        return (Array(ordered.prefix(listedKeys)), ordered.dropFirst(listedKeys).reduce(0) { $0 + $1.count })
    }
}

extension ArchiveSummary.KeyUse {
    /// The kinds ordered (most first, then by name) and cut to `listedKinds`, the values of
    /// the kinds cut counted as not listed.
    func capped() -> ArchiveSummary.KeyUse {
        var result = self
        result.kinds.sort { $0.count != $1.count ? $0.count > $1.count : $0.kind < $1.kind }
        if result.kinds.count > ArchiveSummary.listedKinds {
            result.kindsNotListed += result.kinds.dropFirst(ArchiveSummary.listedKinds).reduce(0) { $0 + $1.count }
            result.kinds.removeLast(result.kinds.count - ArchiveSummary.listedKinds)
        }
        return result
    }
}
