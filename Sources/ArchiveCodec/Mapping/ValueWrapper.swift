/// The value wrappers of the mapping; an object holds at most one.
enum ValueWrapper: CaseIterable {
    case array, set, orderedSet, dict, string, data, number, real, integer, plistDate, date, uuid, plist, bytes, inline, text, bytesText

    var name: StaticString {
        switch self {
        case .array: MappingKeys.array
        case .set: MappingKeys.set
        case .orderedSet: MappingKeys.orderedSet
        case .dict: MappingKeys.dict
        case .string: MappingKeys.string
        case .data: MappingKeys.data
        case .number: MappingKeys.number
        case .real: MappingKeys.real
        case .integer: MappingKeys.integer
        case .plistDate: MappingKeys.plistDate
        case .date: MappingKeys.date
        case .uuid: MappingKeys.uuid
        case .plist: MappingKeys.plist
        case .bytes: MappingKeys.bytes
        case .inline: MappingKeys.inline
        case .text: MappingKeys.text
        case .bytesText: MappingKeys.bytesText
        }
    }
}
