/// The readable forms of three Foundation value classes in keyed archives (docs/mapping.md,
/// "Decimal numbers, calendar dates, time zones"): which instances take them, and how their
/// archived keys stand in the form.
///
/// | form | archived keys (and `$class`, nothing else) | readable members |
/// |---|---|---|
/// | `decimal` | `NS.exponent`, `NS.length`, `NS.mantissa.bo` integers; `NS.negative`, `NS.compact` booleans; `NS.mantissa` 16 bytes | `$decimal` text, `$compact` when false |
/// | `calendarDate` | `NS.time` a real; `NS.format`, `NS.timezone` references | `$date`, `$dateFormat`, `$zone` |
/// | `timeZone` | `NS.name`, `NS.data` references, the data a TZif file | `$timeZone`, `$tzif`, `$zoneInfo` |
///
/// Contract: a form is taken only when the encoder, reading it, writes back exactly the
/// archived keys (`ArchiveEncoder.fillValueForm`): the same keys, each of the same plist type,
/// inline or referenced as they were. A decimal's words past its length must be zero, its
/// length the count of words up to the last non-zero one, its byte order mark 1 (the
/// words little-endian), its exponent a signed byte, and NaN's exponent 0; a time zone's data
/// entry must be bytes (plain data or an NSData instance) that `TZifSummary` reads. Anything
/// else keeps the instance's archived keys (the generic form). The referenced keys stay
/// references, written where they stand by the usual placement (`$id`, `$ref`), so sharing
/// and cycles are kept as for any member; folded keys (a decimal's, a calendar date's time)
/// are inline scalars and have no identity.
enum ValueObjectForms {
    /// The names of the keys each form reads.
    static let exponent: StaticString = "NS.exponent"
    static let length: StaticString = "NS.length"
    static let negative: StaticString = "NS.negative"
    static let compact: StaticString = "NS.compact"
    static let byteOrder: StaticString = "NS.mantissa.bo"
    static let mantissa: StaticString = "NS.mantissa"
    static let time: StaticString = "NS.time"
    static let format: StaticString = "NS.format"
    static let timeZone: StaticString = "NS.timezone"
    static let name: StaticString = "NS.name"
    static let data: StaticString = "NS.data"

    static let decimalClass = "NSDecimalNumber"
    static let calendarDateClass = "NSCalendarDate"
    static let timeZoneClass = "NSTimeZone"

    // MARK: Which instances take a form

    /// The archived keys of `header` other than `$class`, each with its value; nil when
    /// there are more than `limit` (no form has more than six).
    private static func ownKeys(_ view: BinaryPlistView, _ header: PlistObjectHeader, _ classKeys: ClassKeyRefs, limit: Int) -> [(key: Int, value: Int)]? {
        var keys: [(key: Int, value: Int)] = []
        for index in 0..<header.count {
            let key = view.childRef(header, index)
            if classKeys.contains(key) { continue }
            guard keys.count < limit else { return nil }
            keys.append((key, view.childRef(header, header.count + index)))
        }
        return keys
    }

    /// The value of each of `names` among `keys`, in the order of `names`, when `keys` are
    /// exactly those names, each once.
    private static func values(of names: [StaticString], in keys: [(key: Int, value: Int)], _ view: BinaryPlistView) -> [Int]? {
        guard keys.count == names.count else { return nil }
        var found = [Int](filledWith: -1, count: names.count)
        for (key, value) in keys {
            guard let slot = names.firstIndex(where: { view.isString(key, equalTo: $0) }), found[slot] < 0 else { return nil }
            found[slot] = value
        }
        return found
    }

    /// A small signed plist integer's value, or nil for another type or one outside `range`.
    private static func integer(_ view: BinaryPlistView, _ ref: Int, in range: ClosedRange<Int64>) -> Int64? {
        let header = view.header(of: ref)
        guard header.kind == .int else { return nil }
        let value = view.integer(header)
        guard !value.isUnsigned, range.contains(Int64(bitPattern: value.bits)) else { return nil }
        return Int64(bitPattern: value.bits)
    }

    /// The decimal of an NSDecimalNumber instance, with its compact flag, when it takes the
    /// `decimal` form (see the type's contract).
    static func decimal(_ view: BinaryPlistView, _ header: PlistObjectHeader, _ classKeys: ClassKeyRefs) -> (value: DecimalText, compact: Bool)? {
        guard let keys = ownKeys(view, header, classKeys, limit: 6),
            let values = values(of: [exponent, length, negative, compact, byteOrder, mantissa], in: keys, view),
            let exponentValue = integer(view, values[0], in: -128...127),
            let lengthValue = integer(view, values[1], in: 0...8),
            integer(view, values[4], in: 1...1) != nil
        else { return nil }
        let (negativeHeader, compactHeader, mantissaHeader) = (view.header(of: values[2]), view.header(of: values[3]), view.header(of: values[5]))
        guard negativeHeader.kind == .bool, compactHeader.kind == .bool, mantissaHeader.kind == .data,
            let words = DecimalText.words(ofMantissa: view.payload(mantissaHeader))
        else { return nil }
        let value = DecimalText(words: words, exponent: Int8(exponentValue), negative: view.bool(negativeHeader))
        // The stated length is the words' (so the words past it are zero); NaN has exponent 0.
        guard value.length == Int(lengthValue), !(value.isNaN && exponentValue != 0) else { return nil }
        return (value, view.bool(compactHeader))
    }

    /// Whether an NSCalendarDate instance takes the `calendarDate` form.
    static func isCalendarDate(_ view: BinaryPlistView, _ header: PlistObjectHeader, _ classKeys: ClassKeyRefs) -> Bool {
        guard let keys = ownKeys(view, header, classKeys, limit: 3), let values = values(of: [time, format, timeZone], in: keys, view) else { return false }
        return view.header(of: values[0]).kind == .real && view.header(of: values[1]).kind == .uid && view.header(of: values[2]).kind == .uid
    }

    /// Whether an NSTimeZone instance has the keys of the `timeZone` form; its data is looked
    /// at once every entry is classified (`refineTimeZones`).
    static func hasTimeZoneKeys(_ view: BinaryPlistView, _ header: PlistObjectHeader, _ classKeys: ClassKeyRefs) -> Bool {
        guard let keys = ownKeys(view, header, classKeys, limit: 2), let values = values(of: [name, data], in: keys, view) else { return false }
        return view.header(of: values[0]).kind == .uid && view.header(of: values[1]).kind == .uid
    }

    /// The bytes of entry `uid` when it is data: a plain data entry, or an NSData instance's
    /// (form `classData`); nil otherwise.
    static func dataBytes(_ view: BinaryPlistView, forms: [ObjectForm], entryOffsets: [UInt32], uid: Int) -> UnsafeBufferPointer<UInt8>? {
        let header = view.header(at: Int(entryOffsets[uid]))
        switch forms[uid] {
        case .data: return view.payload(header)
        case .classData: return view.value(in: header, forKey: data).map { view.payload(view.header(of: $0)) }
        default: return nil
        }
    }

    /// The data entry an NSTimeZone instance's `NS.data` names.
    static func timeZoneDataUID(_ view: BinaryPlistView, _ header: PlistObjectHeader) -> Int? {
        view.value(in: header, forKey: data).map { view.uidValue(of: $0) }
    }

    /// Turns back to `generic` every `timeZone` entry whose data is not bytes that
    /// `TZifSummary` reads. Each data entry is read once, however many zones share it.
    static func refineTimeZones(_ forms: inout [ObjectForm], view: BinaryPlistView, entryOffsets: [UInt32]) {
        var verdicts: [Int: Bool] = [:]
        for uid in forms.indices where forms[uid] == .timeZone {
            let header = view.header(at: Int(entryOffsets[uid]))
            guard let dataUID = timeZoneDataUID(view, header), dataUID > 0, dataUID < forms.count else {
                forms[uid] = .generic
                continue
            }
            let readable =
                verdicts[dataUID]
                ?? {
                    let verdict = dataBytes(view, forms: forms, entryOffsets: entryOffsets, uid: dataUID).flatMap(TZifSummary.parse) != nil
                    verdicts[dataUID] = verdict
                    return verdict
                }()
            if !readable { forms[uid] = .generic }
        }
    }

    /// Turns back to `generic` every calendar date and time zone one of whose references
    /// (`NS.format`, `NS.timezone`; `NS.name`, `NS.data`) is a salvage's placeholder: its mark
    /// would stand as one of the form's members, which stand together, and leaving it out
    /// (`JSONDocument.droppingBroken`) would leave a form the encoder refuses. In the generic
    /// form the mark is one archived key's value, which can be left out.
    static func refineAroundPlaceholders(_ forms: inout [ObjectForm], _ placeholders: Set<Int>, view: BinaryPlistView, entryOffsets: [UInt32]) {
        for uid in forms.indices where forms[uid] == .calendarDate || forms[uid] == .timeZone {
            let header = view.header(at: Int(entryOffsets[uid]))
            let keys = forms[uid] == .calendarDate ? [format, timeZone] : [name, data]
            if keys.contains(where: { key in view.value(in: header, forKey: key).map { placeholders.contains(view.uidValue(of: $0)) } ?? false }) {
                forms[uid] = .generic
            }
        }
    }

    // MARK: Members

    /// The archived keys of a calendar date (`header` holds `NS.format`) or a time zone that
    /// stay references, with their readable members, in the order the form writes them and
    /// the encoder writes the keys back: `$dateFormat`, `$zone`; `$timeZone`, `$tzif`.
    static func referenceMembers(_ view: BinaryPlistView, _ header: PlistObjectHeader) -> [(key: StaticString, member: StaticString)] {
        isTimeZone(view, header) ? [(name, MappingKeys.timeZone), (data, MappingKeys.tzif)] : [(format, MappingKeys.dateFormat), (timeZone, MappingKeys.zone)]
    }

    /// Whether the calendar date or time zone entry `header` is a time zone: a calendar date
    /// has a format.
    static func isTimeZone(_ view: BinaryPlistView, _ header: PlistObjectHeader) -> Bool {
        view.value(in: header, forKey: format) == nil
    }

    /// The readable member of an archived key that stays a reference (`referenceMembers`), by
    /// the key's text (the readers of places have the text); nil for a folded key.
    static func referenceMember(named key: String) -> StaticString? {
        for (name, member) in [(format, MappingKeys.dateFormat), (timeZone, MappingKeys.zone), (self.name, MappingKeys.timeZone), (data, MappingKeys.tzif)]
        where key == name.description {
            return member
        }
        return nil
    }

    /// The member a folded key is written in: `$decimal` for a decimal's keys, `$date` for a
    /// calendar date's time.
    static func foldedMember(_ form: ObjectForm) -> StaticString {
        form == .decimal ? MappingKeys.decimal : MappingKeys.date
    }

    /// The brackets the folded members of entry `uid` open inside its body (the body's own
    /// braces count 1): `$decimal` text 1; `$date` 1, or 2 when the time is written
    /// `{"$real": …}` (`timeWrapped`, asked of calendar dates only); `$zoneInfo` 3 (its
    /// object and its `abbreviations` array).
    static func foldedHeight(_ form: ObjectForm, timeWrapped: () -> Bool) -> Int {
        switch form {
        case .decimal: 1
        case .calendarDate: timeWrapped() ? 2 : 1
        default: 3
        }
    }
}

extension ReadableWriter {
    /// The members of a decimal or calendar date that stand for folded keys (`ValueObjectForms`),
    /// written after its meta keys and before its references (a time zone's `$zoneInfo` comes
    /// after its name: `writeFormMembers`). Out of line: it is off the recursion (see
    /// `StackBudget`).
    @inline(never)
    mutating func writeFoldedMembers(_ uid: Int) {
        let header = view.header(at: Int(archive.entryOffsets[uid]))
        switch archive.forms[uid] {
        case .decimal:
            guard let (value, compact) = ValueObjectForms.decimal(view, header, archive.classKeys) else { return }
            out.key(MappingKeys.decimal)
            out.string(value.text)
            if !compact {
                out.key(MappingKeys.compact)
                out.bool(false)
            }
        case .calendarDate:
            out.key(MappingKeys.date)
            out.mappedTime(view.real(view.header(of: view.value(in: header, forKey: ValueObjectForms.time)!)), placement.numbers)
        default:
            break
        }
    }

    /// A time zone's `$zoneInfo`: what the TZif data of entry `header` says.
    private mutating func writeZoneInfo(_ header: PlistObjectHeader) {
        guard let dataUID = ValueObjectForms.timeZoneDataUID(view, header),
            let bytes = ValueObjectForms.dataBytes(view, forms: archive.forms, entryOffsets: archive.entryOffsets, uid: dataUID),
            let summary = TZifSummary.parse(bytes)
        else { return }
        out.key(MappingKeys.zoneInfo)
        out.openObject()
        out.key(TZifSummary.abbreviationKey)
        out.string(summary.abbreviation)
        out.key(TZifSummary.offsetKey)
        out.int(Int64(summary.offset))
        out.key(TZifSummary.isDSTKey)
        out.bool(summary.isDST)
        out.key(TZifSummary.abbreviationsKey)
        out.openArray()
        for name in summary.abbreviations { out.string(name) }
        out.closeArray()
        if let rule = summary.rule {
            out.key(TZifSummary.ruleKey)
            out.string(rule)
        }
        out.closeObject()
    }

    /// The references of a calendar date or time zone (`ChildList.formMembers`), each under its
    /// readable member, in the form's order; a time zone's `$zoneInfo` between its name and its
    /// data (here, or where the split writer's second half resumes after the name), so that
    /// it reads `$timeZone`, `$zoneInfo`, `$tzif`. Out of line, as `writeOrderedChildren`.
    @inline(never)
    mutating func writeFormMembers(_ list: ChildList, from start: Int) {
        let header = PlistObjectHeader(kind: .dict, marker: 0, start: list.first, count: list.second)
        let members = ValueObjectForms.referenceMembers(view, header)
        let isTimeZone = ValueObjectForms.isTimeZone(view, header)
        for position in start..<list.count {
            if isTimeZone, position == 1 { writeZoneInfo(header) }
            guard let child = ReadableShape.formChild(view, list, at: position) else { continue }
            out.key(members[position].member)
            writeReference(view.uidValue(of: child.value), keyContext: false)
        }
    }
}
