/// What a TZif file (RFC 8536, the time zone data NSTimeZone archives under `NS.data`) says
/// at a glance: the abbreviations of its local time types, and the offset, daylight saving
/// flag and abbreviation of the type in force after its last transition (the first type when
/// it has none), with the POSIX TZ rule of its footer (version 2 and later). The `$zoneInfo`
/// beside an NSTimeZone's bytes (docs/mapping.md, "Decimal numbers, calendar dates, time
/// zones"); the encoder reads it again from the bytes and refuses a summary that differs.
///
/// Contract: `parse` accepts exactly one well-formed TZif file, nothing before or after it:
/// the header's magic and version (`\0`, `2`, `3`, `4`), the version 1 data block, and for
/// version 2 and later the second header, its 64-bit block and the footer (`\n` rule `\n`).
/// Every count is checked against the bytes left before anything is sized or walked by it;
/// the time type count is at most 256 (a transition names its type in one byte) and each
/// abbreviation at most `maximumAbbreviationLength` bytes of printable ASCII ending in NUL
/// within the designation table, so the work is linear in the input. Anything else is nil:
/// the time zone then keeps its archived keys.
struct TZifSummary: Equatable {
    /// The abbreviations of the time types, each once, in the order of the types.
    var abbreviations: [String]
    /// The UT offset in seconds, daylight saving flag and abbreviation of the last type.
    var offset: Int32
    var isDST: Bool
    var abbreviation: String
    /// The footer's POSIX TZ rule (version 2 and later; nil when empty or version 1).
    var rule: String?

    static let maximumAbbreviationLength = 64
    /// RFC 8536: a time type's index is one byte.
    static let maximumTypeCount = 256

    /// The member names of `$zoneInfo`, in the order the writer writes them.
    static let abbreviationKey: StaticString = "abbreviation"
    static let offsetKey: StaticString = "offset"
    static let isDSTKey: StaticString = "isDST"
    static let abbreviationsKey: StaticString = "abbreviations"
    static let ruleKey: StaticString = "rule"

    /// The summary of the TZif file `bytes` (see the type's contract), or nil.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> TZifSummary? {
        guard let first = header(bytes, at: 0) else { return nil }
        guard let firstSize = blockSize(first.counts, timeSize: 4) else { return nil }
        let firstBlock = 44
        guard firstSize <= bytes.count - firstBlock else { return nil }
        if first.version == 0 {
            guard firstBlock + firstSize == bytes.count else { return nil }
            return summary(bytes, block: firstBlock, counts: first.counts, timeSize: 4, rule: nil)
        }
        let secondHeader = firstBlock + firstSize
        guard let second = header(bytes, at: secondHeader), second.version == first.version,
            let secondSize = blockSize(second.counts, timeSize: 8), secondSize <= bytes.count - secondHeader - 44
        else { return nil }
        let secondBlock = secondHeader + 44
        // The footer: a newline, the rule (printable ASCII, perhaps empty), a newline, the end.
        var position = secondBlock + secondSize
        guard position < bytes.count, bytes[position] == 0x0A else { return nil }
        position += 1
        let ruleStart = position
        while position < bytes.count, bytes[position] != 0x0A {
            guard bytes[position] >= 0x20, bytes[position] < 0x7F else { return nil }
            position += 1
        }
        guard position == bytes.count - 1 else { return nil }
        let rule = String(decoding: UnsafeBufferPointer(rebasing: bytes[ruleStart..<position]), as: UTF8.self)
        return summary(bytes, block: secondBlock, counts: second.counts, timeSize: 8, rule: rule.isEmpty ? nil : rule)
    }

    /// The counts of a header (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt) and its
    /// version (0, or the ASCII digit), when 44 bytes at `start` are one.
    private static func header(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (version: UInt8, counts: [Int])? {
        guard bytes.count - start >= 44, bytes[start] == 0x54, bytes[start + 1] == 0x5A, bytes[start + 2] == 0x69, bytes[start + 3] == 0x66 else { return nil }
        let version = bytes[start + 4]
        guard version == 0 || (version >= 0x32 && version <= 0x34) else { return nil }
        let counts = (0..<6).map { Int(bytes.bigEndianUInt32(at: start + 20 + 4 * $0)) }
        return (version, counts)
    }

    /// The data block's size from its header's counts, or nil when they break RFC 8536's
    /// rules (no types or no designations, more types than an index names, standard/UT
    /// indicators neither absent nor one per type). Counts are at most 2^32 − 1 each, so the
    /// sum (at most 12 × 2^32 each) cannot overflow.
    private static func blockSize(_ counts: [Int], timeSize: Int) -> Int? {
        let (isUT, isStandard, leaps, times, types, chars) = (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
        guard types >= 1, types <= maximumTypeCount, chars >= 1,
            isUT == 0 || isUT == types, isStandard == 0 || isStandard == types
        else { return nil }
        return times * timeSize + times + types * 6 + chars + leaps * (timeSize + 4) + isStandard + isUT
    }

    /// The summary of a block whose size was checked against the bytes.
    private static func summary(_ bytes: UnsafeBufferPointer<UInt8>, block: Int, counts: [Int], timeSize: Int, rule: String?) -> TZifSummary? {
        let (times, types, chars) = (counts[3], counts[4], counts[5])
        let indices = block + times * timeSize
        let typeRecords = indices + times
        let table = typeRecords + types * 6
        for index in 0..<times where Int(bytes[indices + index]) >= types { return nil }
        var names: [String] = []
        var seen: [String] = []
        for type in 0..<types {
            let record = typeRecords + 6 * type
            guard bytes[record + 4] <= 1 else { return nil }
            let designation = Int(bytes[record + 5])
            guard designation < chars else { return nil }
            var end = table + designation
            while end < table + chars, bytes[end] != 0 {
                guard bytes[end] >= 0x20, bytes[end] < 0x7F, end - table - designation < maximumAbbreviationLength else { return nil }
                end += 1
            }
            guard end < table + chars else { return nil }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(table + designation)..<end]), as: UTF8.self)
            names.append(name)
            if !seen.contains(name) { seen.append(name) }
        }
        let last = times > 0 ? Int(bytes[indices + times - 1]) : 0
        let record = typeRecords + 6 * last
        return TZifSummary(
            abbreviations: seen, offset: Int32(bitPattern: bytes.bigEndianUInt32(at: record)), isDST: bytes[record + 4] == 1, abbreviation: names[last],
            rule: rule)
    }

}
