/// The class a wrapper's body leaves unnamed.
enum DefaultClass: UInt8 {
    case none, array, set, orderedSet, dictionary, date, uuid

    init(valueForm form: ObjectForm) {
        switch form {
        case .date: self = .date
        case .uuid: self = .uuid
        default: self = .none
        }
    }

    var name: String {
        switch self {
        case .none: return ""
        case .array: return FoundationClasses.defaultArrayClass
        case .set: return FoundationClasses.defaultSetClass
        case .orderedSet: return FoundationClasses.defaultOrderedSetClass
        case .dictionary: return FoundationClasses.defaultDictionaryClass
        case .date: return FoundationClasses.dateClass
        case .uuid: return FoundationClasses.uuidClass
        }
    }
}
