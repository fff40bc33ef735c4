/// A readable account of what a data value's bytes hold (a bookmark, an alias record), written
/// beside the bytes, which stay the truth (docs/mapping.md, "Data values"). One tree, built by a
/// parser from the bytes; its JSON text (`JSONOutput.account`), its nesting (`height`) and its
/// comparison with an account read back (`JSONDocument.accountDifference`) all follow the tree,
/// so the three never disagree.
///
/// The parsers cap the tree (`maximumNesting` levels at most), so walking it recursively is
/// bounded whatever the bytes.
indirect enum AccountValue: Equatable {
    case string(String)
    case integer(Int64)
    case unsigned(UInt64)
    case real(Double)
    /// Seconds since 2001, written as `$date` text is (`JSONOutput.mappedTime`).
    case time(Double)
    case bool(Bool)
    case null
    /// Bytes the account cannot say better: base64 text.
    case base64([UInt8])
    case array([AccountValue])
    /// Members in order, keys distinct (a key that begins with `$` is written `$$…`).
    case object([AccountMember])

    /// The most levels any account nests (its own object included); the parsers build no deeper.
    static let maximumNesting = 6

    /// The JSON nesting of the value as written: 0 for a bare scalar, 1 for `[]` or `{}`, and so
    /// on; a number `numbers` wraps takes a wrapper.
    func height(_ numbers: NumberWrapping) -> Int {
        switch self {
        case .integer(let value): return numbers.wraps(PlistInteger(signed: value)) ? 1 : 0
        case .unsigned(let value): return numbers.wraps(PlistInteger(unsigned: value)) ? 1 : 0
        case .real(let value): return numbers.wraps(value) ? 1 : 0
        case .time(let value): return numbers.wrapsTime(value) ? 1 : 0
        case .string, .bool, .null, .base64: return 0
        case .array(let elements): return 1 + elements.reduce(0) { max($0, $1.height(numbers)) }
        case .object(let members): return 1 + members.reduce(0) { max($0, $1.value.height(numbers)) }
        }
    }

    /// An object from `members`, keeping the first of repeated keys (the JSON must not repeat one).
    static func distinct(_ members: [AccountMember]) -> AccountValue {
        guard members.count > 16 else {
            // A few members, as every real account has: compared in place, nothing hashed.
            var kept: [AccountMember] = []
            kept.reserveCapacity(members.count)
            for member in members where !kept.contains(where: { $0.key == member.key }) { kept.append(member) }
            return .object(kept)
        }
        var seen = Set<String>()
        return .object(members.filter { seen.insert($0.key).inserted })
    }
}

/// One member of an account object.
struct AccountMember: Equatable {
    let key: String
    let value: AccountValue

    init(_ key: String, _ value: AccountValue) {
        self.key = key
        self.value = value
    }
}

/// The kinds of account, each a `$` key beside `$data` or `$bytes`.
enum DataAccountKind: Equatable {
    case bookmark
    case alias
    /// What the bytes are by their signature (`DataKind`).
    case kind

    var key: StaticString {
        switch self {
        case .bookmark: MappingKeys.bookmark
        case .alias: MappingKeys.alias
        case .kind: MappingKeys.kind
        }
    }

    /// What the bytes are not, said when an account of this kind is given beside them.
    var absence: String {
        switch self {
        case .bookmark: "are not a bookmark this reads"
        case .alias: "are not a alias record this reads"
        case .kind: "begin with no signature this knows"
        }
    }

    /// The account of `bytes` of this kind, or nil when they are not one. A kind is read for
    /// any bytes that have one, also those the readable view writes none for (a binary
    /// property list's): a `$kind` written by hand that says what the bytes are is accepted.
    func account(of bytes: UnsafeBufferPointer<UInt8>) -> AccountValue? {
        switch self {
        case .bookmark: BookmarkData.account(of: bytes)
        case .alias: AliasRecord.account(of: bytes)
        case .kind: DataKind.of(bytes)?.account
        }
    }
}

extension JSONOutput {
    /// Writes `value` (recursion bounded by `AccountValue.maximumNesting`); numbers and dates
    /// through the mapping's helpers.
    mutating func account(_ value: AccountValue, _ numbers: NumberWrapping) {
        switch value {
        case .string(let text): string(text)
        case .integer(let number): mappedInteger(PlistInteger(signed: number), numbers)
        case .unsigned(let number): mappedInteger(PlistInteger(unsigned: number), numbers)
        case .real(let number): mappedReal(number, numbers)
        case .time(let seconds): mappedTime(seconds, numbers)
        case .bool(let flag): bool(flag)
        case .null: null()
        case .base64(let bytes): bytes.withUnsafeBufferPointer { base64String($0) }
        case .array(let elements):
            openArray()
            for element in elements { account(element, numbers) }
            closeArray()
        case .object(let members):
            openObject()
            for member in members {
                var key = member.key
                key.withUTF8 { dataKey(utf8: $0) }
                account(member.value, numbers)
            }
            closeObject()
        }
    }
}
