/// Which readable form an object of a typedstream takes in the JSON, decided from the stream
/// alone (`TypedStreamJSONWriter` asks for each object where it first occurs).
///
/// Contract: `of(_:in:readableClasses:shared:)` answers a form only when the object's class
/// chain, groups, type strings and values are exactly what `TypedStreamJSONEncoder` rebuilds
/// from that form (`ReadableFormLowering`): the same builder calls the generic form would make,
/// so the two forms lose and keep the same (neither keeps a number spelled otherwise than
/// Apple's writer spells it, docs/mapping.md). Anything else (another version, an extra or
/// missing group, a nil string, text that is not UTF-8) answers nil: the generic form.
///
/// The answer depends on nothing the generic form's round trip changes (it changes only
/// number spellings and C-string sharing), so a stream and the stream its JSON encodes to read
/// as the same JSON: what `archive-tool compare` relies on.
///
/// Leaf forms (strings, numbers, data, dates, colours) are written whole from the model;
/// container forms (arrays, sets, dictionaries, attributed strings, values, URLs) are written
/// while the walk goes through the object's groups, each group playing the role
/// `role(ofGroup:roles:)` gives it.
///
/// Every case holds plain values (spans of the stream, indices, ranges), nothing counted: a
/// form is made for every object of a readable class and copied as the walk enters and
/// leaves it, which for a form holding a string or an array cost a retain, a release and an
/// outlined copy and destroy each time (2 % of a typedstream's decode).
enum ReadableForm {
    /// NSString, NSMutableString: one `+` group of UTF-8 text.
    ///
    /// The leaf forms hold spans of the stream's storage, not slices of it: a form is made and
    /// dropped for every object the writer meets, and a slice would retain and release the
    /// stream's bytes each time.
    case string(ReadableClass, text: TypedStream.Span)
    /// NSNumber: a `*` group naming the type, then one value of that type (value `value`).
    case number(type: UInt8, value: Int)
    /// NSData, NSMutableData: `i` count, then `[Nc]` of as many bytes.
    case data(ReadableClass, bytes: TypedStream.Span)
    /// NSDate: one `d` group (value `value`), seconds since 2001.
    case date(value: Int)
    /// NSColor: a `c` group naming the space, then a group of its float components.
    case color(space: Int64, components: Range<Int>)
    /// A named NSColor: `c` 6, then one `@@@` group (catalog, name, colour).
    case namedColor
    /// NSFont (`ReadableFont`): the property list naming it (`nameList`, which
    /// `ReadableFont.name(in:version:)` reads), the `f` size value `size`, the values of its
    /// flags (one `c` group each, so one run).
    case font(ReadableClass, nameList: TypedStream.Span, size: Int, flags: Range<Int>)
    /// NSArray, NSMutableArray: `i` count, then that many `@` groups; NSSet, NSMutableSet the
    /// same with an `I` count.
    case array(ReadableClass)
    /// NSDictionary, NSMutableDictionary: `i` count, then a key and a value `@` group per
    /// entry; `stringKeys` when every key is a new, unshared NSString of distinct UTF-8 text
    /// (the `{…}` form), else `[key, value]` pairs (`$dict`).
    case dictionary(ReadableClass, stringKeys: Bool)
    /// NSAttributedString, NSMutableAttributedString: the string's `@` group, then per run an
    /// `iI` group (attribute number, UTF-16 length), the attributes' `@` group after a number's
    /// first use. `roles` is where the writer's role table holds one entry per group of the
    /// object (`of(_:in:readableClasses:shared:roles:)` appends them).
    case attributedString(ReadableClass, roles: Range<Int>)
    /// NSValue: a `*` group naming the type `type`, then a group of that one type.
    case value(type: TypedStream.Span)
    /// NSURL: `c` 1 when a base URL's `@` group follows, 0 when not; then the string's `@` group.
    case url(hasBase: Bool)

    /// What one group of a container form's object is in the readable JSON.
    enum GroupRole: Equatable {
        /// An element count, or what the form's head already says (an NSValue's type, whether
        /// an NSURL has a base): not written.
        case count
        /// An element: its `@` value is written as is.
        case element
        /// A dictionary key: a JSON key in the `{…}` form, the first of a pair in `$dict`.
        case key
        /// A dictionary value.
        case value
        /// An attributed string's text (`$string`).
        case text
        /// A run of `length` UTF-16 units; `attributesOf` is the run (0-based) that
        /// introduced the attributes it reuses, nil when the next group holds new attributes.
        case run(length: UInt64, attributesOf: Int?)
        /// A run's new attributes (`$attributes`).
        case attributes
        /// A value written under a key of the form's object (`$value`, `$base`, `$relative`), or
        /// the values of a group of several, as an array (`$named`).
        case member(Member)

        enum Member {
            case value, base, relative, named
            var key: StaticString {
                switch self {
                case .value: MappingKeys.value
                case .base: MappingKeys.base
                case .relative: MappingKeys.relative
                case .named: MappingKeys.named
                }
            }
        }
    }

    /// The role of the group at `position` among its object's groups (container forms);
    /// `roles` is the role table the form was made with.
    func role(ofGroup position: Int, roles: [GroupRole]) -> GroupRole {
        switch self {
        case .array: position == 0 ? .count : .element
        case .dictionary: position == 0 ? .count : position % 2 == 1 ? .key : .value
        case .attributedString(_, let table): roles[table.lowerBound + position]
        case .value: position == 0 ? .count : .member(.value)
        case .url(let hasBase): position == 0 ? .count : position == 1 && hasBase ? .member(.base) : .member(.relative)
        case .namedColor: position == 0 ? .count : .member(.named)
        case .string, .number, .data, .date, .color, .font: .element
        }
    }

    /// The form of object `object`, or nil for the generic form. `readableClasses[c]` is class
    /// `c`'s readable class (`ReadableClass.of`); `shared[o]` says whether object `o` is
    /// referred back to. An attributed string's group roles are appended to `roles` (nothing
    /// else is, and nothing when the form is nil); the caller drops them when the object ends.
    /// `starts` is the caller's scratch, kept between calls: the object's groups' first
    /// values are found into it (one pass over the object's own values, `TypedStream.end(ofGroup:)`),
    /// as a form asks for its groups by position.
    static func of(
        _ object: Int, in stream: TypedStream, readableClasses: [ReadableClass?], shared: [Bool], roles: inout [GroupRole], starts: inout [UInt32]
    ) -> ReadableForm? {
        guard let readableClass = readableClasses[Int(stream.objects[object].classIndex)] else { return nil }
        if readableClass == .string || readableClass == .mutableString {
            return soleText(ofObject: object, in: stream).map { .string(readableClass, text: $0) }
        }
        // The scratch is written over rather than emptied first (an emptying call per object
        // cost more than the pass).
        var count = 0
        stream.forEachGroup(ofObject: object) { group in
            if count < starts.count { starts[count] = UInt32(group) } else { starts.append(UInt32(group)) }
            count += 1
        }
        // The layout borrows the scratch: holding the array itself made every call copy the
        // stream's tables into it (a retain and a release of each).
        return starts.withUnsafeBufferPointer { buffer in
            form(readableClass, GroupLayout(stream: stream, starts: UnsafeBufferPointer(rebasing: buffer[..<count])), readableClasses: readableClasses, shared: shared, roles: &roles)
        }
    }

    /// The form of an object of `readableClass` whose groups `layout` reads (`of`).
    private static func form(
        _ readableClass: ReadableClass, _ layout: GroupLayout, readableClasses: [ReadableClass?], shared: [Bool], roles: inout [GroupRole]
    ) -> ReadableForm? {
        let stream = layout.stream
        let groups = 0..<layout.starts.count
        switch readableClass {
        case .string, .mutableString:
            return nil  // answered above
        case .number:
            guard groups.count == 2, let type = layout.cStringType(0), ReadableNumber.isNumberType(type), let value = layout.single(1, type) else { return nil }
            return .number(type: type, value: value)
        case .data, .mutableData:
            guard groups.count == 2, let bytes = layout.countedBytes(0) else { return nil }
            return .data(readableClass, bytes: bytes)
        case .fontVersion21, .fontVersion30:
            guard groups.count == 3 + ReadableFont.flagCount, let list = layout.countedBytes(0),
                ReadableFont.name(in: stream.bytes(list), version: readableClass.chain[0].version) != nil, let size = layout.single(2, TypeCode.float),
                (3..<groups.count).allSatisfy({ layout.single($0, TypeCode.char) != nil })
            else { return nil }
            let flags = layout.first(3)
            return .font(readableClass, nameList: list, size: size, flags: flags..<(flags + ReadableFont.flagCount))
        case .array, .mutableArray, .set, .mutableSet:
            let counted = readableClass == .set || readableClass == .mutableSet ? layout.unsignedCount(0) : layout.count(0)
            guard let count = counted, groups.count == 1 + count, (1..<groups.count).allSatisfy(layout.isObjectGroup) else { return nil }
            return .array(readableClass)
        case .dictionary, .mutableDictionary:
            guard let count = layout.count(0), groups.count == 1 + 2 * count, (1..<groups.count).allSatisfy(layout.isObjectGroup) else { return nil }
            // A key's text, when the key is a string of its own (not referred back to).
            func keyText(_ position: Int) -> TypedStream.Span? {
                guard let key = layout.newObject(position), !shared[key], readableClasses[Int(stream.objects[key].classIndex)] == .string
                else { return nil }
                return soleText(ofObject: key, in: stream)
            }
            // Repeats are ruled out by the masks of the texts' hashes, and looked for in a set
            // only when the masks cannot rule them out (a set per dictionary cost more than the
            // rest of a small dictionary's form).
            var distinct = DistinctKeyCheck()
            for position in stride(from: 1, to: groups.count, by: 2) {
                guard let text = keyText(position) else { return .dictionary(readableClass, stringKeys: false) }
                distinct.note(Int(truncatingIfNeeded: stream.withBytes(text, ByteStringTable.hash)))
            }
            guard distinct.mayRepeat else { return .dictionary(readableClass, stringKeys: true) }
            var texts = Set<ArraySlice<UInt8>>(minimumCapacity: count)
            let stringKeys = stride(from: 1, to: groups.count, by: 2).allSatisfy { texts.insert(stream.bytes(keyText($0)!)).inserted }
            return .dictionary(readableClass, stringKeys: stringKeys)
        case .date:
            guard groups.count == 1, let value = layout.single(0, TypeCode.double) else { return nil }
            return .date(value: value)
        case .color:
            guard groups.count == 2, let value = layout.single(0, TypeCode.char), case .signed(let number) = stream.content(of: value) else { return nil }
            if number == ReadableColor.named { return layout.typeString(1).elementsEqual("@@@".utf8) ? .namedColor : nil }
            guard let space = ReadableColor.space(number), let components = layout.values(1, repeatElement(TypeCode.float, count: space.components)) else { return nil }
            return .color(space: number, components: components)
        case .value:
            guard groups.count == 2, let type = layout.cString(0), let values = layout.values(1, stream.bytes(type)), values.count == 1
            else { return nil }
            return .value(type: type)
        case .url:
            guard let value = layout.single(0, TypeCode.char), case .signed(let flag) = stream.content(of: value), flag == 0 || flag == 1,
                groups.count == 2 + Int(flag), (1..<groups.count).allSatisfy(layout.isObjectGroup)
            else { return nil }
            return .url(hasBase: flag == 1)
        case .attributedString, .mutableAttributedString:
            guard groups.count >= 1, layout.isObjectGroup(0) else { return nil }
            let first = roles.count
            roles.append(.text)
            var introducedBy: [Int] = []  // per attribute number - 1: the run that introduced it
            var position = 1
            while position < groups.count {
                let run = roles.count - first - 1 - introducedBy.count
                guard let (number, length) = layout.run(position), number >= 1 else {
                    roles.removeSubrange(first...)
                    return nil
                }
                if number <= Int64(introducedBy.count) {
                    roles.append(.run(length: length, attributesOf: introducedBy[Int(number) - 1]))
                    position += 1
                } else {
                    guard number == Int64(introducedBy.count) + 1, position + 1 < groups.count, layout.isObjectGroup(position + 1) else {
                        roles.removeSubrange(first...)
                        return nil
                    }
                    introducedBy.append(run)
                    roles += [.run(length: length, attributesOf: nil), .attributes]
                    position += 2
                }
            }
            return .attributedString(readableClass, roles: first..<roles.count)
        }
    }
}

extension ReadableForm {
    /// The text of an NSString's one group, one `+` value of UTF-8 text (not nil), when
    /// object `object` holds exactly that: what the string form and a dictionary's string
    /// keys ask, without finding the groups of anything larger.
    static func soleText(ofObject object: Int, in stream: TypedStream) -> TypedStream.Span? {
        let (first, end) = (Int(stream.objects[object].firstValue), Int(stream.objects[object].end))
        // A `+` group is its one value, which holds no run: it is the object's one group when
        // the object ends right after it.
        guard first + 1 == end else { return nil }
        return GroupLayout.byteString(group: first, in: stream)
    }
}

/// Reads the groups of one object by position, for `ReadableForm.of`: each accessor answers
/// only for a group of exactly the expected type string.
private struct GroupLayout {
    let stream: TypedStream
    /// Each group's first value (`TypedStream` names a group so), in order.
    let starts: UnsafeBufferPointer<UInt32>

    /// The first value of group `position`, which must be one the object has (`starts`
    /// checks it; the accessors below answer nil or empty past them).
    func first(_ position: Int) -> Int { Int(starts[position]) }

    /// Group `position`'s type string; empty past the object's groups (a form checks their
    /// count after some of its accessors, and a salvaged object may have none).
    func typeString(_ position: Int) -> ArraySlice<UInt8> { position < starts.count ? stream.encoding(ofGroup: first(position)) : [] }

    /// The one value of a group whose type string is `type`. Compares in place: every form
    /// asks it of most of its groups.
    func single(_ position: Int, _ type: UInt8) -> Int? { position < starts.count ? Self.single(group: first(position), type, in: stream) : nil }

    /// `single` of the group whose first value is `group`.
    static func single(group: Int, _ type: UInt8, in stream: TypedStream) -> Int? {
        let string = stream.sharedStrings[Int(stream.string(ofGroup: group))]
        guard string.count == 1, stream.storage[Int(string.start)] == type else { return nil }
        return group
    }

    /// An `i` group's count, when it is not negative.
    func count(_ position: Int) -> Int? {
        guard let value = single(position, TypeCode.int), case .signed(let count) = stream.content(of: value), count >= 0 else { return nil }
        return Int(count)
    }

    /// The bytes of an `i` count group and the `[nc]` group after it, n the count.
    func countedBytes(_ position: Int) -> TypedStream.Span? {
        guard let count = count(position), isByteArray(position + 1, count: count),
            case .byteArray(let span) = stream.content(of: stream.values(ofGroup: first(position + 1)).lowerBound)
        else { return nil }
        return span
    }

    /// An `I` group's count.
    func unsignedCount(_ position: Int) -> Int? {
        guard let value = single(position, TypeCode.unsignedInt), case .unsigned(let count) = stream.content(of: value) else { return nil }
        return Int(count)
    }

    /// Whether group `position`'s type string is `[<count>c]`, the count in decimal as Apple's
    /// writer spells it (no sign, no leading zero).
    func isByteArray(_ position: Int, count: Int) -> Bool {
        let string = typeString(position)
        guard string.count >= 4, string.first == UInt8(ascii: "["), string.last == UInt8(ascii: "]"), string[string.endIndex - 2] == UInt8(ascii: "c")
        else { return false }
        let digits = string.dropFirst().dropLast(2)
        guard digits.first != UInt8(ascii: "0") || digits.count == 1 else { return false }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit), value <= (Int.max - 9) / 10 else { return false }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value == count
    }

    /// The values of a group whose type string is `types`.
    func values(_ position: Int, _ types: some Sequence<UInt8>) -> Range<Int>? {
        guard position < starts.count, typeString(position).elementsEqual(types) else { return nil }
        return stream.values(ofGroup: first(position))
    }

    /// A `*` group's C string, when not nil.
    func cString(_ position: Int) -> TypedStream.Span? {
        guard let value = single(position, TypeCode.cString), case .cString(let string?) = stream.content(of: value) else { return nil }
        return stream.sharedStrings[Int(stream.cStrings[string])]
    }

    /// The bytes of the `+` group whose first value is `group`, when not nil and UTF-8.
    static func byteString(group: Int, in stream: TypedStream) -> TypedStream.Span? {
        guard let value = single(group: group, TypeCode.byteString, in: stream), case .byteString(let span?) = stream.content(of: value) else { return nil }
        let valid = stream.storage.withUnsafeBufferPointer { UTF8Encoding.firstInvalidOffset(UnsafeBufferPointer(rebasing: $0[span.range])) == nil }
        return valid ? span : nil
    }

    /// A `*` group's C string when it is one character.
    func cStringType(_ position: Int) -> UInt8? {
        guard let text = cString(position), text.count == 1 else { return nil }
        return stream.storage[Int(text.start)]
    }

    /// Whether the group is one `@` value.
    func isObjectGroup(_ position: Int) -> Bool { single(position, TypeCode.object) != nil }

    /// The `@` group's object when the value is its first occurrence (not nil, not a back reference).
    func newObject(_ position: Int) -> Int? {
        guard let value = single(position, TypeCode.object), case .object(let object?) = stream.content(of: value), stream.backReference(value) == nil else {
            return nil
        }
        return object
    }

    /// An `iI` group's attribute number and length.
    func run(_ position: Int) -> (Int64, UInt64)? {
        guard typeString(position).elementsEqual("iI".utf8) else { return nil }
        let values = stream.values(ofGroup: first(position))
        guard case .signed(let number) = stream.content(of: values.lowerBound),
            case .unsigned(let length) = stream.content(of: values.lowerBound + 1)
        else { return nil }
        return (number, length)
    }
}
