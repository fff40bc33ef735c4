/// How one `$objects` entry is written in the readable view. Decided once, at parse time.
enum ObjectForm: UInt8 {
    case null  // UID 0
    // Plain plist values stored as objects (NSString, NSNumber, NSData, plist dates).
    case string, integer, real, bool, data, plistDate
    // Foundation classes whose archived keys have the expected shape.
    case array, set, orderedSet, stringKeyDictionary, pairDictionary, mutableString, classData, date, uuid
    /// NSDecimalNumber, NSCalendarDate, NSTimeZone whose archived keys have Foundation's
    /// layout (`ValueObjectForms`).
    case decimal, calendarDate, timeZone
    /// Any other class instance: class name plus archived keys.
    case generic
    /// A plain dict or array stored as an object (no `$class`), or a class entry used as a value.
    case rawDict, rawArray

    var isScalar: Bool { rawValue >= ObjectForm.string.rawValue && rawValue <= ObjectForm.plistDate.rawValue }
}

extension ObjectForm {
    /// A value class's one value (NSMutableString, NSData/NSMutableData, NSDate, NSUUID): the
    /// member of the readable JSON that holds it, and the archived key it is read from. The
    /// writer and the readers of places (compare, summaries) both take it from here.
    var valueClassMembers: (key: StaticString, field: StaticString) {
        switch self {
        case .mutableString: (MappingKeys.string, "NS.string")
        case .classData: (MappingKeys.data, "NS.data")
        case .date: (MappingKeys.date, "NS.time")
        default: (MappingKeys.uuid, "NS.uuidbytes")
        }
    }
}
