/// What the mapping knows about Foundation's archived classes in keyed archives: their usual
/// `$classes` chains (omitted from JSON when an archive uses them, written back by the encoder),
/// which readable wrapper each class family uses, and the classes a wrapper means when the JSON
/// names none. Beside it: `DefaultClass` (the same defaults as the readable layout reads them)
/// and `ReadableClass` (the chains of a typedstream's readable forms).
enum FoundationClasses {
    /// Chains as Apple's `NSKeyedArchiver` writes them, by class name. A list, not a
    /// dictionary: a dictionary keyed by `String` costs a process a runtime conformance lookup
    /// (`String: Hashable`) at its first use, a scan of every conformance the static binary
    /// holds (docs/benchmarks.md, "Start-up"), and a chain is asked for once per class of an
    /// archive, where a look through 24 names, their lengths compared first, costs less.
    private static let chains: [(name: String, chain: [String])] = [
        ("NSArray", ["NSArray", "NSObject"]),
        ("NSMutableArray", ["NSMutableArray", "NSArray", "NSObject"]),
        ("NSSet", ["NSSet", "NSObject"]),
        ("NSMutableSet", ["NSMutableSet", "NSSet", "NSObject"]),
        ("NSCountedSet", ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]),
        ("NSOrderedSet", ["NSOrderedSet", "NSObject"]),
        ("NSMutableOrderedSet", ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]),
        ("NSDictionary", ["NSDictionary", "NSObject"]),
        ("NSMutableDictionary", ["NSMutableDictionary", "NSDictionary", "NSObject"]),
        ("NSString", ["NSString", "NSObject"]),
        ("NSMutableString", ["NSMutableString", "NSString", "NSObject"]),
        ("NSData", ["NSData", "NSObject"]),
        ("NSMutableData", ["NSMutableData", "NSData", "NSObject"]),
        ("NSAttributedString", ["NSAttributedString", "NSObject"]),
        ("NSMutableAttributedString", ["NSMutableAttributedString", "NSAttributedString", "NSObject"]),
        ("NSByteCountFormatter", ["NSByteCountFormatter", "NSFormatter", "NSObject"]),
        ("NSDateFormatter", ["NSDateFormatter", "NSFormatter", "NSObject"]),
        ("NSNumberFormatter", ["NSNumberFormatter", "NSFormatter", "NSObject"]),
        ("NSDateIntervalFormatter", ["NSDateIntervalFormatter", "NSFormatter", "NSObject"]),
        ("NSISO8601DateFormatter", ["NSISO8601DateFormatter", "NSFormatter", "NSObject"]),
        ("NSUnitLength", ["NSUnitLength", "NSDimension", "NSUnit", "NSObject"]),
        ("NSUnitConverterLinear", ["NSUnitConverterLinear", "NSUnitConverter", "NSObject"]),
        ("NSDecimalNumber", ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]),
        ("NSCalendarDate", ["NSCalendarDate", "NSDate", "NSObject"])
    ]

    /// The chain Apple's `NSKeyedArchiver` writes for class `name`; `[name, "NSObject"]` for
    /// any class `chains` does not list.
    static func defaultChain(for name: String) -> [String] {
        let length = name.utf8.count
        for entry in chains where entry.name.utf8.count == length && entry.name == name { return entry.chain }
        return [name, "NSObject"]
    }

    /// The readable wrapper a class may use when its archived keys have the expected shape.
    enum Family {
        case array, set, orderedSet, dictionary, mutableString, data, date, uuid
        /// NSDecimalNumber, NSCalendarDate, NSTimeZone (`ValueObjectForms`).
        case decimal, calendarDate, timeZone
    }

    static func family(of name: String) -> Family? {
        switch name {
        case "NSArray", "NSMutableArray": return .array
        case "NSSet", "NSMutableSet": return .set
        case "NSOrderedSet", "NSMutableOrderedSet": return .orderedSet
        case "NSDictionary", "NSMutableDictionary": return .dictionary
        case "NSMutableString": return .mutableString
        case "NSData", "NSMutableData": return .data
        case dateClass: return .date
        case uuidClass: return .uuid
        case ValueObjectForms.decimalClass, "NSDecimalNumberPlaceholder": return .decimal
        case ValueObjectForms.calendarDateClass: return .calendarDate
        case ValueObjectForms.timeZoneClass: return .timeZone
        default: return nil
        }
    }

    /// The class a wrapper means when the JSON gives no `$class`. (Static strings for the
    /// encoder, which interns them without building a `String`; `String`s for the writers.)
    static let defaultArrayClassName: StaticString = "NSArray"
    static let defaultSetClassName: StaticString = "NSSet"
    static let defaultOrderedSetClassName: StaticString = "NSOrderedSet"
    static let defaultDictionaryClassName: StaticString = "NSDictionary"
    static let defaultArrayClass = defaultArrayClassName.description
    static let defaultSetClass = defaultSetClassName.description
    static let defaultOrderedSetClass = defaultOrderedSetClassName.description
    static let defaultDictionaryClass = defaultDictionaryClassName.description
    static let defaultStringClass = "NSMutableString"
    static let defaultDataClass = "NSMutableData"
    /// The classes of the date and UUID wrappers.
    static let dateClass = "NSDate"
    static let uuidClass = "NSUUID"
}
