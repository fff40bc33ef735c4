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

extension ValueWrapper {
    /// The wrapper whose name is `text`, if any: compared only with the names of its length
    /// (asked for every `$` key of every object an encoder reads; no array is made, as
    /// `allCases` would be). `ValueWrapperTests` checks that every name is found here.
    static func named(_ text: UnsafeBufferPointer<UInt8>) -> ValueWrapper? {
        func named(_ wrapper: ValueWrapper) -> Bool { JSONText.text(text, equals: wrapper.name) }
        switch text.count {
        case 4: if named(.set) { return .set }
        case 5:
            if named(.data) { return .data }
            if named(.dict) { return .dict }
            if named(.date) { return .date }
            if named(.real) { return .real }
            if named(.text) { return .text }
            if named(.uuid) { return .uuid }
        case 6:
            if named(.array) { return .array }
            if named(.bytes) { return .bytes }
            if named(.plist) { return .plist }
        case 7:
            if named(.string) { return .string }
            if named(.number) { return .number }
            if named(.inline) { return .inline }
        case 8: if named(.integer) { return .integer }
        case 10:
            if named(.bytesText) { return .bytesText }
            if named(.plistDate) { return .plistDate }
        case 11: if named(.orderedSet) { return .orderedSet }
        default: break
        }
        return nil
    }
}
