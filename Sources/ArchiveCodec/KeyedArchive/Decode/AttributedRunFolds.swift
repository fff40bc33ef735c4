/// The attributed strings the readable view writes as text in runs (docs/mapping.md,
/// "Attributed strings"): `{"$class": …, "$string": text, "$runs": [{"$length": 1,
/// "$attributes": {…}}, {"$length": 2, "$attributesOf": 0}, …]}` in place of the keys
/// `NSString`, `NSAttributeInfo` and `NSAttributes`. Found once after classification.
///
/// An instance folds only when the encoder, which rebuilds the three keys from the runs alone,
/// gives back exactly what it holds; anything else keeps its archived keys:
/// - its class is one of the attributed string classes (`BytesForm.Owner.attributedString`)
///   and its keys besides `$class` are `NSString` and `NSAttributes`, with `NSAttributeInfo`
///   exactly when the text has more than one run (Foundation's encoding);
/// - `NSString` is a non-empty string, or an NSMutableString instance, of ASCII or well-formed
///   UTF-16 text;
/// - with one run, `NSAttributes` is the run's dictionary;
/// - with more, `NSAttributeInfo` is an NSMutableData instance and `NSAttributes` an
///   NSMutableArray instance (each of the usual chain, without hints), each referenced from
///   this object alone; the data is the minimal varints of (length, index) pairs, two runs or
///   more, each at least one unit long, the lengths summing to the text's UTF-16 length; the
///   indexes are into the array, each new one the next unused (the order of first use, which
///   `$attributesOf` rebuilds), and every element is used;
/// - every run's attributes are a dictionary entry (the runs' values are ordinary children,
///   shared or not).
///
/// Cost: one pass over the instances, each reading its own keys and runs. A text may be the
/// `NSString` of any number of instances (nothing requires it unshared), and any number of
/// entries may lead to one plist string: each text's encoding is checked once and its length
/// remembered, so the whole costs the archive's size, not the number of instances times the
/// text's.
///
/// A class: `KeyedArchive` holds it in one word, and the readable view's walkers copy the
/// archive's description often.
final class AttributedRunFolds: Sendable {
    /// One folded instance: what its runs write.
    struct Fold: Sendable {
        /// The plist reference of the `NSString` key's value (a UID), written under `$string`.
        let string: Int
        /// Per run: its length in UTF-16 units.
        let lengths: [Int]
        /// Per run: the plist reference (a UID) of the attributes it brings, written under
        /// `$attributes`, or `-1 - k` when it uses those of run `k`, written `"$attributesOf": k`.
        let attributes: [Int]
        /// The NSMutableArray and NSMutableData entries the runs stand for (−1 with one run).
        var array = -1
        var info = -1

        /// The run that brings the attributes in slot `slot` of the array.
        func firstRun(ofSlot slot: Int) -> Int? {
            var seen = 0
            for (run, attributes) in self.attributes.enumerated() where attributes >= 0 {
                if seen == slot { return run }
                seen += 1
            }
            return nil
        }
    }

    /// The folded instances, and each one's index there by UID.
    let folds: [Fold]
    private let indexOfUID: [Int: Int]
    /// The fold each folded array and data entry belongs to, by UID.
    private let indexOfPart: [Int: Int]

    var isEmpty: Bool { folds.isEmpty }
    /// How many texts were read to measure them: each once, however many instances use it.
    let measuredTexts: Int

    /// The index in `folds` of entry `uid`'s fold, if it has one.
    @inline(__always)
    func index(of uid: Int) -> Int? { indexOfUID[uid] }

    /// The index in `folds` of the fold whose array or data entry `uid` is, if any.
    func index(ofPart uid: Int) -> Int? { indexOfPart[uid] }

    init(view: BinaryPlistView, analysis: ArchiveAnalysis) {
        var (folds, indexOfUID, indexOfPart) = ([Fold](), [Int: Int](), [Int: Int]())
        let owners = analysis.classInfos.map { $0.bytesFormOwner == .attributedString }
        var reader = Reader(view: view, analysis: analysis)
        if owners.contains(true) {
            for uid in 0..<analysis.objectCount where analysis.forms[uid] == .generic && owners[Int(analysis.classOf[uid])] {
                guard let fold = reader.fold(uid) else { continue }
                indexOfUID[uid] = folds.count
                if fold.array >= 0 { (indexOfPart[fold.array], indexOfPart[fold.info]) = (folds.count, folds.count) }
                folds.append(fold)
            }
        }
        (self.folds, self.indexOfUID, self.indexOfPart) = (folds, indexOfUID, indexOfPart)
        measuredTexts = reader.measured
    }

    /// The checks of one instance, reading the classified archive.
    private struct Reader {
        let view: BinaryPlistView
        let analysis: ArchiveAnalysis
        /// Per text measured, by where its bytes start: its length, 0 when it does not fold.
        private var textLengths: [Int: Int] = [:]
        /// How many times a text was read to measure it.
        private(set) var measured = 0

        init(view: BinaryPlistView, analysis: ArchiveAnalysis) {
            self.view = view
            self.analysis = analysis
        }

        mutating func fold(_ uid: Int) -> Fold? {
            let header = view.header(at: Int(analysis.entryOffsets[uid]))
            var (string, info, attributes) = (-1, -1, -1)
            for index in 0..<header.count {
                let key = view.childRef(header, index)
                if analysis.classKeys.contains(key) { continue }
                let value = view.childRef(header, header.count + index)
                if string < 0, view.isString(key, equalTo: "NSString") {
                    string = value
                } else if info < 0, view.isString(key, equalTo: "NSAttributeInfo") {
                    info = value
                } else if attributes < 0, view.isString(key, equalTo: "NSAttributes") {
                    attributes = value
                } else {
                    return nil
                }
            }
            guard string >= 0, attributes >= 0, let length = textLength(string),
                let attributesUID = uidTarget(attributes)
            else { return nil }
            guard info >= 0 else {
                guard isDictionary(attributesUID) else { return nil }
                return Fold(string: string, lengths: [length], attributes: [attributes])
            }
            guard let infoUID = uidTarget(info), isOwnedEntry(infoUID, named: "NSMutableData", form: .classData),
                isOwnedEntry(attributesUID, named: "NSMutableArray", form: .array),
                let data = view.value(in: view.header(at: Int(analysis.entryOffsets[infoUID])), forKey: "NS.data")
            else { return nil }
            let dataHeader = view.header(of: data)
            guard dataHeader.kind == .data, let values = Varint.decode(view.payload(dataHeader)), values.count >= 4, values.count % 2 == 0 else {
                return nil
            }
            let elements = view.header(of: KeyedArchive.itemList(analysis.lists[attributesUID]))
            var (lengths, runAttributes, firstRunOf) = ([Int](), [Int](), [Int]())
            var total = 0
            for pair in stride(from: 0, to: values.count, by: 2) {
                let (runLength, slot) = (values[pair], values[pair + 1])
                guard runLength >= 1, runLength <= UInt64(length - total), slot < UInt64(elements.count) else { return nil }
                total += Int(runLength)
                lengths.append(Int(runLength))
                if Int(slot) < firstRunOf.count {
                    runAttributes.append(-1 - firstRunOf[Int(slot)])
                    continue
                }
                // A new slot is the next unused one.
                let element = view.childRef(elements, Int(slot))
                guard Int(slot) == firstRunOf.count, isDictionary(view.uidValue(of: element)) else { return nil }
                firstRunOf.append(lengths.count - 1)
                runAttributes.append(element)
            }
            guard total == length, firstRunOf.count == elements.count else { return nil }
            var fold = Fold(string: string, lengths: lengths, attributes: runAttributes)
            (fold.array, fold.info) = (attributesUID, infoUID)
            return fold
        }

        /// The entry a value references, when it is a UID.
        private func uidTarget(_ value: Int) -> Int? {
            let header = view.header(of: value)
            return header.kind == .uid ? Int(view.uid(header)) : nil
        }

        /// The UTF-16 length of the text `NSString`'s value references (a string, or an
        /// NSMutableString instance's), when it is not empty and its units are counted alike
        /// on both sides: ASCII strings of ASCII bytes only, or UTF-16. Each text is read once
        /// (`textLengths`, by where its bytes stand), however many instances, entries or
        /// plist objects lead to it.
        private mutating func textLength(_ value: Int) -> Int? {
            guard let uid = uidTarget(value), uid != 0 else { return nil }
            var text = view.header(at: Int(analysis.entryOffsets[uid]))
            switch analysis.forms[uid] {
            case .string: break
            case .mutableString:
                guard let field = view.value(in: text, forKey: "NS.string") else { return nil }
                text = view.header(of: field)
            default: return nil
            }
            guard text.kind == .asciiString || text.kind == .utf16String, text.count > 0 else { return nil }
            if let known = textLengths[text.start] { return known > 0 ? known : nil }
            measured += 1
            let length = Self.countsAlike(text, view.payload(text)) ? text.count : 0
            textLengths[text.start] = length
            return length > 0 ? length : nil
        }

        /// Whether the units of string `text` (its bytes, `payload`) are counted alike on both
        /// sides: ASCII bytes only, or well-formed UTF-16.
        private static func countsAlike(_ text: PlistObjectHeader, _ payload: UnsafeBufferPointer<UInt8>) -> Bool {
            text.kind == .asciiString ? !payload.contains { $0 >= 0x80 } : isWellFormed(payload)
        }

        /// Whether big-endian UTF-16 `units` pair every surrogate (the JSON text then holds the
        /// same units, which the encoder counts).
        private static func isWellFormed(_ units: UnsafeBufferPointer<UInt8>) -> Bool {
            var index = 0
            while index < units.count {
                let high = units[index] & 0xFC
                if high == 0xDC { return false }
                if high == 0xD8 {
                    guard index + 2 < units.count, units[index + 2] & 0xFC == 0xDC else { return false }
                    index += 2
                }
                index += 2
            }
            return true
        }

        /// Whether entry `uid` is an NSDictionary entry in one of its readable forms.
        private func isDictionary(_ uid: Int) -> Bool {
            analysis.forms[uid] == .stringKeyDictionary || analysis.forms[uid] == .pairDictionary
        }

        /// Whether entry `uid` has the readable `form`, is an instance of class `name` with the
        /// usual chain and no hints, and is referenced once, by the instance folding it.
        private func isOwnedEntry(_ uid: Int, named name: String, form: ObjectForm) -> Bool {
            guard uid != 0, analysis.forms[uid] == form, analysis.referenceCounts[uid] == 1, !analysis.carriesID[uid] else { return false }
            let info = analysis.classInfos[Int(analysis.classOf[uid])]
            return info.isPlain && info.name == name
        }
    }
}
