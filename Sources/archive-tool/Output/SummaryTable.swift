import ArchiveCodec

/// A summary as a table for a terminal (`archive-tool summary` on a tty): the totals, then each
/// class with its counts and chain and, indented under it, its keys with their kinds, then
/// the largest values. The same facts as the JSON, for reading.
///
/// Every text from the archives or the command line (class names, chains, keys, kinds, file
/// names, paths, previews) is printed through `TerminalText`, so nothing in an archive reaches
/// the terminal as a control sequence.
enum SummaryTable {
    static func text(of summary: ArchiveSummary) -> String {
        var lines: [String] = []
        let files = summary.files == 1 ? "1 file" : "\(summary.files) files"
        lines.append("\(summary.format.rawValue), \(files), \(summary.bytes) bytes")
        lines.append("objects \(summary.objects), shared \(summary.shared), cyclic \(summary.cyclic)")
        lines.append("nesting: readable \(summary.readableNesting), raw \(summary.rawNesting)")
        if !summary.nestedPayloads.isEmpty {
            lines.append("nested payloads: " + summary.nestedPayloads.map { "\($0.format.rawValue) \($0.count)" }.joined(separator: ", "))
        }
        if !summary.dataKinds.isEmpty {
            lines.append("data kinds: " + summary.dataKinds.map { "\(TerminalText.escaped($0.kind)) \($0.count) (\($0.bytes) bytes)" }.joined(separator: ", "))
        }
        if summary.arrays > 0 || summary.dictionaries > 0 {
            lines.append("containers: arrays \(summary.arrays), dictionaries \(summary.dictionaries)")
        }
        if !summary.classes.isEmpty {
            lines.append("")
            let names = summary.classes.map { TerminalText.escaped($0.name) }
            let width = names.map(\.count).max() ?? 0
            lines.append(pad("class", width) + "   count  shared  cyclic  chain")
            for (use, name) in zip(summary.classes, names) {
                lines.append(
                    pad(name, width) + "  " + number(use.count, 6) + "  " + number(use.shared, 6) + "  " + number(use.cyclic, 6) + "  "
                        + use.chain.map { TerminalText.escaped($0) }.joined(separator: " → "))
                lines += keyLines(use.keys, notListed: use.keysNotListed)
            }
            if summary.classesNotListed > 0 { lines.append("… and \(summary.classesNotListed) classes more") }
        }
        if !summary.dictionaryKeys.isEmpty {
            lines.append("")
            lines.append("dictionary keys")
            lines += keyLines(summary.dictionaryKeys, notListed: summary.dictionaryKeysNotListed)
        }
        for (title, values) in [("largest strings", summary.largestStrings), ("largest data", summary.largestData)] where !values.isEmpty {
            lines.append("")
            lines.append(title)
            for value in values {
                let place = [value.file, value.path].compactMap { $0.map { TerminalText.escaped($0) } }.joined(separator: " ")
                lines.append("  " + number(value.length, 9) + "  " + (place.isEmpty ? "" : place + "  ") + TerminalText.escaped(value.preview, quoted: true))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func keyLines(_ keys: [ArchiveSummary.KeyUse], notListed: Int) -> [String] {
        let names = keys.map { TerminalText.escaped($0.key) }
        let width = names.map(\.count).max() ?? 0
        var lines = zip(keys, names).map { use, name in
            let kinds = use.kinds.map { "\(TerminalText.escaped($0.kind)) \($0.count)" } + (use.kindsNotListed > 0 ? ["others \(use.kindsNotListed)"] : [])
            return "    " + pad(name, width) + "  " + number(use.count, 6) + "  " + kinds.joined(separator: ", ")
        }
        if notListed > 0 { lines.append("    … and \(notListed) uses of keys not listed") }
        return lines
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 0))
    }

    private static func number(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(width - text.count, 0)) + text
    }
}
