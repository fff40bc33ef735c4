/// The `$broken` marks of a salvaged decode (docs/mapping.md, "Salvage") met on the way back:
/// an encode refuses a document holding one, as no archive holds what could not be read, unless
/// told to leave out what holds each mark (`droppingBroken`).
///
/// What "left out" means, per place a mark stands:
/// - in a typedstream, the outermost group holding the mark that is short of values (the break
///   left the rest of every group it was inside unread, and a group's type string needs all its
///   values), else the innermost group holding it, or the mark itself where it stands in a list
///   of groups (the stream's or an object's `$groups`): the object keeps its other groups;
/// - in a keyed archive's `[key, value]` pair (`$dict`), the pair: a pair needs both;
/// - a dictionary that broke where a key belongs (an XML property list's) holds the mark as its
///   own `$broken` member, beside its entries: that member;
/// - elsewhere, the mark's own place: an array's element, an object's member.
extension JSONDocument {
    /// The refusal of a document holding a mark, naming the first one's place; nil when it
    /// holds none. Asked only after an encode failed, so a document without marks pays
    /// nothing for it.
    func brokenMarkRefusal() -> CodecError? {
        guard let first = brokenMarks(stoppingAtFirst: true).first else { return nil }
        return CodecError(
            .invalidDocument,
            "a value a salvaged decode could not read ($broken): no archive holds it",
            byteOffset: Int(first.mark.offset), jsonPath: path(to: first.mark), remedy: .dropBroken)
    }

    /// This document's text without the places that hold a `$broken` mark (as above), parsed;
    /// the document itself when it holds none. Linear in the document: one walk to find the
    /// places, one to copy the rest.
    public func droppingBroken() throws(CodecError) -> JSONDocument {
        let marks = brokenMarks(stoppingAtFirst: false)
        guard !marks.isEmpty else { return self }
        let dropped = Set(marks.map(\.dropped.offset))
        var output = JSONOutput(pretty: false, reserve: source.count)
        write(root, to: &output, leavingOut: dropped)
        try ConversionDeadline.check()
        return try JSONDocument(parsing: output.finish(), payloadNesting: payloadNesting)
    }

    /// Every object holding a `$broken` member, in document order, with the value that is
    /// left out for it. Iterative (a stack of open containers on the heap), linear.
    private func brokenMarks(stoppingAtFirst: Bool) -> [(mark: Value, dropped: Value)] {
        var marks: [(mark: Value, dropped: Value)] = []
        /// An open container: its cursor, whether it is an object, whether it is a list of
        /// typedstream groups, and the group a mark inside it takes with it (nil: none).
        struct Open {
            var cursor: Cursor
            var isObject: Bool
            var isGroupList: Bool
            var group: Value?
            /// Whether `group` is short of values: it stays the one left out.
            var groupIsShort = false
            /// Whether the container is a `$dict` list of pairs.
            var isPairList = false
            /// The container itself when it is one of those pairs (a mark among its two
            /// elements takes it with it).
            var pair: Value?
            /// The `$broken` member of a dictionary that holds its mark among its entries:
            /// noted already, not looked into.
            var brokenMember: Value?
        }
        var open: [Open] = []
        /// Takes `value` (a member's or an element's): a mark is noted, a container opened.
        func take(_ value: Value, isGroupList: Bool, group: Value?, groupIsShort: Bool, isPairList: Bool = false, pair: Value? = nil, isPair: Bool = false) {
            switch kind(value) {
            case .object:
                if let member = brokenMember(of: value) {
                    // A dictionary that broke where a key belongs holds its mark among its
                    // entries: the member alone is left out, the entries before it stay.
                    if count(value) > 1, group == nil, pair == nil {
                        marks.append((value, member))
                        open.append(Open(cursor: children(of: value), isObject: true, isGroupList: false, group: nil, brokenMember: member))
                        return
                    }
                    marks.append((value, group ?? pair ?? value))
                    return
                }
                open.append(Open(cursor: children(of: value), isObject: true, isGroupList: false, group: group, groupIsShort: groupIsShort))
            case .array:
                open.append(
                    Open(
                        cursor: children(of: value), isObject: false, isGroupList: isGroupList, group: group, groupIsShort: groupIsShort, isPairList: isPairList,
                        pair: isPair ? value : nil))
            default:
                break
            }
        }
        take(root, isGroupList: false, group: nil, groupIsShort: false)
        var trips = 0
        while !open.isEmpty, !(stoppingAtFirst && !marks.isEmpty) {
            trips &+= 1
            if ConversionDeadline.shouldStop(trips) { break }
            let last = open.count - 1
            let (isGroupList, group, groupIsShort) = (open[last].isGroupList, open[last].group, open[last].groupIsShort)
            if open[last].isObject {
                guard let (key, member) = nextMember(&open[last].cursor) else {
                    open.removeLast()
                    continue
                }
                if let noted = open[last].brokenMember, noted.offset == member.offset { continue }
                let holdsGroups = stringEquals(key, MappingKeys.typedStream) || stringEquals(key, MappingKeys.groups)
                take(member, isGroupList: holdsGroups, group: group, groupIsShort: groupIsShort, isPairList: stringEquals(key, MappingKeys.dict))
            } else {
                guard let element = nextElement(&open[last].cursor) else {
                    open.removeLast()
                    continue
                }
                // An element of a list of groups is a group: what a mark inside it takes with
                // it, unless a group around it is short already.
                if isGroupList, !groupIsShort {
                    take(element, isGroupList: false, group: element, groupIsShort: isShortGroup(element))
                } else {
                    let (isPairList, pair) = (open[last].isPairList, open[last].pair)
                    take(element, isGroupList: false, group: group, groupIsShort: groupIsShort, pair: pair, isPair: isPairList)
                }
            }
        }
        return marks
    }

    /// Whether `group` (`{"<type string>": value}`) holds fewer values than its type string
    /// has types: a group a break cut short. A key that is no type string is not.
    private func isShortGroup(_ group: Value) -> Bool {
        guard kind(group) == .object, let (key, value) = onlyMember(group), kind(value) == .array else { return false }
        var types = TypeTable()
        let root = withString(key) { (text) -> UInt32? in try? types.root(ofString: 0, text: text, at: nil) }
        guard let root else { return false }
        return count(value) < Int(types[root].count)
    }

    /// Object `value`'s `$broken` member's value, if it has one.
    private func brokenMember(of value: Value) -> Value? {
        var cursor = children(of: value)
        while let member = nextMember(&cursor) {
            if stringEquals(member.key, MappingKeys.broken) { return member.value }
        }
        return nil
    }
}
