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
        var classIndex: [String: Int] = [:]
        for (index, use) in classes.enumerated() { classIndex[use.name] = index }
        for use in other.classes {
            guard let index = classIndex[use.name] else {
                classIndex[use.name] = classes.count
                classes.append(use)
                continue
            }
            classes[index].count += use.count
            classes[index].shared += use.shared
            classes[index].cyclic += use.cyclic
            classes[index].keysNotListed += use.keysNotListed
            if classes[index].chain.isEmpty { classes[index].chain = use.chain }
            classes[index].keys = Self.merged(classes[index].keys, use.keys)
        }
        dictionaryKeys = Self.merged(dictionaryKeys, other.dictionaryKeys)
        dictionaryKeysNotListed += other.dictionaryKeysNotListed
        absorbPayloads(other.nestedPayloads)
        largestStrings = LargestValues.merged(largestStrings, other.largestStrings)
        largestData = LargestValues.merged(largestData, other.largestData)
        capLists()
    }

    /// Counts one payload of `format` found in this document.
    mutating func notePayload(_ format: Format) {
        absorbPayloads([PayloadCount(format: format, count: 1)])
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
    public func attributed(to file: String) -> ArchiveSummary {
        var result = self
        for index in largestStrings.indices where largestStrings[index].file == nil { result.largestStrings[index].file = file }
        for index in largestData.indices where largestData[index].file == nil { result.largestData[index].file = file }
        return result
    }

    /// Two lists of a class's keys as one, by key name.
    private static func merged(_ keys: [KeyUse], _ more: [KeyUse]) -> [KeyUse] {
        guard !more.isEmpty else { return keys }
        var result = keys
        var index: [String: Int] = [:]
        for (position, use) in result.enumerated() { index[use.key] = position }
        for use in more {
            guard let position = index[use.key] else {
                index[use.key] = result.count
                result.append(use)
                continue
            }
            result[position].count += use.count
            result[position].kindsNotListed += use.kindsNotListed
            var kinds: [String: Int] = [:]
            for kind in result[position].kinds + use.kinds { kinds[kind.kind, default: 0] += kind.count }
            result[position].kinds = kinds.map { KindCount(kind: $0.key, count: $0.value) }
            result[position] = result[position].capped()
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
