/// The kinds of value a property list holds. Sets are read as arrays ("tolerated").
enum PlistKind: UInt8 {
    case bool, int, real, date, data, asciiString, utf16String, uid, array, dict

    /// The `ScalarTable` tag of a scalar of this kind (never 0), an integer's apart when it is
    /// unsigned.
    func scalarTag(isUnsigned: Bool) -> UInt8 {
        (rawValue + 1) << 1 | (isUnsigned ? 1 : 0)
    }
}
