/// JSON document → the property list of a keyed archive (into any `PlistBuilding`), without
/// recursion: a reference to an object gets its UID at once and the object's content is
/// filled later from a work list (`pending`), and nested inline plist containers are built
/// with an explicit stack. `$ref`s to objects not yet met reserve the UID, filled when the
/// `$id` is reached. Equal bare strings and numbers share one entry; class entries are
/// shared per class.
///
/// Per object nothing is allocated: `ObjectMeta` holds value handles, members are walked in
/// place, and reference lists are assembled on one shared stack (`scratch`, a `ScratchStack`).
struct ArchiveEncoder<Tree: PlistBuilding>: PlistValueEncoding {
    typealias Value = JSONDocument.Value
    let document: JSONDocument
    var tree: Tree

    /// Plist value of each `$objects` entry; `unfilled` until its content is built.
    var objects: [UInt32] = [0]
    static var unfilled: UInt32 { .max }
    /// UID of each object that carries an `$id`, by the object's source offset.
    var uidOfObject: [UInt32: Int] = [:]
    /// The object that carries each `$id`.
    var objectOfID: [IDKey: Value] = [:]
    /// UID of the shared entry for each interned scalar plist value, by value index
    /// (0 = none yet: UID 0 is `$null`, never shared).
    var unifiedUID: [UInt32] = []
    var classUIDs: [ClassKey: Int] = [:]
    /// Class entries with the usual chain and no hints, by their interned name string's
    /// value index (0 = none yet: UID 0 is `$null`, never a class). Asked once per instance:
    /// an array, where a dictionary lookup hashed the key each time.
    var usualClassUIDs: [UInt32] = []
    /// Objects whose UID is handed out and whose content is still to build (a wide array
    /// puts every element here at once, so entries are kept small: the common shapes carry
    /// what filling needs, others have their meta read again when filled).
    var pending: [PendingObject] = []
    /// Reference lists under construction, innermost last, each in a frame of its own (see
    /// `ScratchStack` for the discipline that keeps nested lists apart).
    var scratch = ScratchStack()
    /// The object being filled: where errors without a value of their own are reported.
    var current: Value
    /// What checking colour space labels remembers (`checkColorSpaceLabels`); nil when no
    /// readable form of bytes here carries one: then instances are not asked whether they are
    /// colours.
    var colorLabels: ColorLabelChecks?

    enum IDKey: Hashable {
        case signed(Int64)
        case unsigned(UInt64)
        case text(String)

        var description: String {
            switch self {
            case .signed(let value): "\(value)"
            case .unsigned(let value): "\(value)"
            case .text(let value): value
            }
        }
    }

    struct ClassKey: Hashable {
        var name: String
        var chain: [String]?
        var hints: [String]?
    }

    init(document: JSONDocument, tree: Tree) {
        self.document = document
        self.tree = tree
        current = document.root
        // The archive has at most about one plist value per JSON value or key, plus the UIDs.
        self.tree.reserve(values: document.valueCount * 3, bytes: document.source.count)
    }

    // MARK: Errors

    func fail(_ message: String, at value: Value? = nil) -> CodecError {
        document.invalid(message, at: value ?? current)
    }

    // MARK: Document

    /// The archive of the document whose JSON is `root` (the request's root, or a nested
    /// payload's `$keyedArchive`).
    mutating func encodeDocument(root: Value) throws(CodecError) -> UInt32 {
        try collectIDs()
        if !document.nestedPayloads.isEmpty, Self.holdsColorSpaceLabels(document) { colorLabels = ColorLabelChecks() }
        objects[0] = try tree.string(static: ArchiverKeys.null)
        var archiver = "NSKeyedArchiver"
        var version = PlistInteger(signed: 100_000)
        var topKeys: [UInt32] = []
        var topValues: [UInt32] = []
        let members = document.kind(root) == .object ? document.members(of: root) : []
        var table: Value?
        if let top = members.first(where: { document.stringEquals($0.key, MappingKeys.top) }) {
            for member in members {
                switch document.stringValue(member.key) {
                case String(describing: MappingKeys.top):
                    guard document.kind(member.value) == .object else { throw fail("$top must be an object", at: member.value) }
                case String(describing: MappingKeys.table):
                    guard document.kind(member.value) == .array else { throw fail("$table must be an array of objects with $id", at: member.value) }
                    table = member.value
                case String(describing: MappingKeys.archiver):
                    guard document.kind(member.value) == .string else { throw fail("$archiver must be a string", at: member.value) }
                    archiver = document.stringValue(member.value)
                case String(describing: MappingKeys.version):
                    if let exact = document.singleMember(member.value, named: MappingKeys.integer) {
                        version = try document.exactInteger(exact.value)
                        continue
                    }
                    let number = document.kind(member.value) == .number ? document.number(member.value) : .real(0)
                    switch number {
                    case .signed(let value): version = PlistInteger(signed: value)
                    case .unsigned(let value): version = PlistInteger(unsigned: value)
                    case .real: throw fail("$version must be an integer", at: member.value)
                    }
                default:
                    throw fail("unexpected key beside $top (allowed: $archiver, $version, $table)", at: member.value)
                }
            }
            for member in document.members(of: top.value) {
                current = member.value
                topKeys.append(try dataKeyString(member.key))
                if let inline = document.singleMember(member.value, named: MappingKeys.inline) {
                    topValues.append(try encodeInlineBody(inline.value))
                } else {
                    topValues.append(try tree.uid(UInt64(encodeObject(member.value))))
                }
            }
            if let table {
                // Bodies moved out of the document by a nesting bound, each referenced by `$id`.
                var cursor = document.children(of: table)
                while let entry = document.nextElement(&cursor) {
                    current = entry
                    guard document.kind(entry) == .object, try document.meta(of: entry).id != nil else {
                        throw fail("a $table entry is an object with $id (the body of an object referenced with $ref)", at: entry)
                    }
                    _ = try encodeObject(entry)
                }
            }
        } else {
            topKeys.append(try tree.string(static: "root"))
            topValues.append(try tree.uid(UInt64(encodeObject(root))))
        }
        try fillPending()
        if let unresolved = objects.firstIndex(of: Self.unfilled) {
            let id = uidOfObject.first { $0.value == unresolved }
                .flatMap { entry in objectOfID.first { $0.value.offset == entry.key }?.key.description }
            throw fail("$ref to $id \(id ?? "?") whose object is not in a value position", at: nil)
        }
        let top = try tree.dict(keys: topKeys, values: topValues)
        let objectArray = try tree.array(objects)
        return try tree.dict(
            keys: [
                try tree.string(static: MappingKeys.version), try tree.string(static: MappingKeys.archiver), try tree.string(static: MappingKeys.top),
                try tree.string(static: ArchiverKeys.objects)
            ],
            values: [try tree.integer(version), try tree.string(archiver), top, objectArray])
    }

    /// Finds every `$id` first, so that `$ref`s may point forward as well as back; those inside
    /// nested payloads are theirs (`JSONDocument.ownNotedMembers`).
    mutating func collectIDs() throws(CodecError) {
        for (object, value) in document.ownNotedMembers {
            let id = try idKey(value)
            guard objectOfID[id] == nil else {
                throw CodecError(.invalidDocument, "$id \(id.description) is defined twice", byteOffset: Int(value.offset))
            }
            objectOfID[id] = object
        }
    }

    func idKey(_ value: Value) throws(CodecError) -> IDKey {
        try document.checkID(value)
        guard document.kind(value) == .number else { return .text(document.stringValue(value)) }
        switch document.number(value) {
        case .signed(let id): return .signed(id)
        case .unsigned(let id): return .unsigned(id)
        case .real: return .text("")  // refused by checkID
        }
    }
}
