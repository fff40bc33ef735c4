/// The mapping's `$` keys of one JSON object, sorted out from its data keys (docs/mapping.md).
/// Holds value handles only: reading it allocates nothing.
struct ObjectMeta {
    typealias Value = JSONDocument.Value
    /// Values of `$id`, `$ref`, `$class`, `$classes`, `$classhints`.
    var id: Value?
    var ref: Value?
    var className: Value?
    var chain: Value?
    /// `$classes` is present (its value may be null: a class entry without `$classes`).
    var chainGiven = false
    var hints: Value?
    var wrapper: (kind: ValueWrapper, value: Value)?
    /// `$bookmark` or `$alias` beside `$data` or `$bytes`: an account of the bytes, checked
    /// against them (`JSONDocument.checkAccount`).
    var account: (kind: DataAccountKind, value: Value)?
    /// `$runs` beside `$string`: an attributed string's text in runs (`fillAttributedString`).
    var runs: Value?
    /// `$bom` beside `$text` or `$bytesText`: the byte order mark before the text
    /// (`JSONDocument.markedTextBytes`).
    var mark: Value?
    /// Whether the object holds members of a decimal, calendar date or time zone (nearly
    /// every object holds none). Their values are read again when it does
    /// (`JSONDocument.valueFormMembers(of:)`): seven handles here would make the meta every
    /// object's walk reads and copies larger.
    var hasValueForm = false
}

/// The members of the readable forms of NSDecimalNumber, NSCalendarDate and NSTimeZone
/// (`ValueObjectForms`) found in one JSON object, and which form they make. A calendar
/// date's time is the object's `$date` wrapper.
struct ValueFormMembers {
    typealias Value = JSONDocument.Value
    enum Kind { case decimal, calendarDate, timeZone }

    var decimal: Value?
    var compact: Value?
    var dateFormat: Value?
    var zone: Value?
    var timeZone: Value?
    var tzif: Value?
    var zoneInfo: Value?

    /// The form the members make, once `check` has passed (nil: none of them).
    var kind: Kind? {
        if decimal != nil || compact != nil { return .decimal }
        if dateFormat != nil || zone != nil { return .calendarDate }
        if timeZone != nil || tzif != nil || zoneInfo != nil { return .timeZone }
        return nil
    }

    fileprivate enum Key { case decimal, compact, dateFormat, zone, timeZone, tzif, zoneInfo }

    fileprivate mutating func set(_ key: Key, _ value: Value) {
        switch key {
        case .decimal: decimal = value
        case .compact: compact = value
        case .dateFormat: dateFormat = value
        case .zone: zone = value
        case .timeZone: timeZone = value
        case .tzif: tzif = value
        case .zoneInfo: zoneInfo = value
        }
    }

    /// The member named `text`, if it is one of these.
    fileprivate static func key(_ text: UnsafeBufferPointer<UInt8>) -> Key? {
        func equals(_ literal: StaticString) -> Bool { JSONText.text(text, equals: literal) }
        switch text.count {
        case 5 where equals(MappingKeys.zone): return .zone
        case 5 where equals(MappingKeys.tzif): return .tzif
        case 8 where equals(MappingKeys.decimal): return .decimal
        case 8 where equals(MappingKeys.compact): return .compact
        case 9 where equals(MappingKeys.timeZone): return .timeZone
        case 9 where equals(MappingKeys.zoneInfo): return .zoneInfo
        case 11 where equals(MappingKeys.dateFormat): return .dateFormat
        default: return nil
        }
    }
}

/// What a member key of an object is: a data key, or one of the `$` keys an object may hold.
private enum MetaKey {
    case dataKey
    case id, ref, className, classes, classHints
    case wrapper(ValueWrapper)
    case account(DataAccountKind)
    case runs
    case mark
    case topOnly
    /// A `$` key the mapping does not define, or a member of a decimal, calendar date or time
    /// zone (`ValueFormMembers.key`, asked only then: a case of its own here costs every
    /// object's walk of its keys).
    case unknown
}

extension JSONDocument {
    /// An `invalidDocument` error at `value`, with its byte offset and JSON path.
    func invalid(_ message: String, at value: Value) -> CodecError {
        CodecError(.invalidDocument, message, byteOffset: Int(value.offset), jsonPath: path(to: value))
    }

    /// Whether `value` is a string holding exactly `literal` (asked for nearly every
    /// member: compared in place). A string without escapes is its source text between the
    /// quotes, whose length its handle holds: most keys that differ are told apart by it
    /// before a byte is read.
    func stringEquals(_ value: Value, _ literal: StaticString) -> Bool {
        guard kind(value) == .string else { return false }
        guard value.payload & Value.escapedBit == 0 else { return withString(value) { JSONText.text($0, equals: literal) } }
        let count = Int(value.payload) - 2
        guard count == literal.utf8CodeUnitCount else { return false }
        let start = Int(value.offset) + 1
        return source.withUnsafeBufferPointer { JSONText.text(UnsafeBufferPointer(rebasing: $0[start..<(start + count)]), equals: literal) }
    }

    /// Whether member key `key` is a data key (see `MappingKeys.isMappingKey`).
    func isDataKey(_ key: Value) -> Bool {
        withString(key) { !MappingKeys.isMappingKey($0) }
    }

    /// What member key `key` is, its text read once (asked for every member up to the last
    /// `$` key of every object).
    private func metaKey(_ key: Value) -> MetaKey {
        withString(key) { text in
            guard MappingKeys.isMappingKey(text) else { return .dataKey }
            func equals(_ literal: StaticString) -> Bool { JSONText.text(text, equals: literal) }
            switch text.count {
            case 3 where equals(MappingKeys.identity): return .id
            case 4 where equals(MappingKeys.reference): return .ref
            case 4 where equals(MappingKeys.top): return .topOnly
            case 4 where equals(MappingKeys.bom): return .mark
            case 5 where equals(MappingKeys.runs): return .runs
            case 6 where equals(MappingKeys.table): return .topOnly
            case 6 where equals(MappingKeys.className): return .className
            case 8 where equals(MappingKeys.classes): return .classes
            case 8 where equals(MappingKeys.version), 9 where equals(MappingKeys.archiver): return .topOnly
            case 11 where equals(MappingKeys.classHints): return .classHints
            default:
                if let wrapper = ValueWrapper.named(text) { return .wrapper(wrapper) }
                return Self.accountKind(text).map(MetaKey.account) ?? .unknown
            }
        }
    }

    /// Reads and checks the `$` keys of object `object`. Only the members up to the last
    /// such key are walked (`mappingKeySpans`); the rest are data keys.
    func meta(of object: Value) throws(CodecError) -> ObjectMeta {
        try readMeta(of: object, valueForms: false)
    }

    /// `meta(of:)` of an object that holds members of a decimal, calendar date or time zone,
    /// read again from its first member once one is met: `meta(of:)`'s own walk, which every
    /// object takes, then has no path that goes on past such a member (one costs its loop
    /// register spills on every member of every object).
    @inline(never)
    private func metaWithValueForm(of object: Value) throws(CodecError) -> ObjectMeta {
        try readMeta(of: object, valueForms: true)
    }

    /// `meta(of:)`; `valueForms`: whether the members of a decimal, calendar date or time zone
    /// are read (false: the first one met hands the object to `metaWithValueForm`).
    @inline(__always)
    private func readMeta(of object: Value, valueForms: Bool) throws(CodecError) -> ObjectMeta {
        var meta = ObjectMeta()
        let memberCount = count(object)
        let span = Int(mappingKeySpans[object.container])
        var unread = span == Self.unboundedSpan ? memberCount : span
        var mappingKeys = 0
        var cursor = children(of: object)  // members are walked in place
        while unread > 0, let (key, value) = nextMember(&cursor) {
            unread -= 1
            switch metaKey(key) {
            case .dataKey:
                continue
            case .id:
                try checkID(value)
                meta.id = value
            case .ref:
                guard memberCount == 1 else { throw invalid("$ref stands alone in its object", at: object) }
                try checkID(value)
                meta.ref = value
            case .className:
                guard kind(value) == .string, withString(value, { !$0.isEmpty }) else { throw invalid("$class takes a class name", at: value) }
                meta.className = value
            case .classes:
                meta.chainGiven = true
                if kind(value) != .null {
                    try checkStringList(value)
                    meta.chain = value
                }
            case .classHints:
                try checkStringList(value)
                meta.hints = value
            case .wrapper(let wrapper):
                guard meta.wrapper == nil else { throw invalid("an object holds one value wrapper, not two", at: value) }
                meta.wrapper = (wrapper, value)
            case .account(let kind):
                meta.account = (kind, value)
            case .runs:
                meta.runs = value
            case .mark:
                meta.mark = value
            case .topOnly:
                throw invalid("\(TextExcerpt.quote(stringValue(key))) belongs only at the top of the document", at: value)
            case .unknown:
                if valueFormKey(key) != nil {
                    guard valueForms else { return try metaWithValueForm(of: object) }
                    meta.hasValueForm = true
                    break
                }
                throw invalid("unknown key \(TextExcerpt.quote(stringValue(key))); a data key that starts with $ is written with $$", at: key)
            }
            mappingKeys += 1
        }
        if let account = meta.account, meta.wrapper?.kind != .data, meta.wrapper?.kind != .bytes {
            throw invalid("\(account.kind.key) stands beside $data or $bytes: it is an account of their bytes", at: account.value)
        }
        if let mark = meta.mark, meta.wrapper?.kind != .text, meta.wrapper?.kind != .bytesText {
            throw invalid("$bom stands beside $text or $bytesText: the byte order mark before their text", at: mark)
        }
        if let runs = meta.runs, meta.wrapper?.kind != .string {
            throw invalid("$runs stands beside $string: they are an attributed string's text and its runs", at: runs)
        }
        if valueForms, meta.hasValueForm {
            try checkValueForm(object, wrapper: meta.wrapper, other: meta.runs ?? meta.account?.value ?? meta.mark, dataKeys: memberCount > mappingKeys)
        }
        if let wrapper = meta.wrapper, memberCount > mappingKeys {
            throw invalid("\(wrapper.kind.name) objects hold no data keys", at: object)
        }
        return meta
    }

    /// The members of a decimal, calendar date or time zone stand together, each form's
    /// complete, with no other wrapper, account or data key beside them (`other`: the object's
    /// `$runs`, account or `$bom`). Handed the meta's members it reads, not the meta: the meta
    /// stays out of memory on `meta(of:)`'s common path.
    @inline(never)
    private func checkValueForm(_ object: Value, wrapper: (kind: ValueWrapper, value: Value)?, other: Value?, dataKeys: Bool) throws(CodecError) {
        let form = valueFormMembers(of: object)
        guard let kind = form.kind else { return }
        let (name, members): (String, [Value?]) =
            switch kind {
            case .decimal: ("$decimal", [form.decimal])
            case .calendarDate: ("$date, $dateFormat and $zone", [wrapper?.kind == .date ? wrapper?.value : nil, form.dateFormat, form.zone])
            case .timeZone: ("$timeZone, $tzif and $zoneInfo", [form.timeZone, form.tzif, form.zoneInfo])
            }
        let stray: [Value?] =
            switch kind {
            case .decimal: [form.dateFormat, form.zone, form.timeZone, form.tzif, form.zoneInfo, wrapper?.value]
            case .calendarDate: [form.decimal, form.compact, form.timeZone, form.tzif, form.zoneInfo]
            case .timeZone: [form.decimal, form.compact, form.dateFormat, form.zone, wrapper?.value]
            }
        if let extra = stray.compactMap({ $0 }).first {
            throw invalid("\(name) stand together as one form; this member belongs to another", at: extra)
        }
        guard members.allSatisfy({ $0 != nil }) else {
            throw invalid("\(name) stand together: a \(kind == .decimal ? "$compact" : "form") without them is refused", at: object)
        }
        if let other {
            throw invalid("\(name) take no other mapping member", at: other)
        }
        if dataKeys { throw invalid("\(name) objects hold no data keys", at: object) }
    }

    /// Which member of a decimal, calendar date or time zone `key` is, if one (`MetaKey.unknown`).
    @inline(never)
    private func valueFormKey(_ key: Value) -> ValueFormMembers.Key? {
        withString(key) { ValueFormMembers.key($0) }
    }

    /// The members of a decimal, calendar date or time zone that object `object` holds, read
    /// as `meta(of:)` reads them (asked only of an object whose meta has `hasValueForm`).
    func valueFormMembers(of object: Value) -> ValueFormMembers {
        var form = ValueFormMembers()
        let span = Int(mappingKeySpans[object.container])
        var unread = span == Self.unboundedSpan ? count(object) : span
        var cursor = children(of: object)
        while unread > 0, let (key, value) = nextMember(&cursor) {
            unread -= 1
            if let member = valueFormKey(key) { form.set(member, value) }
        }
        return form
    }

    /// `$id` and `$ref` values are integers or strings.
    func checkID(_ value: Value) throws(CodecError) {
        switch kind(value) {
        case .string: return
        case .number:
            if case .real = number(value) { break }
            return
        default: break
        }
        throw CodecError(.invalidDocument, "$id and $ref take an integer or a string", byteOffset: Int(value.offset))
    }

    private func checkStringList(_ list: Value) throws(CodecError) {
        guard kind(list) == .array else { throw invalid("expected an array of class names", at: list) }
        var cursor = children(of: list)
        while let element = nextElement(&cursor) {
            guard kind(element) == .string else { throw invalid("expected an array of class names", at: element) }
        }
    }

    /// The strings of an array checked by `meta(of:)` (`$classes`, `$classhints`).
    func stringList(_ list: Value) -> [String] {
        elements(of: list).map(stringValue)
    }

    /// The member `name` of `object` when it is an object with that one member.
    @inline(__always)
    func singleMember(_ object: Value, named name: StaticString) -> (key: Value, value: Value)? {
        guard let member = onlyMember(object), stringEquals(member.key, name) else { return nil }
        return member
    }

    /// The member of `object` when it is an object with one member. Inlined: a typedstream's
    /// every group is read through it, and the call cost a group a fifth of its reading.
    @inline(__always)
    func onlyMember(_ object: Value) -> (key: Value, value: Value)? {
        guard kind(object) == .object, count(object) == 1 else { return nil }
        var cursor = children(of: object)
        return nextMember(&cursor)
    }
}
