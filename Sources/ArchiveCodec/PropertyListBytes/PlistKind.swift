/// The kinds of value a property list holds. Sets are read as arrays ("tolerated").
enum PlistKind: UInt8 {
    case bool, int, real, date, data, asciiString, utf16String, uid, array, dict
}
