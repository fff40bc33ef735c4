/// What one object of the lossless JSON becomes in the plain view, read from its `$` keys
/// (docs/mapping.md, "The plain view"). Classifying looks at an object's own members only, never
/// below them, so it costs the object's `$` keys (the members up to the last of them, as
/// `mappingKeySpans` says) plus, for the few Foundation classes read by their archived keys
/// (NSURL, attributed strings), one more look at their members.
///
/// The identity pass (`PlainIdentities`) and the writer (`PlainWriter`) both classify through
/// this, so they agree on which members are written and which are left out.
struct PlainShape {
    enum Form {
        /// `{"$ref": n}`: the identity named by the value.
        case reference(JSONDocument.Value)
        /// The plain view of this value instead of the object: a value object's content
        /// (`$string`, `$data`, `$number`, …), a document's root (`$propertyList`,
        /// `$keyedArchive`; `$top`'s one value, or its object of several).
        case content(JSONDocument.Value)
        /// `$integer` or `$real`: decimal text, a number where JSON can hold it.
        case exactNumber(JSONDocument.Value)
        /// `$date`, `$plistDate`: ISO 8601 text, or seconds since 2001.
        case date(JSONDocument.Value)
        /// NSNull.
        case null
        /// NSURL: its relative text, and its base when it has one.
        case url(base: JSONDocument.Value?, relative: JSONDocument.Value)
        /// `$array`, `$set`, `$orderedSet`: an array of the elements (an object holding it
        /// under `$array` when the collection keeps an identity).
        case sequence(JSONDocument.Value)
        /// `$dict`: an array of `[key, value]` pairs.
        case pairs(JSONDocument.Value)
        /// A typedstream's generic object: its `$groups`.
        case groups(JSONDocument.Value)
        /// `$typedstream`: a stream's groups.
        case typedStream(JSONDocument.Value)
        /// A dictionary or an object of a class: its data members (and the readable members
        /// of a typedstream's NSColor or NSFont, their `$` dropped).
        case members
    }

    var form: Form
    /// `$class`, when the plain view writes it (not for Foundation's value classes).
    var className: JSONDocument.Value?
    /// `$id`.
    var identity: JSONDocument.Value?
    /// Whether the object is a document: its content is read in its own scope of identities.
    var opensDocument = false
    /// Whether the content is text (`$string`): a `$dict` key of this shape is a string key.
    var isText = false

    /// Whether the plain view is a value written wherever it is referred to: a reference to
    /// it is written as the value again. Collections and objects of classes keep their
    /// identity instead (`$id`, `$ref`).
    var isValue: Bool {
        switch form {
        case .content, .exactNumber, .date, .null, .url, .typedStream, .reference: true
        case .sequence, .pairs, .groups, .members: false
        }
    }

    /// The `$` keys of a typedstream's readable NSColor (its `$hex` too) and NSFont, and of a keyed archive's
    /// NSCalendarDate and NSTimeZone (`ValueObjectForms`), written without their `$`.
    static let renamedKeys: [StaticString] = [
        MappingKeys.space, MappingKeys.named, MappingKeys.name, MappingKeys.size, MappingKeys.flags, MappingKeys.version, MappingKeys.components,
        MappingKeys.hex, MappingKeys.date, MappingKeys.dateFormat, MappingKeys.zone, MappingKeys.timeZone, MappingKeys.zoneInfo, MappingKeys.tzif
    ]

    /// Foundation's dictionary classes, whose `$class` the plain view leaves out.
    static let dictionaryClasses: [StaticString] = ["NSDictionary", "NSMutableDictionary"]
    /// Classes whose archived keys hold their text in `NSString` (when the readable view keeps
    /// those keys rather than runs).
    static let attributedStringClasses: [StaticString] = ["NSAttributedString", "NSMutableAttributedString", "NSTextStorage"]
}

extension JSONDocument {
    /// The member key `key` among the renamed ones, as the index into `PlainShape.renamedKeys`.
    func renamedKeyIndex(_ key: Value) -> Int? {
        withString(key) { text in PlainShape.renamedKeys.firstIndex { JSONText.text(text, equals: $0) } }
    }

    /// How many of object `object`'s first members may hold a `$` key: every member after
    /// them holds a data key (`mappingKeySpans`).
    func mappingKeySpan(of object: Value) -> Int {
        let span = Int(mappingKeySpans[object.container])
        return span == Self.unboundedSpan ? count(object) : span
    }

    /// The plain shape of object `object` (a value of kind `.object`).
    func plainShape(of object: Value) throws(CodecError) -> PlainShape {
        var found = FoundKeys()
        let memberCount = count(object)
        var unread = mappingKeySpan(of: object)
        var cursor = children(of: object)
        while unread > 0, let (key, value) = nextMember(&cursor) {
            unread -= 1
            found.note(key: key, value: value, in: self)
        }
        if found.table != nil {
            throw CodecError(
                .invalidDocument, "the plain view takes a document without $table (decode without maxDepth)", jsonPath: path(to: object))
        }
        var shape = PlainShape(form: .members, className: found.className, identity: found.identity)
        func content(_ value: Value, document: Bool = false) -> PlainShape {
            shape.form = .content(value)
            shape.className = nil
            shape.opensDocument = document
            return shape
        }
        if let reference = found.reference { return PlainShape(form: .reference(reference)) }
        if let top = found.top {
            // One root: the document is its value; several: an object of them by key.
            guard kind(top) == .object, count(top) == 1 else { return content(top) }
            var members = children(of: top)
            return content(nextMember(&members)!.value)
        }
        if let root = found.document { return content(root, document: true) }
        if let groups = found.typedStream {
            shape.form = .typedStream(groups)
            shape.className = nil
            shape.opensDocument = true
            return shape
        }
        if let decimal = found.decimal {
            // NSDecimalNumber: its text as a JSON number ("NaN" as a string), as `$integer`.
            shape.form = .exactNumber(decimal)
            shape.className = nil
            return shape
        }
        // NSCalendarDate: its members, `$date` with them (`renamedKeys`), not the date alone.
        if found.calendarDate { return shape }
        if let number = found.exactNumber {
            shape.form = .exactNumber(number)
            shape.className = nil
            return shape
        }
        if let date = found.date {
            shape.form = .date(date)
            shape.className = nil
            return shape
        }
        if let account = found.account { return content(account) }
        if let data = found.data { return content(data) }
        if let text = found.string {
            shape = content(text)
            shape.isText = true
            return shape
        }
        // A `$space` beside `$components` without `$class` labels a keyed colour's components.
        if let readable = found.readableBytes, found.space == nil || found.className == nil { return content(readable) }
        if let value = found.value { return content(value) }
        if let relative = found.relative {
            shape.form = .url(base: found.base, relative: relative)
            shape.className = nil
            return shape
        }
        if let elements = found.sequence {
            shape.form = .sequence(elements)
            shape.className = nil
            return shape
        }
        if let pairs = found.dict {
            shape.form = .pairs(pairs)
            shape.className = nil
            return shape
        }
        if let groups = found.groups {
            shape.form = .groups(groups)
            return shape
        }
        guard let className = found.className else { return shape }
        if stringEquals(className, "NSNull"), memberCount == found.mappingKeys {
            return PlainShape(form: .null, identity: found.identity)
        }
        if PlainShape.dictionaryClasses.contains(where: { stringEquals(className, $0) }) {
            shape.className = nil
        } else if stringEquals(className, "NSURL"), let relative = dataMember("NS.relative", of: object) {
            shape.form = .url(base: dataMember("NS.base", of: object), relative: relative)
            shape.className = nil
        } else if PlainShape.attributedStringClasses.contains(where: { stringEquals(className, $0) }),
            let text = dataMember("NSString", of: object)
        {
            shape = content(text)
            shape.isText = true
        }
        return shape
    }

    /// The value of data member `key` of `object` (a key without `$`, compared as written).
    private func dataMember(_ key: StaticString, of object: Value) -> Value? {
        var cursor = children(of: object)
        while let (memberKey, value) = nextMember(&cursor) {
            if stringEquals(memberKey, key) { return value }
        }
        return nil
    }
}

/// The `$` keys an object holds, as `plainShape(of:)` looks for them.
private struct FoundKeys {
    var mappingKeys = 0
    var className: JSONDocument.Value?
    var identity: JSONDocument.Value?
    var reference: JSONDocument.Value?
    var top: JSONDocument.Value?
    var table: JSONDocument.Value?
    var document: JSONDocument.Value?
    var typedStream: JSONDocument.Value?
    var exactNumber: JSONDocument.Value?
    var date: JSONDocument.Value?
    var account: JSONDocument.Value?
    var data: JSONDocument.Value?
    var string: JSONDocument.Value?
    var readableBytes: JSONDocument.Value?
    var space: JSONDocument.Value?
    var value: JSONDocument.Value?
    var relative: JSONDocument.Value?
    var base: JSONDocument.Value?
    var sequence: JSONDocument.Value?
    var dict: JSONDocument.Value?
    var groups: JSONDocument.Value?
    var decimal: JSONDocument.Value?
    var calendarDate = false

    mutating func note(key: JSONDocument.Value, value: JSONDocument.Value, in document: JSONDocument) {
        document.withString(key) { text in
            guard MappingKeys.isMappingKey(text) else { return }
            mappingKeys += 1
            func equals(_ literal: StaticString) -> Bool { JSONText.text(text, equals: literal) }
            if equals(MappingKeys.className) {
                className = value
            } else if equals(MappingKeys.identity) {
                identity = value
            } else if equals(MappingKeys.reference) {
                reference = value
            } else if equals(MappingKeys.top) {
                top = value
            } else if equals(MappingKeys.table) {
                table = value
            } else if equals(MappingKeys.propertyList) || equals(MappingKeys.keyedArchive) {
                self.document = value
            } else if equals(MappingKeys.typedStream) {
                typedStream = value
            } else if equals(MappingKeys.integer) || equals(MappingKeys.real) {
                exactNumber = value
            } else if equals(MappingKeys.date) || equals(MappingKeys.plistDate) {
                date = value
            } else if equals(MappingKeys.bookmark) || equals(MappingKeys.alias) {
                account = value
            } else if equals(MappingKeys.data) || equals(MappingKeys.bytes) || equals(MappingKeys.text) || equals(MappingKeys.bytesText) {
                data = value
            } else if equals(MappingKeys.string) {
                string = value
            } else if equals(MappingKeys.components) || equals(MappingKeys.ranges) || equals(MappingKeys.indexes) || equals(MappingKeys.runs) {
                // `$runs` beside `$string` is an attributed string's, which `$string` decides.
                readableBytes = value
            } else if equals(MappingKeys.space) || equals(MappingKeys.named) {
                space = value
            } else if equals(MappingKeys.uuid) || equals(MappingKeys.number) || equals(MappingKeys.inline) || equals(MappingKeys.plist)
                || equals(MappingKeys.uid) || equals(MappingKeys.value)
            {
                self.value = value
            } else if equals(MappingKeys.relative) {
                relative = value
            } else if equals(MappingKeys.base) {
                base = value
            } else if equals(MappingKeys.array) || equals(MappingKeys.set) || equals(MappingKeys.orderedSet) {
                sequence = value
            } else if equals(MappingKeys.dict) {
                dict = value
            } else if equals(MappingKeys.groups) {
                groups = value
            } else if equals(MappingKeys.decimal) {
                decimal = value
            } else if equals(MappingKeys.dateFormat) || equals(MappingKeys.zone) {
                calendarDate = true
            }
        }
    }
}
