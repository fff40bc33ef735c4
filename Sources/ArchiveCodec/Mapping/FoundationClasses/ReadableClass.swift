/// The Foundation classes a typedstream's JSON shows in a readable form (docs/mapping.md,
/// "typedstream"), each with the one class chain, names and versions, that the form stands for.
///
/// Invariant: a readable form is written only for an object whose class chain is exactly
/// `chain` (`of(_:in:)`), and the encoder rebuilds exactly that chain from the form; an object
/// of the same name at another version, or under another superclass, keeps the generic form.
enum ReadableClass: Int, CaseIterable {
    case string, mutableString
    case number
    case array, mutableArray
    case dictionary, mutableDictionary
    case attributedString, mutableAttributedString
    case data, mutableData
    case set, mutableSet
    case date
    case value
    case url
    case color
    /// NSFont at the two versions seen (21 in old nibs, 30 since); one name, told apart by
    /// the readable form's `$version`.
    case fontVersion21, fontVersion30

    /// The class and its superclasses, nearest first, as NSArchiver writes them.
    var chain: [(name: String, version: Int64)] { Self.chains[rawValue] }

    /// Every case's `chain`, by raw value: made once, not per question (the writers ask per
    /// class of every stream, and a nested typedstream is one stream per payload).
    private static let chains: [[(name: String, version: Int64)]] = cases.map(\.definedChain)

    /// The chain with each name as UTF-8 bytes (made once: a stream's encoder defines the
    /// chain of each readable class it meets from these).
    var byteChain: [(name: [UInt8], version: Int64)] { Self.byteChains[rawValue] }

    /// Every case's chain as UTF-8 bytes, by raw value, for comparing with a stream's names.
    private static let byteChains: [[(name: [UInt8], version: Int64)]] = chains.map { chain in chain.map { (Array($0.name.utf8), $0.version) } }

    /// `allCases`, made once (the synthesized one builds its array at every call).
    private static let cases = allCases

    /// How many readable classes there are (raw values are `0..<caseCount`).
    static let caseCount = cases.count

    private var definedChain: [(name: String, version: Int64)] {
        switch self {
        case .string: [("NSString", 1), ("NSObject", 0)]
        case .mutableString: [("NSMutableString", 1), ("NSString", 1), ("NSObject", 0)]
        case .number: [("NSNumber", 0), ("NSValue", 0), ("NSObject", 0)]
        case .array: [("NSArray", 0), ("NSObject", 0)]
        case .mutableArray: [("NSMutableArray", 0), ("NSArray", 0), ("NSObject", 0)]
        case .dictionary: [("NSDictionary", 0), ("NSObject", 0)]
        case .mutableDictionary: [("NSMutableDictionary", 0), ("NSDictionary", 0), ("NSObject", 0)]
        case .attributedString: [("NSAttributedString", 0), ("NSObject", 0)]
        case .mutableAttributedString: [("NSMutableAttributedString", 0), ("NSAttributedString", 0), ("NSObject", 0)]
        case .data: [("NSData", 0), ("NSObject", 0)]
        case .mutableData: [("NSMutableData", 0), ("NSData", 0), ("NSObject", 0)]
        case .set: [("NSSet", 0), ("NSObject", 0)]
        case .mutableSet: [("NSMutableSet", 0), ("NSSet", 0), ("NSObject", 0)]
        case .date: [("NSDate", 0), ("NSObject", 0)]
        case .value: [("NSValue", 0), ("NSObject", 0)]
        case .url: [("NSURL", 0), ("NSObject", 0)]
        case .color: [("NSColor", 0), ("NSObject", 0)]
        case .fontVersion21: [("NSFont", 21), ("NSObject", 0)]
        case .fontVersion30: [("NSFont", 30), ("NSObject", 0)]
        }
    }

    /// The class's name, what `$class` holds.
    var name: String { chain[0].name }

    /// The longest chain of a readable class.
    static let longestChain = chains.map(\.count).max()!

    /// The readable class of class `index` of `stream`: the one whose chain it is exactly, or nil.
    /// Looks at one link more than the longest readable chain, whatever the chain's length
    /// (asked once per class of the stream), following the links in place (`classLinks`, no
    /// array of them).
    static func of(_ index: Int, in stream: TypedStream) -> ReadableClass? {
        let length = stream.classLinks(index, limit: longestChain + 1).reduce(0) { count, _ in count + 1 }
        let name = stream.name(ofClass: index)
        return cases.first { candidate in
            let chain = byteChains[candidate.rawValue]
            guard chain.count == length, equal(name, chain[0].name) else { return false }
            return zip(chain, stream.classLinks(index)).allSatisfy { expected, link in
                stream.classes[link].version == expected.version && equal(stream.name(ofClass: link), expected.name)
            }
        }
    }

    /// The readable class named `name` (a `$class` value), or nil; for NSFont the first of its
    /// versions (the form's `$version` picks one).
    static func named(_ name: UnsafeBufferPointer<UInt8>) -> ReadableClass? {
        cases.first { candidate in
            byteChains[candidate.rawValue][0].name.withUnsafeBufferPointer { name.elementsEqual($0) }
        }
    }

    private static func equal(_ name: ArraySlice<UInt8>, _ expected: [UInt8]) -> Bool {
        name.count == expected.count && name.withUnsafeBufferPointer { name in expected.withUnsafeBufferPointer { name.elementsEqual($0) } }
    }
}
