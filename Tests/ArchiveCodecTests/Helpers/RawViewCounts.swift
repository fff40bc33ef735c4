@testable import ArchiveCodec

/// What a keyed archive holds, counted by the tests from its raw view (`view: .raw`, read with
/// `TestJSON`) rather than by the summary's collector: the independent side of the summary's
/// count tests. Small archives only (finding cycles here is quadratic).
struct RawViewCounts {
    struct ClassCounts: Equatable {
        var chain: [String] = []
        var count = 0
        var shared = 0
        var cyclic = 0
        /// key → kind → values.
        var keys: [String: [String: Int]] = [:]
    }

    var objects = 0
    var shared = 0
    var cyclic = 0
    var classes: [String: ClassCounts] = [:]
    /// The UTF-16 lengths of the strings that are values (entries, and inline values in
    /// entries), longest first; the byte lengths of the data values. Each distinct value
    /// once: the raw view writes a plist object at every place that refers to it, and in
    /// these files equal values are one plist object (Apple's writer, the test builder and
    /// the XML reader intern them), which the summary lists once.
    var stringLengths: [Int] = []
    var dataLengths: [Int] = []

    init(rawView bytes: [UInt8]) {
        let document = TestJSON.parse(bytes)
        let entries = document["$objects"]!.elements!
        objects = entries.count - 1
        func uid(_ value: TestJSON) -> Int? {
            guard case .object(let members) = value, members.count == 1, members[0].key == "$uid" else { return nil }
            return members[0].value.integer
        }
        func isInstance(_ entry: TestJSON) -> Bool { entry["$class"] != nil }
        func className(_ entry: TestJSON) -> String { entries[uid(entry["$class"]!)!]["$classname"]!.text! }
        func kind(_ value: TestJSON) -> String {
            switch value {
            case .object(let members):
                if members.count == 1 {
                    switch members[0].key {
                    case "$uid": return "uid"
                    case "$data": return "data"
                    case "$date": return "date"
                    case "$real": return "real"
                    default: break
                    }
                }
                return "dictionary"
            case .array: return "array"
            case .string: return "string"
            case .number(let text): return text.contains(where: { ".eE".contains($0) }) ? "real" : "integer"
            case .bool: return "boolean"
            case .null: return "null"
            }
        }
        func kindOfKeyValue(_ value: TestJSON) -> String {
            guard let target = uid(value) else { return kind(value) }
            if target == 0 { return "null" }
            return isInstance(entries[target]) ? className(entries[target]) : kind(entries[target])
        }
        var (seenStrings, seenData) = (Set<String>(), Set<String>())
        /// The UIDs in `value`, and its strings and data, walked whole.
        func visit(_ value: TestJSON, uids: inout [Int], values: Bool) {
            if let target = uid(value) {
                uids.append(target)
                return
            }
            switch value {
            case .object(let members):
                if values, members.count == 1, members[0].key == "$data", let text = members[0].value.text {
                    guard seenData.insert(text).inserted else { return }
                    dataLengths.append(text.utf8.count / 4 * 3 - text.utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count)
                    return
                }
                for member in members { visit(member.value, uids: &uids, values: values) }
            case .array(let items): for item in items { visit(item, uids: &uids, values: values) }
            case .string(let text): if values, seenStrings.insert(text).inserted { stringLengths.append(text.utf16.count) }
            default: break
            }
        }
        var references = [Int](repeating: 0, count: entries.count)
        var edges = [[Int]](repeating: [], count: entries.count)
        var top: [Int] = []
        visit(document["$top"]!, uids: &top, values: false)
        for target in top { references[target] += 1 }
        for (number, entry) in entries.enumerated() where number > 0 {
            // Class entries are not values; `$class` is not a reference.
            if entry["$classname"] != nil { continue }
            var uids: [Int] = []
            if case .object(let members) = entry, isInstance(entry) {
                for member in members where member.key != "$class" { visit(member.value, uids: &uids, values: true) }
            } else {
                visit(entry, uids: &uids, values: true)
            }
            edges[number] = uids
            for target in uids { references[target] += 1 }
        }
        stringLengths.sort(by: >)
        dataLengths.sort(by: >)
        var onCycle = [Bool](repeating: false, count: entries.count)
        for start in 1..<entries.count {
            var seen = Set<Int>()
            var pending = edges[start]
            while let next = pending.popLast() {
                if next == start {
                    onCycle[start] = true
                    break
                }
                if seen.insert(next).inserted { pending += edges[next] }
            }
        }
        for number in 1..<entries.count {
            if references[number] > 1 { shared += 1 }
            if onCycle[number] { cyclic += 1 }
            let entry = entries[number]
            guard isInstance(entry), case .object(let members) = entry else { continue }
            let name = className(entry)
            var counts = classes[name] ?? ClassCounts()
            counts.chain = entries[uid(entry["$class"]!)!]["$classes"]?.elements?.compactMap(\.text) ?? []
            counts.count += 1
            if references[number] > 1 { counts.shared += 1 }
            if onCycle[number] { counts.cyclic += 1 }
            for member in members where member.key != "$class" {
                counts.keys[member.key, default: [:]][kindOfKeyValue(member.value), default: 0] += 1
            }
            classes[name] = counts
        }
    }

    /// The summary's classes in this shape, for comparison.
    static func classes(of summary: ArchiveSummary) -> [String: ClassCounts] {
        var result: [String: ClassCounts] = [:]
        for use in summary.classes {
            var keys: [String: [String: Int]] = [:]
            for key in use.keys {
                keys[key.key] = Dictionary(uniqueKeysWithValues: key.kinds.map { ($0.kind, $0.count) })
            }
            result[use.name] = ClassCounts(chain: use.chain, count: use.count, shared: use.shared, cyclic: use.cyclic, keys: keys)
        }
        return result
    }
}
