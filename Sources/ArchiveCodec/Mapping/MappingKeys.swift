/// The mapping's vocabulary: every `$` key its JSON uses, defined once (docs/mapping.md, "The
/// `$` keys", which has a row for each). The writers, the encoders, the readers of places
/// (compare, summaries) and the tests name a key through these; openapi.yaml and the page follow
/// the same list (`all`), which a test checks.
///
/// The convention for member keys: a key that starts with a single `$` is the mapping's own; a
/// data key that starts with `$` is written with the `$` doubled, so no data key is ever read as
/// a marker. Some keys share their text with NSKeyedArchiver's own plist keys (`$archiver`,
/// `$top`, `$version`, `$class`, `$classes`, `$classhints`): the readable envelope and objects
/// name them as the archive does. The archive's other plist keys are `ArchiverKeys`'.
enum MappingKeys {
    // MARK: A keyed archive's envelope and objects

    /// The archiver's name in the envelope (NSKeyedArchiver's `$archiver`).
    static let archiver: StaticString = "$archiver"
    /// The archive's version in the envelope.
    static let version: StaticString = "$version"
    /// The archive's root objects, by key.
    static let top: StaticString = "$top"
    /// Objects a nesting bound moved out of place, by `$id`.
    static let table: StaticString = "$table"
    /// An object's class name (a typedstream object's too).
    static let className: StaticString = "$class"
    /// An object's class chain, written when it is not the one its class name implies.
    static let classes: StaticString = "$classes"
    /// An object's class hints (NSKeyedArchiver's `$classhints`).
    static let classHints: StaticString = "$classhints"
    /// The key of a shared object's identity, which a reference names.
    static let identity: StaticString = "$id"
    /// The key of a reference to an object written elsewhere: `{"$ref": n}`.
    static let reference: StaticString = "$ref"

    // MARK: Collections and value objects

    static let array: StaticString = "$array"
    static let set: StaticString = "$set"
    static let orderedSet: StaticString = "$orderedSet"
    static let dict: StaticString = "$dict"
    static let string: StaticString = "$string"
    static let data: StaticString = "$data"
    static let date: StaticString = "$date"
    static let uuid: StaticString = "$uuid"
    static let number: StaticString = "$number"
    /// A plain plist dictionary or array stored as an object of the archive.
    static let plist: StaticString = "$plist"
    /// A plist date stored as an object of the archive.
    static let plistDate: StaticString = "$plistDate"

    // MARK: Attributed strings (keyed archives and typedstreams)

    /// An attributed string's runs beside its `$string`; NSAttributeInfo's bytes as runs.
    static let runs: StaticString = "$runs"
    /// A run's length.
    static let length: StaticString = "$length"
    /// A run's attributes.
    static let attributes: StaticString = "$attributes"
    /// A run whose attributes are another run's, by its index.
    static let attributesOf: StaticString = "$attributesOf"

    // MARK: Decimal numbers, calendar dates, time zones (keyed archives)

    /// An NSDecimalNumber's exact value as decimal text (`DecimalText`).
    static let decimal: StaticString = "$decimal"
    /// `false` beside `$decimal` when the archive's `NS.compact` flag is clear.
    static let compact: StaticString = "$compact"
    /// An NSCalendarDate's format (`NS.format`), beside its `$date`.
    static let dateFormat: StaticString = "$dateFormat"
    /// An NSCalendarDate's time zone (`NS.timezone`), beside its `$date`.
    static let zone: StaticString = "$zone"
    /// An NSTimeZone's name (`NS.name`).
    static let timeZone: StaticString = "$timeZone"
    /// An NSTimeZone's TZif data (`NS.data`), beside its name.
    static let tzif: StaticString = "$tzif"
    /// What an NSTimeZone's TZif data says (`TZifSummary`), beside the data.
    static let zoneInfo: StaticString = "$zoneInfo"

    // MARK: Values the JSON cannot say

    /// NaN or an infinity; with exact numbers, a real without a fraction, as text.
    static let real: StaticString = "$real"
    /// An integer as decimal text.
    static let integer: StaticString = "$integer"
    /// Inline bytes of an archived key's value.
    static let bytes: StaticString = "$bytes"
    /// Any other inline plist value of an archived key.
    static let inline: StaticString = "$inline"
    /// Data that is UTF-8 text.
    static let text: StaticString = "$text"
    /// Inline bytes that are UTF-8 text.
    static let bytesText: StaticString = "$bytesText"
    /// A plain property list's UID.
    static let uid: StaticString = "$uid"
    /// A readable account of bookmark data, beside its bytes.
    static let bookmark: StaticString = "$bookmark"
    /// A readable account of an alias record, beside its bytes.
    static let alias: StaticString = "$alias"
    /// What a data value's bytes are by their signature, beside them (`DataKind`).
    static let kind: StaticString = "$kind"
    /// The byte order mark data's text stands behind, beside `$text` or `$bytesText`.
    static let bom: StaticString = "$bom"

    // MARK: Readable bytes

    /// NSColor's component text as numbers; a typedstream NSColor's components.
    static let components: StaticString = "$components"
    /// The RGB hex beside NSColor's components.
    static let hex: StaticString = "$hex"
    /// Whether NSColor's component text ends in a NUL, when it is not the usual.
    static let nulTerminated: StaticString = "$nulTerminated"
    /// `$nulTerminated` as builds before named it: still read by the encoder, never written.
    static let formerNulTerminated: StaticString = "$nul"
    /// NSIndexSet's ranges.
    static let ranges: StaticString = "$ranges"
    /// NSIndexPath's indexes.
    static let indexes: StaticString = "$indexes"

    // MARK: Documents

    /// The key of a plain property list's document: `{"$propertyList": value}`.
    static let propertyList: StaticString = "$propertyList"
    /// A nested keyed archive's document, in a data value.
    static let keyedArchive: StaticString = "$keyedArchive"
    /// `"xml"` for a nested property list written as XML.
    static let format: StaticString = "$format"
    /// A typedstream's document: its groups.
    static let typedStream: StaticString = "$typedstream"
    /// `"big"` for a big-endian typedstream.
    static let byteOrder: StaticString = "$byteOrder"
    /// A typedstream's system version, when it is not 1000.
    static let systemVersion: StaticString = "$systemVersion"

    // MARK: A typedstream's objects

    /// A generic object's groups.
    static let groups: StaticString = "$groups"
    /// An NSNumber's or NSValue's type string.
    static let type: StaticString = "$type"
    /// An NSValue's value.
    static let value: StaticString = "$value"
    /// An NSURL's base.
    static let base: StaticString = "$base"
    /// An NSURL's relative text.
    static let relative: StaticString = "$relative"
    /// An NSColor's colour space.
    static let space: StaticString = "$space"
    /// An NSColor's catalog colour: catalog and colour name.
    static let named: StaticString = "$named"
    /// An NSFont's name.
    static let name: StaticString = "$name"
    /// An NSFont's size.
    static let size: StaticString = "$size"
    /// An NSFont's flags.
    static let flags: StaticString = "$flags"

    /// Every key above, in the order of docs/mapping.md's table.
    // MARK: Salvage

    /// What a salvaged decode could not read, in place of the value or group that was there:
    /// `{"$broken": {"offset": n, "reason": "…", "rest": {"$data": base64}}}` (docs/mapping.md,
    /// "Salvage"). The encoder refuses it, or leaves out what holds it when told to.
    static let broken: StaticString = "$broken"
    /// The members of a `$broken` mark: the input's byte offset where reading failed, the
    /// refusal's words there, and the input's bytes from that offset on.
    static let brokenOffset: StaticString = "offset"
    static let brokenReason: StaticString = "reason"
    static let brokenRest: StaticString = "rest"

    static let all: [StaticString] = [
        archiver, version, top, table, className, classes, classHints, identity, reference,
        array, set, orderedSet, dict, string, data, date, uuid, number, plist, plistDate,
        runs, length, attributes, attributesOf,
        decimal, compact, dateFormat, zone, timeZone, tzif, zoneInfo,
        real, integer, bytes, inline, text, bytesText, uid, bookmark, alias, kind, bom,
        components, hex, nulTerminated, ranges, indexes,
        propertyList, keyedArchive, format, typedStream, byteOrder, systemVersion,
        groups, type, value, base, relative, space, named, name, size, flags,
        broken
    ]

    /// The character that starts the mapping's keys, doubled at the start of a data key.
    static let marker = UInt8(ascii: "$")

    /// Whether a member key (its text, unescaped) is one of the mapping's: it starts with one
    /// `$`. A data key is plain or starts with `$$`, which stands for one `$`.
    @inline(__always)
    static func isMappingKey(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.first == marker && !(text.count > 1 && text[1] == marker)
    }
}
