/// The readable forms of NSDecimalNumber, NSCalendarDate and NSTimeZone (`ValueObjectForms`)
/// written back in Foundation's layout: each form's archived keys, of the types Foundation
/// writes them in, so that the archive decodes to the same form again.
///
/// What is refused (`invalidDocument` at the member, with its JSON path): decimal text that
/// `DecimalText` does not read, a `$compact` that is not a boolean, a `$date` that is not a
/// time, `$tzif` that is not data holding a TZif file, and a `$zoneInfo` that differs from
/// what the TZif data says (`TZifSummary`): a summary edited without its bytes would
/// otherwise be dropped without a word.
extension ArchiveEncoder {
    /// Hands the object a UID; its keys are filled from `pending` (`fillValueForm`), as an
    /// instance's are, since a calendar date's and a time zone's references may lead anywhere.
    mutating func encodeValueFormObject(_ object: Value, meta: ObjectMeta) -> Int {
        let uid = uidFor(object, meta: meta)
        pending.append(PendingObject(value: object, uid: uid, meta: meta))
        return uid
    }

    /// Fills entry `uid` with the archived keys of the form object `object` (its meta `meta`)
    /// holds.
    mutating func fillValueForm(_ uid: Int, object: Value, meta: ObjectMeta) throws(CodecError) {
        let form = document.valueFormMembers(of: object)
        guard let kind = form.kind else { preconditionFailure("fillValueForm is asked of a meta with hasValueForm") }
        let pairs = scratch.frame()
        switch kind {
        case .decimal:
            let textValue = form.decimal!
            guard document.kind(textValue) == .string, let value = document.withString(textValue, { DecimalText(text: $0) }) else {
                throw fail(
                    "$decimal takes a decimal number's text: digits with an optional - and fraction, an optional exponent (\"-123.45\", \"12E5\"), or \"NaN\"; up to 38 digits, the exponent within -128 … 127",
                    at: textValue)
            }
            var compact = true
            if let flag = form.compact {
                guard document.kind(flag) == .bool else { throw fail("$compact takes true or false", at: flag) }
                compact = document.bool(flag)
            }
            try append(ValueObjectForms.exponent, tree.integer(PlistInteger(signed: Int64(value.exponent))))
            try append(ValueObjectForms.length, tree.integer(PlistInteger(signed: Int64(value.length))))
            try append(ValueObjectForms.negative, tree.bool(value.negative))
            try append(ValueObjectForms.compact, tree.bool(compact))
            try append(ValueObjectForms.byteOrder, tree.integer(PlistInteger(signed: 1)))
            let mantissa = try value.mantissaBytes.withUnsafeBufferPointer { (bytes) throws(CodecError) -> UInt32 in try tree.data(bytes) }
            try append(ValueObjectForms.mantissa, mantissa)
            try fillInstance(uid, meta: meta, defaultClass: "NSDecimalNumber", pairs: pairs, ownPairs: 6)
        case .calendarDate:
            try append(ValueObjectForms.time, tree.real(document.time(meta.wrapper!.value)))
            try append(ValueObjectForms.format, tree.uid(UInt64(encodeObject(form.dateFormat!))))
            try append(ValueObjectForms.timeZone, tree.uid(UInt64(encodeObject(form.zone!))))
            try fillInstance(uid, meta: meta, defaultClass: "NSCalendarDate", pairs: pairs, ownPairs: 3)
        case .timeZone:
            try checkZoneInfo(form.zoneInfo!, against: form.tzif!)
            try append(ValueObjectForms.name, tree.uid(UInt64(encodeObject(form.timeZone!))))
            try append(ValueObjectForms.data, tree.uid(UInt64(encodeObject(form.tzif!))))
            try fillInstance(uid, meta: meta, defaultClass: "NSTimeZone", pairs: pairs, ownPairs: 2)
        }
    }

    private mutating func append(_ key: StaticString, _ value: UInt32) throws(CodecError) {
        scratch.append(try tree.string(static: key))
        scratch.append(value)
    }

    /// Refuses `$zoneInfo` unless it is what `TZifSummary` reads from the bytes of `$tzif`
    /// (data in place, or the data object a `$ref` names).
    mutating func checkZoneInfo(_ info: Value, against tzif: Value) throws(CodecError) {
        var data = tzif
        if document.kind(tzif) == .object, let ref = try document.meta(of: tzif).ref {
            guard let target = objectOfID[try idKey(ref)] else { throw fail("$ref to an $id no object in the document defines", at: ref) }
            data = target
        }
        guard document.kind(data) == .object, let member = document.member(of: data, MappingKeys.data) else {
            throw fail("$tzif takes the time zone's TZif data, {\"$data\": base64} (with $class when it is an NSData instance)", at: tzif)
        }
        let bytes = try document.dataBytes(member)
        guard let summary = bytes.withUnsafeBufferPointer({ TZifSummary.parse($0) }) else {
            throw fail("$tzif holds no TZif file that can be read (RFC 8536): a time zone whose data is not one keeps its archived keys", at: member)
        }
        try document.checkZoneInfo(info, summary)
    }
}

extension JSONDocument {
    /// Refuses `info` unless it is `summary` as the readable writer writes it: `abbreviation`,
    /// `offset`, `isDST`, `abbreviations`, and `rule` exactly when the data has one, nothing else.
    func checkZoneInfo(_ info: Value, _ summary: TZifSummary) throws(CodecError) {
        guard kind(info) == .object else { throw invalid("$zoneInfo takes what the TZif data says: {\"abbreviation\": …, \"offset\": …, \"isDST\": …, \"abbreviations\": […]}", at: info) }
        var seen = 0
        for (key, value) in members(of: info) {
            seen += 1
            let name = stringValue(key)
            let matches: Bool
            switch name {
            case TZifSummary.abbreviationKey.description: matches = kind(value) == .string && stringValue(value) == summary.abbreviation
            case TZifSummary.offsetKey.description:
                if kind(value) == .number, case .signed(let offset) = number(value) { matches = offset == Int64(summary.offset) } else { matches = false }
            case TZifSummary.isDSTKey.description: matches = kind(value) == .bool && bool(value) == summary.isDST
            case TZifSummary.abbreviationsKey.description:
                matches = kind(value) == .array && elements(of: value).map { kind($0) == .string ? stringValue($0) : "\u{0}" } == summary.abbreviations
            case TZifSummary.ruleKey.description: matches = summary.rule != nil && kind(value) == .string && stringValue(value) == summary.rule
            default:
                throw invalid("$zoneInfo has no member \(DocumentPath.quoted(name)): it holds abbreviation, offset, isDST, abbreviations and rule", at: key)
            }
            if !matches { throw invalid("$zoneInfo's \(name) is not what the TZif data of $tzif says; edit the data, the summary follows it", at: value) }
        }
        let expected = summary.rule == nil ? 4 : 5
        if seen != expected {
            throw invalid("$zoneInfo is not what the TZif data of $tzif says: it has \(seen) of the \(expected) members the data gives", at: info)
        }
    }
}
