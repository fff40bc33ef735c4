/// NSColor's readable form: the colour spaces whose components NSArchiver writes as one group
/// of floats after the space's number (`{"c": 1}`, `{"ffff": [r, g, b, a]}`), and the names the
/// JSON gives them (`{"$class": "NSColor", "$space": "calibratedRGB", "$components": […]}`).
/// A named colour is space 6, one `@@@` group of its catalog, name and colour objects:
/// `{"$class": "NSColor", "$named": [catalog, name, colour]}`.
enum ReadableColor {
    /// The space number of a named colour.
    static let named: Int64 = 6

    /// The space numbers with a readable form, in order from 1.
    static let spaces: [(name: String, components: Int)] = [
        ("calibratedRGB", 4), ("deviceRGB", 4), ("calibratedWhite", 2), ("deviceWhite", 2), ("deviceCMYK", 5)
    ]

    /// The spaces' names as UTF-8, made once (a colour list writes one per colour).
    static let spaceNameBytes: [ArraySlice<UInt8>] = spaces.map { ArraySlice($0.name.utf8) }

    /// The name and component count of space `number`, nil for a space without a readable form.
    static func space(_ number: Int64) -> (name: String, components: Int)? {
        (1...Int64(spaces.count)).contains(number) ? spaces[Int(number) - 1] : nil
    }

    /// Whether a colour of space `number` is written with its hex (`$hex`): the RGB spaces.
    static func hasHex(space number: Int64) -> Bool { number == 1 || number == 2 }

    /// The number of the space named `name`.
    static func number(named name: String) -> Int64? {
        spaces.firstIndex { $0.name == name }.map { Int64($0) + 1 }
    }
}
