/// The value wrappers of the mapping; an object holds at most one.
enum ValueWrapper: CaseIterable {
    case array, set, orderedSet, dict, string, data, number, real, integer, plistDate, date, uuid, plist, bytes, inline, text, bytesText

    var name: StaticString {
        switch self {
        case .array: "$array"
        case .set: "$set"
        case .orderedSet: "$orderedSet"
        case .dict: "$dict"
        case .string: "$string"
        case .data: "$data"
        case .number: "$number"
        case .real: "$real"
        case .integer: "$integer"
        case .plistDate: "$plistDate"
        case .date: "$date"
        case .uuid: "$uuid"
        case .plist: "$plist"
        case .bytes: "$bytes"
        case .inline: "$inline"
        case .text: "$text"
        case .bytesText: "$bytesText"
        }
    }
}
