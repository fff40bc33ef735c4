/// The encoders' side of the data values' readable forms (docs/mapping.md, "Data values"):
/// `$text` and `$bytesText` give their UTF-8 bytes; an account (`$bookmark`, `$alias`) beside
/// `$data` or `$bytes` is checked against the bytes, which are read again: an account edited so
/// that it disagrees with them is refused at the member that differs, an unchanged one is
/// accepted, and bytes without an account always are.
extension JSONDocument {
    /// The account kind a mapping key names (`$bookmark`, `$alias`, `$kind`), or nil.
    static func accountKind(_ text: UnsafeBufferPointer<UInt8>) -> DataAccountKind? {
        if JSONText.text(text, equals: MappingKeys.bookmark) { return .bookmark }
        if JSONText.text(text, equals: MappingKeys.alias) { return .alias }
        if JSONText.text(text, equals: MappingKeys.kind) { return .kind }
        return nil
    }

    /// The bytes of `{"$text": …}` (or `$bytesText`): the string's UTF-8.
    func textBytes(_ value: Value) throws(CodecError) -> [UInt8] {
        guard kind(value) == .string else { throw invalid("$text and $bytesText take a string: the data's UTF-8 text", at: value) }
        return withString(value) { Array($0) }
    }

    /// A data value of two members, each the mapping's: bytes with an account
    /// (`{"<dataKey>": bytes, "$bookmark", "$alias" or "$kind": account}`), or text after a
    /// byte order mark (`{"<textKey>": "…", "$bom": "utf8"}`), in either order; nil when
    /// `object` is neither. One walk of the members for both (asked of every object value
    /// with two members).
    enum PairedData {
        case accounted(data: Value, kind: DataAccountKind, account: Value)
        case marked(text: Value, mark: Value)
    }

    private enum PairedKey {
        case data, text, mark
        case account(DataAccountKind)
    }

    func pairedData(_ object: Value, dataKey: StaticString, textKey: StaticString) -> PairedData? {
        // Both keys are the mapping's: the parser's span says so without reading them.
        guard kind(object) == .object, count(object) == 2, mappingKeySpans[object.container] == 2 else { return nil }
        var data: Value?
        var text: Value?
        var mark: Value?
        var account: (DataAccountKind, Value)?
        var cursor = children(of: object)
        while let (key, value) = nextMember(&cursor) {
            // Each key's text read once, compared in place (both keys are the mapping's strings).
            let read = withString(key) { text -> PairedKey? in
                if JSONText.text(text, equals: dataKey) { return .data }
                if JSONText.text(text, equals: textKey) { return .text }
                if JSONText.text(text, equals: MappingKeys.bom) { return .mark }
                return Self.accountKind(text).map(PairedKey.account)
            }
            switch read {
            case .data?: data = value
            case .text?: text = value
            case .mark?: mark = value
            case .account(let kind)?: account = (kind, value)
            case nil: continue
            }
        }
        if let data, let account { return .accounted(data: data, kind: account.0, account: account.1) }
        if let text, let mark { return .marked(text: text, mark: mark) }
        return nil
    }

    /// The bytes of `{"$text": …, "$bom": …}` (or `$bytesText`): the mark `$bom` names, then
    /// the string's UTF-8.
    func markedTextBytes(_ text: Value, mark: Value) throws(CodecError) -> [UInt8] {
        guard kind(mark) == .string, let found = withString(mark, TextMark.named) else {
            throw invalid("$bom names the byte order mark before the text: \"utf8\"", at: mark)
        }
        return found.bytes + (try textBytes(text))
    }

    /// Refuses `account`, given as the `kind` account of data `bytes`, unless it says what the
    /// bytes say (numbers and dates in any of the mapping's spellings, members in any order).
    func checkAccount(_ kind: DataAccountKind, _ account: Value, against bytes: [UInt8]) throws(CodecError) {
        let expected = bytes.withUnsafeBufferPointer { kind.account(of: $0) }
        guard let expected else {
            throw invalid(
                "\(kind.key) is given, but the data's bytes \(kind.absence): leave \(kind.key) out (the bytes alone are the value)", at: account)
        }
        guard let (at, says) = accountDifference(expected, account) else { return }
        throw invalid(
            "\(kind.key) disagrees with the data's bytes here: the bytes say \(says). The bytes are the value and the account only reads them: edit the bytes, or leave \(kind.key) out",
            at: at)
    }

    /// Where `value` first differs from `expected`, and what `expected` holds there; nil when
    /// they agree. Recursion bounded by `expected`'s nesting (`AccountValue.maximumNesting`).
    func accountDifference(_ expected: AccountValue, _ value: Value) -> (at: Value, says: String)? {
        let agrees: Bool
        switch expected {
        case .string(let text): agrees = kind(value) == .string && stringValue(value) == text
        case .integer(let number): agrees = integer(value) == PlistInteger(signed: number)
        case .unsigned(let number): agrees = integer(value) == PlistInteger(unsigned: number)
        case .real(let number): agrees = (try? nonFiniteOrNumber(value))?.bitPattern == number.bitPattern
        case .time(let seconds): agrees = kind(value) != .null && (try? time(value))?.bitPattern == seconds.bitPattern
        case .bool(let flag): agrees = kind(value) == .bool && bool(value) == flag
        case .null: agrees = kind(value) == .null
        case .base64(let bytes): agrees = kind(value) == .string && (try? base64Bytes(value)) == bytes
        case .array(let elements):
            guard kind(value) == .array, count(value) == elements.count else { return (value, Self.describe(expected)) }
            for (element, given) in zip(elements, self.elements(of: value)) {
                if let difference = accountDifference(element, given) { return difference }
            }
            return nil
        case .object(let members):
            guard kind(value) == .object, count(value) == members.count else { return (value, Self.describe(expected)) }
            var given: [String: Value] = [:]
            for member in self.members(of: value) {
                var key = stringValue(member.key)
                if key.hasPrefix("$") {
                    guard key.hasPrefix("$$") else { return (member.key, Self.describe(expected)) }
                    key.removeFirst()
                }
                given[key] = member.value
            }
            for member in members {
                guard let other = given[member.key] else { return (value, Self.describe(expected)) }
                if let difference = accountDifference(member.value, other) { return difference }
            }
            return nil
        }
        return agrees ? nil : (value, Self.describe(expected))
    }

    /// An integer as the mapping writes one: a bare number or `{"$integer": "…"}`.
    private func integer(_ value: Value) -> PlistInteger? {
        switch kind(value) {
        case .number:
            switch number(value) {
            case .signed(let number): return PlistInteger(signed: number)
            case .unsigned(let number): return PlistInteger(unsigned: number)
            case .real: return nil
            }
        case .object:
            guard let exact = singleMember(value, named: MappingKeys.integer) else { return nil }
            return try? exactInteger(exact.value)
        default: return nil
        }
    }

    /// A real as the mapping writes one: a number or `{"$real": …}`.
    private func nonFiniteOrNumber(_ value: Value) throws(CodecError) -> Double {
        if let wrapped = singleMember(value, named: MappingKeys.real) { return try wrappedReal(wrapped.value) }
        guard kind(value) == .number else { throw invalid("expected a number", at: value) }
        switch number(value) {
        case .signed(let number): return Double(number)
        case .unsigned(let number): return Double(number)
        case .real(let number): return number
        }
    }

    /// What an account value holds, in a few words for a refusal.
    static func describe(_ value: AccountValue) -> String {
        switch value {
        case .string(let text): return "\"\(text.count > 80 ? String(text.prefix(80)) + "…" : text)\""
        case .integer(let number): return "\(number)"
        case .unsigned(let number): return "\(number)"
        case .real(let number): return "\(number)"
        case .time(let seconds): return DateText.readable(seconds)?.string ?? "\(seconds) seconds since 2001"
        case .bool(let flag): return "\(flag)"
        case .null: return "null"
        case .base64(let bytes): return "\(bytes.count) bytes"
        case .array(let elements): return "an array of \(elements.count)"
        case .object(let members): return "an object with the keys " + members.map(\.key).joined(separator: ", ")
        }
    }
}
