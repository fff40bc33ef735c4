/// What a document holds, counted rather than written out: its objects, classes and the keys
/// they use, sharing and cycles, how deep its JSON nests, the documents inside its data, and
/// its largest strings and data values (docs/service.md, "Summaries"). Several summaries merge
/// into one (`merged(with:)`), as `archive-tool summary A B` does.
///
/// Bounded whatever the input: at most `listedClasses` classes, `listedKeys` keys per class
/// (and 5,000 in all), `listedKinds` kinds per key and `listedValues` values per largest list
/// are listed, names are cut to `listedNameLength` characters and chains to
/// `listedChainLength` classes; what is left out is counted (`classesNotListed`,
/// `keysNotListed`, `kindsNotListed`). The JSON of the largest summary is about 10 MB; real
/// archives' are a few kilobytes.
public struct ArchiveSummary: Sendable, Equatable {
    /// The kind of document summed up; `mixed` for a merge of documents of different kinds.
    public enum Format: String, Sendable, Comparable {
        case keyedArchive, typedStream, propertyList, mixed

        public static func < (left: Format, right: Format) -> Bool { left.rawValue < right.rawValue }
    }

    /// How often values of one kind stand under a key: a scalar kind (`SummaryKind`) or the
    /// class name of the object referred to.
    public struct KindCount: Sendable, Equatable {
        public var kind: String
        public var count: Int
    }

    /// One key of a class (or of plain dictionaries): how many values it holds, by kind.
    public struct KeyUse: Sendable, Equatable {
        public var key: String
        public var count: Int
        /// By count, most first, then by name; at most `listedKinds`.
        public var kinds: [KindCount]
        /// Values of kinds beyond those listed.
        public var kindsNotListed: Int
    }

    /// One class: its instances, how many of them are shared or cyclic, and the keys they use.
    public struct ClassUse: Sendable, Equatable {
        public var name: String
        /// The class and its superclasses, nearest first (`$classes`; a typedstream's
        /// superclass links); empty when the archive names none.
        public var chain: [String]
        public var count: Int
        public var shared: Int
        public var cyclic: Int
        /// By count, most first, then by name; at most `listedKeys`.
        public var keys: [KeyUse]
        /// Key uses (an instance holding a key) under keys beyond those listed.
        public var keysNotListed: Int
    }

    /// A string or data value among the largest: its length (UTF-16 code units for a string,
    /// as NSString and JavaScript count; bytes for data), its start, and where it stands.
    public struct LargeValue: Sendable, Equatable {
        public var length: Int
        /// A string's first `previewLength` characters; data's first bytes as text when they
        /// read as text, else as base64 (`previewLength` characters); `…` when cut.
        public var preview: String
        /// Where it stands in the readable JSON, as `archive-tool compare` names places
        /// (`$id 4 .records.$array[2].play`): the string itself, or the object that holds the
        /// data's bytes (`{"$data": …}`, `{"$bytes": …}`); inside a payload, through it as
        /// `decode --nested` writes it. nil where no place is named (in a typedstream).
        public var path: String?
        /// The file it was found in, when several were summed up.
        public var file: String?
        /// The file's name as the exact bytes it has, where they are not UTF-8 (`file` then
        /// holds U+FFFD for each byte that is not): written as `fileBase64`.
        public var fileBytes: [UInt8]?
        /// Where the collector met it, until it is named (`steps`).
        var location: Location?
        /// Its place named (nil: not named, or not yet), until `path` is written from it.
        var steps: [DocumentPath.Step]?
    }

    /// Where a collector met a value: in a keyed archive, the entry whose plist object holds
    /// it; the value's plist object; and, for a value inside a payload found there, the steps
    /// from the data value's place on.
    struct Location: Sendable, Equatable {
        var owner = -1
        var ref = -1
        var suffix: [DocumentPath.Step] = []
    }

    /// Data values of one kind (`DataKind`: what their signature says they are, as the
    /// readable view's `$kind` names it): how many, and their bytes in all.
    public struct DataKindCount: Sendable, Equatable {
        public var kind: String
        public var count: Int
        public var bytes: Int
    }

    /// Documents found inside data values, by kind.
    public struct PayloadCount: Sendable, Equatable {
        public var format: Format
        public var count: Int
    }

    public var format: Format
    public var files = 1
    public var bytes = 0
    /// A keyed archive's `$objects` entries but `$null`; a typedstream's objects; a property
    /// list's distinct values (each plist object once, however often it is referred to).
    public var objects = 0
    /// Objects referred to from more than one place.
    public var shared = 0
    /// Objects on a reference cycle (a property list has none).
    public var cyclic = 0
    /// By count, most first, then by name; at most `listedClasses`.
    public var classes: [ClassUse] = []
    /// Distinct classes beyond those listed.
    public var classesNotListed = 0
    /// The JSON nesting of the readable view and of the raw view (`archive-tool depth`); the
    /// deepest of the files when merged.
    public var readableNesting = 0
    public var rawNesting = 0
    /// By format name.
    public var nestedPayloads: [PayloadCount] = []
    /// Data values by kind (`DataKind.name`: the signature, as `$kind` reads it, and also the
    /// kinds the readable view writes in other forms), each plist data object or typedstream
    /// byte array once however many places refer to it; by count, most first, then by name.
    /// Values of no kind are not counted. At most one entry per `DataKind.Name`.
    public var dataKinds: [DataKindCount] = []
    /// Longest first; at most `listedValues`.
    public var largestStrings: [LargeValue] = []
    public var largestData: [LargeValue] = []
    /// A plain property list's arrays and dictionaries (each plist object once).
    public var arrays = 0
    public var dictionaries = 0
    /// The keys of a plain property list's dictionaries, with their kinds (as `ClassUse.keys`).
    public var dictionaryKeys: [KeyUse] = []
    public var dictionaryKeysNotListed = 0

    public init(format: Format) {
        self.format = format
    }

    /// Most classes listed.
    public static let listedClasses = 1_000
    /// Most keys listed per class (and of plain dictionaries).
    public static let listedKeys = 200
    /// Most kinds listed per key.
    public static let listedKinds = 8
    /// Most entries of `largestStrings` and `largestData`.
    public static let listedValues = 10
    /// Characters of a preview.
    public static let previewLength = 80
    /// Characters of a class, key or kind name listed (longer ones are cut, with `…`).
    public static let listedNameLength = 200
    /// Classes of a chain listed.
    public static let listedChainLength = 16
    /// Characters of a path; a longer one (keys of thousands of characters on the way), or one
    /// of more steps than `archive-tool compare` shows whole (48), is left out rather than cut,
    /// since a cut path leads nowhere.
    public static let listedPathLength = 1_000
}

/// The names of the scalar kinds a key's values are counted under; a reference to an object
/// counts under its class's name instead.
enum SummaryKind: Int, CaseIterable {
    case integer, real, boolean, string, data, date, null, uid, array, dictionary

    /// The case's own name (`integer`, `real`, …).
    var name: String { String(describing: self) }

    /// The kind of a property-list value of `kind`.
    init(_ kind: PlistKind) {
        switch kind {
        case .bool: self = .boolean
        case .int: self = .integer
        case .real: self = .real
        case .date: self = .date
        case .data: self = .data
        case .asciiString, .utf16String: self = .string
        case .uid: self = .uid
        case .array: self = .array
        case .dict: self = .dictionary
        }
    }
}
