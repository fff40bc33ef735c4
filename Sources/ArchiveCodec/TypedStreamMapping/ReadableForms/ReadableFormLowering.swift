/// JSON → `ReadableBuildStep`s: reads a readable form in an `@` slot (docs/mapping.md,
/// "typedstream") and lists the builder calls that make the object, exactly the calls the
/// generic form of the same object makes (`ReadableForm` writes a form only for such objects).
///
/// - a string: an NSString; a number or `true`/`false`: an NSNumber (`ReadableNumber`);
///   an array: an NSArray; an object without `$classes`: the form its content key names
///   (`$string`, `$number`, `$array`, `$set`, `$dict`, `$data` or `$text`, `$date`, `$value` with `$type`,
///   `$relative` with `$base`, `$components` with `$space`, `$name` with `$version`, `$size` and
///   `$flags`, `$named`, `$string` with `$runs`), else an
///   NSDictionary of its data keys (`$$…` is the key `$…`);
/// - `$class` picks the class of a family (the mutable one; it must name the class of a form
///   that is always named); `$id` names the object for `{"$ref": n}`.
///
/// Nested `@` values become `.value` steps, read by the encoder when their turn comes: nothing
/// here descends into them. A malformed form is refused at the JSON value at fault.
struct ReadableFormLowering {
    typealias Value = JSONDocument.Value
    typealias Step = ReadableBuildStep

    let document: JSONDocument

    /// Appends to `steps` the steps making the object `value` describes; false, appending
    /// nothing, when `value` is a generic body (it has `$classes` or `$groups`). `value` is not
    /// null and not `{"$ref": n}`. Steps are appended to the caller's list, not returned as
    /// lists of their own: the encoder keeps one list for every form open at once.
    func steps(for value: Value, into steps: inout ReadableSteps) throws(CodecError) -> Bool {
        switch document.kind(value) {
        case .string: stringSteps(.string, id: nil, text: value, at: value, into: &steps)
        case .number, .bool: try numberSteps(id: nil, number: value, type: nil, at: value, into: &steps)
        case .array: arraySteps(.array, id: nil, elements: document.elements(of: value), at: value, into: &steps)
        case .object: return try objectSteps(value, into: &steps)
        case .null: throw document.invalid("null is not an object's form", at: value)
        }
        return true
    }

    // MARK: The object form

    /// Whether the object `value` opens as the generic form does: `$classes` or `$groups`
    /// first, or after `$class` (the decoder writes every generic body so). The walk of
    /// `objectSteps` stops at such a key with the same outcome, having read nothing before
    /// it that could fail; this tells it by two keys' lengths and bytes, where the walk
    /// read every key into a `FormKey` and sorted its members into lists.
    private func startsGeneric(_ value: Value) -> Bool {
        func isGeneric(_ key: Value) -> Bool { document.stringEquals(key, MappingKeys.classes) || document.stringEquals(key, MappingKeys.groups) }
        var cursor = document.children(of: value)
        guard let first = document.nextMember(&cursor) else { return false }
        if isGeneric(first.key) { return true }
        guard document.stringEquals(first.key, MappingKeys.className), let second = document.nextMember(&cursor) else { return false }
        return isGeneric(second.key)
    }

    /// The members of a readable form's object, sorted out.
    private struct Members {
        var className: Value?
        var id: (number: Int64, at: Value)?
        var contents: [(key: FormKey, at: Value, value: Value)] = []
        /// The keys that go with a content key (`FormKey.contents`), at most one each.
        var companions: [(key: FormKey, at: Value, value: Value)] = []
        var dataKeys: [(key: Value, value: Value)] = []
    }

    /// The companions a form's content came with, by key (each at most once: the parser
    /// refuses a key repeated within an object).
    private struct Companions {
        var type: Value?
        var runs: Value?
        var space: Value?
        var base: Value?
        var version: Value?
        var size: Value?
        var flags: Value?
        var kind: Value?
        var bom: Value?
        var hex: Value?

        subscript(key: FormKey) -> Value? {
            get {
                switch key {
                case .type: type
                case .runs: runs
                case .space: space
                case .base: base
                case .version: version
                case .size: size
                case .flags: flags
                case .kind: kind
                case .bom: bom
                case .hex: hex
                default: nil
                }
            }
            set {
                switch key {
                case .type: type = newValue
                case .runs: runs = newValue
                case .space: space = newValue
                case .base: base = newValue
                case .version: version = newValue
                case .size: size = newValue
                case .flags: flags = newValue
                case .kind: kind = newValue
                case .bom: bom = newValue
                case .hex: hex = newValue
                default: preconditionFailure("\(key.text) is no companion")
                }
            }
        }
    }

    /// Lowers the object form `value`; false when it is the generic form (a key of it met
    /// before any error), which the encoder reads itself.
    private func objectSteps(_ value: Value, into steps: inout ReadableSteps) throws(CodecError) -> Bool {
        if startsGeneric(value) { return false }
        var members = Members()
        var cursor = document.children(of: value)  // members are walked in place
        while let (key, member) = document.nextMember(&cursor) {
            let read = document.withString(key) { text -> FormKey.Read in
                guard MappingKeys.isMappingKey(text) else { return .dataKey }
                return FormKey(text).map(FormKey.Read.mapping) ?? .unknown
            }
            guard case .mapping(let formKey) = read else {
                if case .dataKey = read {
                    members.dataKeys.append((key, member))
                    continue
                }
                throw document.invalid(
                    "unknown key in a typedstream object: the readable forms have $class, $id and one of $string (with $runs for an attributed string), $number or $value (with $type), $array, $set, $dict, $data or $text, $date, $components (with $space), $relative (with $base), $name (with $version, $size, $flags), $named, or data keys ($data may have $kind beside it, $text $bom); the generic form has $classes and $groups",
                    at: key)
            }
            switch formKey.role {
            case .generic: return false
            case .className: members.className = member
            case .identity:
                guard document.kind(member) == .number, case .signed(let number) = document.number(member) else {
                    throw document.invalid("$id is an integer", at: member)
                }
                members.id = (number, member)
            case .content: members.contents.append((formKey, key, member))
            case .companion: members.companions.append((formKey, key, member))
            }
        }
        guard members.contents.count + (members.dataKeys.isEmpty ? 0 : 1) <= 1 else {
            throw document.invalid(
                "an object's form has one content: $string, $number, $value, $array, $set, $dict, $data, $text, $date, $components, $named, $relative, $name or data keys", at: value)
        }
        let content = members.contents.first
        var companions = Companions()
        for (key, at, member) in members.companions {
            let contents = key.contents
            guard let content, contents.contains(content.key) else {
                throw document.invalid("\(key.text) goes with \(contents.map { $0.text.description }.joined(separator: " or ")) only", at: at)
            }
            companions[key] = member
        }
        guard let content else {
            let readableClass = try resolve(members.className, among: [.dictionary, .mutableDictionary])
            stringKeyedSteps(readableClass, id: members.id, entries: members.dataKeys, at: value, into: &steps)
            return true
        }
        let (id, body) = (members.id, content.value)
        switch content.key {
        case .string:
            if let runs = companions.runs {
                let readableClass = try resolve(members.className, among: [.attributedString, .mutableAttributedString])
                try attributedStringSteps(readableClass, id: id, string: body, runs: runs, at: value, into: &steps)
                return true
            }
            let readableClass = try resolve(members.className, among: [.string, .mutableString])
            guard document.kind(body) == .string else { throw document.invalid("$string is text", at: body) }
            stringSteps(readableClass, id: id, text: body, at: value, into: &steps)
        case .number:
            _ = try resolve(members.className, among: [.number])
            try numberSteps(id: id, number: body, type: companions.type, at: value, into: &steps)
        case .array, .set:
            let isSet = content.key == .set
            let readableClass = try resolve(members.className, among: isSet ? [.set, .mutableSet] : [.array, .mutableArray])
            guard document.kind(body) == .array else { throw document.invalid("\(content.key.text) is an array of objects", at: body) }
            arraySteps(readableClass, id: id, elements: document.elements(of: body), at: value, into: &steps)
        case .dict:
            let readableClass = try resolve(members.className, among: [.dictionary, .mutableDictionary])
            try pairSteps(readableClass, id: id, pairs: body, at: value, into: &steps)
        case .data, .text:
            let readableClass = try resolve(members.className, among: [.data, .mutableData])
            let bytes =
                if content.key == .text, let mark = companions.bom {
                    try document.markedTextBytes(body, mark: mark)
                } else if content.key == .text {
                    try document.textBytes(body)
                } else {
                    try document.dataBytes(body)
                }
            // `$kind` beside `$data` only reads the bytes: checked against them, as in the other formats.
            if let kind = companions.kind { try document.checkAccount(.kind, kind, against: bytes) }
            dataSteps(readableClass, id: id, bytes: bytes, body: body, at: value, into: &steps)
        case .date:
            _ = try resolve(members.className, among: [.date])
            let time = try document.time(body)
            steps.append(.beginObject(.date, id: id, at: value))
            group("d", .double(time, at: body), at: body, into: &steps)
            steps.append(.endObject(at: value))
        case .components:
            _ = try resolve(members.className, among: [.color])
            try colorSteps(id: id, space: companions.space, components: body, hex: companions.hex, at: value, into: &steps)
        case .named:
            _ = try resolve(members.className, among: [.color])
            guard document.kind(body) == .array, document.count(body) == 3 else {
                throw document.invalid("a named colour's $named is [catalog, name, colour]", at: body)
            }
            steps.append(.beginObject(.color, id: id, at: value))
            group("c", .integer(ReadableColor.named, at: body), at: body, into: &steps)
            steps.group("@@@", at: body)
            for part in document.elements(of: body) { steps.append(.value(part)) }
            steps.append(.end(at: body))
            steps.append(.endObject(at: value))
        case .name:
            _ = try resolve(members.className, among: [.fontVersion30, .fontVersion21])
            try fontSteps(id: id, name: body, companions: companions, at: value, into: &steps)
        case .value:
            _ = try resolve(members.className, among: [.value])
            try valueSteps(id: id, type: companions.type, value: body, at: value, into: &steps)
        default:  // .relative
            _ = try resolve(members.className, among: [.url])
            let base = companions.base
            steps.append(.beginObject(.url, id: id, at: value))
            group("c", .integer(base == nil ? 0 : 1, at: base ?? value), at: value, into: &steps)
            if let base { group("@", .value(base), at: base, into: &steps) }
            group("@", .value(body), at: body, into: &steps)
            steps.append(.endObject(at: value))
        }
        return true
    }

    /// The readable class `$class` names among `family` (the first when `$class` is absent).
    private func resolve(_ className: Value?, among family: [ReadableClass]) throws(CodecError) -> ReadableClass {
        guard let className else { return family[0] }
        let named = document.kind(className) == .string ? document.withString(className) { ReadableClass.named($0) } : nil
        guard let named, family.contains(named) else {
            let names = family.map(\.name).joined(separator: " or ")
            throw document.invalid("$class is \(names) for this content; another class needs the generic form ($classes and $groups)", at: className)
        }
        return named
    }

    // MARK: The forms

    /// A group of one value.
    private func group(_ type: StaticString, _ step: Step, at value: Value, into steps: inout ReadableSteps) {
        steps.group(type, at: value)
        steps.append(step)
        steps.append(.end(at: value))
    }

    /// A group of one value, of a type string made here.
    private func group(_ type: some Collection<UInt8>, _ step: Step, at value: Value, into steps: inout ReadableSteps) {
        steps.group(type, at: value)
        steps.append(step)
        steps.append(.end(at: value))
    }

    /// NSString, NSMutableString: `{"+": text}`, the text of JSON string `text` from its byte
    /// `skip` on.
    private func stringSteps(_ readableClass: ReadableClass, id: (number: Int64, at: Value)?, text: Value, skip: Int = 0, at value: Value, into steps: inout ReadableSteps) {
        steps.append(.beginObject(readableClass, id: id, at: value))
        group("+", .byteString(text: text, skip: skip, at: value), at: value, into: &steps)
        steps.append(.endObject(at: value))
    }

    /// NSNumber: `{"*": type}`, then the value at that type.
    private func numberSteps(id: (number: Int64, at: Value)?, number: Value, type: Value?, at value: Value, into steps: inout ReadableSteps) throws(CodecError) {
        let kind = document.kind(number)
        guard
            let implied = ReadableNumber.impliedType(
                kind: kind, number: kind == .number ? document.number(number) : nil, wrapsInteger: document.singleMember(number, named: MappingKeys.integer) != nil)
        else {
            throw document.invalid("an NSNumber's value is a number, true or false, {\"$real\": …} or {\"$integer\": …}", at: number)
        }
        var code = implied
        if let type {
            let text = document.kind(type) == .string ? document.withString(type) { Array($0) } : []
            guard text.count == 1, ReadableNumber.isNumberType(text[0]) else { throw document.invalid("$type is one of c C s S i I l L q Q B f d", at: type) }
            code = text[0]
        }
        let valueStep: Step = kind == .bool ? .truth(document.bool(number), at: number) : .value(number)
        steps.append(.beginObject(.number, id: id, at: value))
        steps.group("*", at: value)
        steps.cString(CollectionOfOne(code), at: type ?? value)
        steps.append(.end(at: value))
        group(CollectionOfOne(code), valueStep, at: value, into: &steps)
        steps.append(.endObject(at: value))
    }

    /// NSArray, NSMutableArray: `{"i": count}`, then an `@` group per element; NSSet,
    /// NSMutableSet the same with `{"I": count}`.
    private func arraySteps(_ readableClass: ReadableClass, id: (number: Int64, at: Value)?, elements: [Value], at value: Value, into steps: inout ReadableSteps) {
        let isSet = readableClass == .set || readableClass == .mutableSet
        let count: Step = isSet ? .unsigned(UInt64(elements.count), at: value) : .integer(Int64(elements.count), at: value)
        steps.append(.beginObject(readableClass, id: id, at: value))
        group(isSet ? "I" : "i", count, at: value, into: &steps)
        steps.entries(.elements(elements))
        steps.append(.endObject(at: value))
    }

    /// Appends the steps of entry `index` of `entries`: its `@` group, or a dictionary entry's two.
    func steps(forEntry index: Int, of entries: ReadableEntries, into steps: inout ReadableSteps) throws(CodecError) {
        switch entries {
        case .elements(let elements):
            group("@", .value(elements[index]), at: elements[index], into: &steps)
        case .pairs(let pairs):
            let entry = pairs[index]
            guard document.kind(entry) == .array, document.count(entry) == 2 else { throw document.invalid("a $dict entry is [key, value]", at: entry) }
            var parts = document.children(of: entry)
            let key = document.nextElement(&parts)!
            let value = document.nextElement(&parts)!
            group("@", .value(key), at: key, into: &steps)
            group("@", .value(value), at: value, into: &steps)
        case .stringKeyed(let keyed):
            let (key, member) = keyed[index]
            let skip = document.withString(key) { $0.count >= 2 && $0[0] == MappingKeys.marker && $0[1] == MappingKeys.marker ? 1 : 0 }
            steps.group("@", at: key)
            stringSteps(.string, id: nil, text: key, skip: skip, at: key, into: &steps)
            steps.append(.end(at: key))
            group("@", .value(member), at: member, into: &steps)
        }
    }

    /// NSDictionary from `$dict`'s `[key, value]` pairs: `{"i": count}`, then an `@` group
    /// per key and per value.
    private func pairSteps(_ readableClass: ReadableClass, id: (number: Int64, at: Value)?, pairs: Value, at value: Value, into steps: inout ReadableSteps) throws(CodecError) {
        guard document.kind(pairs) == .array else { throw document.invalid("$dict is an array of [key, value] pairs", at: pairs) }
        let entries = document.elements(of: pairs)
        steps.append(.beginObject(readableClass, id: id, at: value))
        group("i", .integer(Int64(entries.count), at: pairs), at: pairs, into: &steps)
        steps.entries(.pairs(entries))
        steps.append(.endObject(at: value))
    }

    /// NSDictionary from data keys: each key a new NSString (`$$…` is the key `$…`).
    private func stringKeyedSteps(
        _ readableClass: ReadableClass, id: (number: Int64, at: Value)?, entries: [(key: Value, value: Value)], at value: Value, into steps: inout ReadableSteps
    ) {
        steps.append(.beginObject(readableClass, id: id, at: value))
        group("i", .integer(Int64(entries.count), at: value), at: value, into: &steps)
        steps.entries(.stringKeyed(entries))
        steps.append(.endObject(at: value))
    }

    /// NSData, NSMutableData: `{"i": n}`, then `{"[nc]": bytes}`.
    private func dataSteps(_ readableClass: ReadableClass, id: (number: Int64, at: Value)?, bytes: [UInt8], body: Value, at value: Value, into steps: inout ReadableSteps) {
        steps.append(.beginObject(readableClass, id: id, at: value))
        group("i", .integer(Int64(bytes.count), at: body), at: body, into: &steps)
        steps.group("[\(bytes.count)c]".utf8, at: body)
        steps.byteArray(bytes, at: body)
        steps.append(.end(at: body))
        steps.append(.endObject(at: value))
    }

    /// NSAttributedString, NSMutableAttributedString: the string's `@` group, then per run
    /// `{"iI": [number, length]}`, followed by `{"@": attributes}` when the run brings new
    /// attributes (numbered 1, 2, … in order) and not when `$attributesOf` names an earlier run.
    private func attributedStringSteps(
        _ readableClass: ReadableClass, id: (number: Int64, at: Value)?, string: Value, runs: Value, at value: Value, into steps: inout ReadableSteps
    ) throws(CodecError) {
        guard document.kind(runs) == .array else { throw document.invalid("$runs is an array of {\"$length\": n, \"$attributes\": …} runs", at: runs) }
        steps.append(.beginObject(readableClass, id: id, at: value))
        group("@", .value(string), at: string, into: &steps)
        var numbers: [Int64?] = []  // per run: the attribute number it introduced
        var introduced: Int64 = 0
        var cursor = document.children(of: runs)
        while let run = document.nextElement(&cursor) {
            var length: Value?
            var attributes: Value?
            var attributesOf: Value?
            var members = document.kind(run) == .object ? document.children(of: run) : .none
            while let (key, member) = document.nextMember(&members) {
                if document.stringEquals(key, MappingKeys.length) {
                    length = member
                } else if document.stringEquals(key, MappingKeys.attributes) {
                    attributes = member
                } else if document.stringEquals(key, MappingKeys.attributesOf) {
                    attributesOf = member
                } else {
                    throw document.invalid("a run has $length and $attributes or $attributesOf only", at: key)
                }
            }
            guard let length, (attributes == nil) != (attributesOf == nil) else {
                throw document.invalid("a run is {\"$length\": n, \"$attributes\": …} or {\"$length\": n, \"$attributesOf\": earlier run}", at: run)
            }
            let number: Int64
            if let attributesOf {
                guard document.kind(attributesOf) == .number, case .signed(let earlier) = document.number(attributesOf), numbers.indices.contains(Int(earlier)),
                    let earlierNumber = numbers[Int(earlier)]
                else { throw document.invalid("$attributesOf is the index of an earlier run that has $attributes", at: attributesOf) }
                number = earlierNumber
                numbers.append(nil)
            } else {
                introduced += 1
                number = introduced
                numbers.append(number)
            }
            steps.group("iI", at: run)
            steps.append(.integer(number, at: run))
            steps.append(.value(length))
            steps.append(.end(at: run))
            if let attributes { group("@", .value(attributes), at: attributes, into: &steps) }
        }
        steps.append(.endObject(at: value))
    }

    /// NSColor: `{"c": space}`, then `{"ff…": components}`, a float per component. A `$hex`
    /// beside an RGB space's components only reads them: it must be their hex (`ColorHex`).
    private func colorSteps(
        id: (number: Int64, at: Value)?, space: Value?, components: Value, hex: Value?, at value: Value, into steps: inout ReadableSteps
    ) throws(CodecError) {
        let names = ReadableColor.spaces.map(\.name).joined(separator: ", ")
        guard let space, document.kind(space) == .string, let number = ReadableColor.number(named: document.stringValue(space)) else {
            throw document.invalid("an NSColor's $space is one of \(names)", at: space ?? value)
        }
        let count = ReadableColor.spaces[Int(number) - 1].components
        guard document.kind(components) == .array, document.count(components) == count else {
            throw document.invalid("a \(document.stringValue(space)) colour has \(count) components", at: components)
        }
        if let hex { try checkHex(hex, space: number, components: components) }
        steps.append(.beginObject(.color, id: id, at: value))
        group("c", .integer(number, at: space), at: space, into: &steps)
        steps.group(repeatElement(UInt8(ascii: "f"), count: count), at: components)
        var cursor = document.children(of: components)
        while let component = document.nextElement(&cursor) { steps.append(.value(component)) }
        steps.append(.end(at: components))
        steps.append(.endObject(at: value))
    }

    /// A typedstream colour's `$hex`: text, in an RGB space, equal (either letter case) to the hex
    /// of the components as the stream holds them (each a float: `ColorHex` of their values).
    private func checkHex(_ hex: Value, space: Int64, components: Value) throws(CodecError) {
        guard ReadableColor.hasHex(space: space) else { throw document.invalid("$hex goes with an RGB space's components only", at: hex) }
        var values: [Double] = []
        var cursor = document.children(of: components)
        while let component = document.nextElement(&cursor) {
            // A number, or `{"$real": …}` as `exactNumbers` writes a whole one (the value step
            // that writes the component refuses anything else).
            let value: Double
            if let wrapped = document.singleMember(component, named: MappingKeys.real) {
                value = try document.wrappedReal(wrapped.value)
            } else {
                switch document.kind(component) == .number ? document.number(component) : nil {
                case .signed(let number)?: value = Double(number)
                case .unsigned(let number)?: value = Double(number)
                case .real(let number)?: value = number
                case nil: throw document.invalid("a colour's component is a number", at: component)
                }
            }
            values.append(Double(Float(value)))
        }
        guard document.kind(hex) == .string, ColorHex.matches(document.stringValue(hex), values) else {
            let expected = ColorHex.text(values)
            throw document.invalid(
                "$hex disagrees with the colour's components here: they say \(expected.map { "\"\($0)\"" } ?? "no hex (a component outside 0 … 1)"). The components are the colour: edit them, or leave $hex out",
                at: hex)
        }
    }

    /// NSFont: `{"i": n}`, `{"[nc]": name list}` (`ReadableFont`), `{"f": size}`, a `{"c": flag}`
    /// per flag.
    private func fontSteps(id: (number: Int64, at: Value)?, name: Value, companions: Companions, at value: Value, into steps: inout ReadableSteps) throws(CodecError) {
        guard document.kind(name) == .string else { throw document.invalid("an NSFont's $name is text", at: name) }
        var readableClass = ReadableClass.fontVersion30
        if let version = companions.version {
            let known: [Int64: ReadableClass] = [21: .fontVersion21, 30: .fontVersion30]
            guard document.kind(version) == .number, case .signed(let number) = document.number(version), let known = known[number] else {
                throw document.invalid("an NSFont's $version is 21 or 30", at: version)
            }
            readableClass = known
        }
        guard let size = companions.size else { throw document.invalid("an NSFont has $size", at: value) }
        guard let flags = companions.flags, document.kind(flags) == .array, document.count(flags) == ReadableFont.flagCount else {
            throw document.invalid("an NSFont's $flags are \(ReadableFont.flagCount) integers", at: companions.flags ?? value)
        }
        let list = ReadableFont.nameList(document.stringValue(name), version: readableClass.chain[0].version)
        steps.append(.beginObject(readableClass, id: id, at: value))
        group("i", .integer(Int64(list.count), at: name), at: name, into: &steps)
        steps.group("[\(list.count)c]".utf8, at: name)
        steps.byteArray(list, at: name)
        steps.append(.end(at: name))
        group("f", .value(size), at: size, into: &steps)
        var cursor = document.children(of: flags)
        while let flag = document.nextElement(&cursor) { group("c", .value(flag), at: flag, into: &steps) }
        steps.append(.endObject(at: value))
    }

    /// NSValue: `{"*": type}`, then `{type: value}`.
    private func valueSteps(id: (number: Int64, at: Value)?, type: Value?, value content: Value, at value: Value, into steps: inout ReadableSteps) throws(CodecError) {
        guard let type, document.kind(type) == .string else { throw document.invalid("an NSValue's $type is its type encoding, such as \"{CGSize=dd}\"", at: type ?? value) }
        let text = document.stringValue(type)
        steps.append(.beginObject(.value, id: id, at: value))
        steps.group("*", at: type)
        steps.cString(text.utf8, at: type)
        steps.append(.end(at: type))
        steps.group(text.utf8, at: type)
        steps.append(.value(content))
        steps.append(.end(at: content))
        steps.append(.endObject(at: value))
    }
}
