@testable import ArchiveCodec

/// Keyed archives of one attributed string laid out as Foundation encodes it (`NSString`,
/// then with more than one run an NSMutableArray of attribute dictionaries in order of first
/// use under `NSAttributes` and an NSMutableData of (length, index) varints under
/// `NSAttributeInfo`; with one run the dictionary itself), built from a description that tests
/// may also spoil on purpose.
struct AttributedStringArchive {
    /// The instance's class: NSAttributedString, NSMutableAttributedString (its text an
    /// NSMutableString) or NSTextStorage.
    var className = "NSAttributedString"
    var text: String
    /// Per run: its UTF-16 length and its index into `dictionaries`.
    var runs: [(length: Int, slot: Int)]
    /// Per `NSAttributes` slot, the dictionary it holds, by its index in `distinct` (two slots
    /// may hold the same entry).
    var slots: [Int]
    /// The distinct attribute dictionaries: (key, value) pairs of strings and integers.
    var distinct: [[(String, Value)]]
    /// Write `NSAttributeInfo` and the array even for one run.
    var forceArray = false
    /// `NSAttributeInfo`'s bytes instead of the minimal varints of `runs`.
    var infoBytes: [UInt8]?
    /// `NSAttributeInfo` as a plain NSData entry rather than an NSMutableData instance.
    var plainData = false
    /// Another `$top` key referencing the attributes array (the array shared).
    var shareArray = false
    /// Another `$top` key referencing the first dictionary (a dictionary shared).
    var shareDictionary = false
    /// A key the instance holds besides Foundation's.
    var extraKey = false

    /// The minimal varints of `runs`.
    var minimalInfo: [UInt8] {
        var bytes: [UInt8] = []
        Varint.encode(runs.flatMap { [UInt64($0.length), UInt64($0.slot)] }, into: &bytes)
        return bytes
    }

    func archive() throws -> [UInt8] {
        var entries: [Entry] = []
        func add(_ entry: Entry) -> Int {
            entries.append(entry)
            return entries.count
        }
        _ = add(.int(0))  // the instance, filled last
        let string =
            className == "NSMutableAttributedString"
            ? add(.object("NSMutableString", [("NS.string", .string(text))])) : add(.string(text))
        var dictionaryUIDs: [Int] = []
        var keyUIDs: [String: Int] = [:]  // one entry per key, as Foundation shares them
        for pairs in distinct {
            let keys = pairs.map { pair in
                if let known = keyUIDs[pair.0] { return known }
                keyUIDs[pair.0] = add(.string(pair.0))
                return entries.count
            }
            let values = pairs.map { pair -> Int in
                switch pair.1 {
                case .int(let number): return add(.int(number))
                case .string(let text): return add(.string(text))
                default: return add(.string("?"))
                }
            }
            dictionaryUIDs.append(add(.object("NSDictionary", [("NS.keys", .array(keys.map { .uid($0) })), ("NS.objects", .array(values.map { .uid($0) }))])))
        }
        var pairs: [(String, Value)] = [("NSString", .uid(string))]
        var top: [(String, Value)] = [("root", .uid(1))]
        if runs.count == 1, !forceArray {
            pairs.append(("NSAttributes", .uid(dictionaryUIDs[slots[0]])))
        } else {
            let bytes = infoBytes ?? minimalInfo
            let info = plainData ? add(.data(bytes)) : add(.object("NSMutableData", [("NS.data", .data(bytes))]))
            let array = add(.object("NSMutableArray", [("NS.objects", .array(slots.map { .uid(dictionaryUIDs[$0]) }))]))
            pairs += [("NSAttributeInfo", .uid(info)), ("NSAttributes", .uid(array))]
            if shareArray { top.append(("array", .uid(array))) }
        }
        if shareDictionary { top.append(("dictionary", .uid(dictionaryUIDs[0]))) }
        if extraKey { pairs.append(("NSDelegate", .uid(0))) }
        entries[0] = .object(className, pairs)
        return try buildArchive(entries, top: top)
    }

    /// A random attributed string: text of ASCII, accented, CJK and non-BMP characters, cut
    /// into runs anywhere (a cut may fall inside a surrogate pair, as in Foundation), each run
    /// using a new dictionary or an earlier one, slots sometimes holding the same dictionary.
    static func random(using random: inout some RandomNumberGenerator) -> AttributedStringArchive {
        let alphabet = ["a", "b", " ", "é", "中", "😀", "𝄞", "\n", "\u{301}"]
        var text = ""
        for _ in 0..<Int.random(in: 1...24, using: &random) { text += alphabet.randomElement(using: &random)! }
        let length = text.utf16.count
        var cuts = Set<Int>()
        for _ in 0..<Int.random(in: 0...min(length - 1, 6), using: &random) { cuts.insert(Int.random(in: 1..<length, using: &random)) }
        let bounds = [0] + cuts.sorted() + [length]
        let fonts = ["Helvetica", "Times", "Menlo"]
        let distinct = (0..<Int.random(in: 1...4, using: &random)).map { index -> [(String, Value)] in
            index == 0 ? [] : [("Font", .string(fonts[index % 3])), ("Size", .int(Int64(10 + index)))].shuffled(using: &random)
        }
        var slots: [Int] = []
        var runs: [(length: Int, slot: Int)] = []
        for index in 1..<bounds.count {
            let slot = slots.isEmpty || Bool.random(using: &random) ? slots.count : Int.random(in: 0..<slots.count, using: &random)
            if slot == slots.count { slots.append(Int.random(in: 0..<distinct.count, using: &random)) }
            runs.append((bounds[index] - bounds[index - 1], slot))
        }
        let classes = ["NSAttributedString", "NSMutableAttributedString", "NSTextStorage"]
        var built = AttributedStringArchive(className: classes.randomElement(using: &random)!, text: text, runs: runs, slots: slots, distinct: distinct)
        built.shareDictionary = Int.random(in: 0..<4, using: &random) == 0
        return built
    }
}
