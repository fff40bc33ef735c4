/// The attributed strings the readable view writes as text in runs (docs/mapping.md,
/// "Attributed strings"): `{"$class": …, "$string": text, "$runs": [{"$length": 1,
/// "$attributes": {…}}, {"$length": 2, "$attributesOf": 0}, …]}` in place of the keys
/// `NSString`, `NSAttributeInfo` and `NSAttributes`. Found once after classification.
///
/// An instance folds only when the encoder, which rebuilds the three keys from the runs alone,
/// gives back exactly what it holds; anything else keeps its archived keys:
/// - its class is one of the attributed string classes (`BytesForm.Owner.attributedString`)
///   and its keys besides `$class` are `NSString` and `NSAttributes`, with `NSAttributeInfo`
///   exactly when the text has more than one run (Foundation's encoding); or `NSString` alone,
///   an empty text (an empty string or NSMutableString), which has no runs (`"$runs": []`);
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
/// Cost: one pass over the instances, each reading its own keys. A text may be the
/// `NSString` of any number of instances (nothing requires it unshared), and any number of
/// entries may lead to one plist string: each text's encoding is checked once and its length
/// remembered. Likewise any number of NSMutableData entries may hold one plist data object
/// under `NS.data`, and any number of NSMutableArray entries one `NS.objects` array: each
/// data object's runs are decoded and checked once (`Runs`, shared by the folds that use them)
/// and each array's elements once. So the whole costs, in time and in what it keeps, the
/// archive's size, not the number of instances times the text's or the runs'.
///
/// A class: `KeyedArchive` holds it in one word, and the readable view's walkers copy the
/// archive's description often.
final class AttributedRunFolds: Sendable {
    /// One folded instance: what its runs write.
    struct Fold: Sendable {
        /// The plist reference of the `NSString` key's value (a UID), written under `$string`.
        let string: Int
        /// Per run: its length in UTF-16 units (shared by every fold of the same runs).
        let lengths: [Int]
        /// Per run: the slot of `elements` whose attributes it brings (the next unused one), or
        /// `-1 - k` when it uses those of run `k` (shared by every fold of the same runs).
        let slots: [Int]
        /// Per slot: the plist reference (a UID) of the attributes dictionary (shared by every
        /// fold of the same `NS.objects` array).
        let elements: [Int]
        /// The NSMutableArray and NSMutableData entries the runs stand for (−1 with one run).
        var array = -1
        var info = -1

        /// What run `run` writes: the plist reference (a UID) of the attributes it brings,
        /// written under `$attributes`, or `-1 - k` when it uses those of run `k`, written
        /// `"$attributesOf": k`.
        @inline(__always)
        func attributes(ofRun run: Int) -> Int {
            let slot = slots[run]
            return slot >= 0 ? elements[slot] : slot
        }

        /// The run that brings the attributes in slot `slot` of the array.
        func firstRun(ofSlot slot: Int) -> Int? { slots.firstIndex(of: slot) }
    }

    /// The runs of one `NSAttributeInfo` data object, checked against its bytes alone: minimal
    /// varints of (length, slot) pairs, two runs or more, each at least one unit long, each new
    /// slot the next unused one.
    private struct Runs {
        let lengths: [Int]
        /// As `Fold.slots`.
        let slots: [Int]
        /// The units the runs cover, and the slots they use.
        let total: Int
        let slotCount: Int
    }

    /// The folded instances, and each one's index there by UID.
    let folds: [Fold]
    private let indexOfUID: [Int: Int]
    /// The fold each folded array and data entry belongs to, by UID.
    private let indexOfPart: [Int: Int]

    var isEmpty: Bool { folds.isEmpty }
    /// How many texts were read to measure them: each once, however many instances use it.
    let measuredTexts: Int
    /// How many data objects' runs were decoded: each once, however many instances use it.
    let decodedRuns: Int

    /// The index in `folds` of entry `uid`'s fold, if it has one.
    @inline(__always)
    func index(of uid: Int) -> Int? { indexOfUID[uid] }

    /// The index in `folds` of the fold whose array or data entry `uid` is, if any.
    func index(ofPart uid: Int) -> Int? { indexOfPart[uid] }

    /// `analysis` is borrowed (an argument an initialiser owns is a copy of every table it
    /// holds); the reader keeps a copy only for an archive with an attributed string's class.
    init(view: BinaryPlistView, analysis: borrowing ArchiveAnalysis) {
        var (folds, indexOfUID, indexOfPart) = ([Fold](), [Int: Int](), [Int: Int]())
        var (measured, decoded) = (0, 0)
        if analysis.classInfos.contains(where: { $0.bytesFormOwner == .attributedString }) {
            let owners = analysis.classInfos.map { $0.bytesFormOwner == .attributedString }
            var reader = Reader(view: view, analysis: copy analysis)
            for uid in 0..<analysis.objectCount where analysis.forms[uid] == .generic && owners[Int(analysis.classOf[uid])] {
                guard let fold = reader.fold(uid) else { continue }
                indexOfUID[uid] = folds.count
                if fold.array >= 0 { (indexOfPart[fold.array], indexOfPart[fold.info]) = (folds.count, folds.count) }
                folds.append(fold)
            }
            (measured, decoded) = (reader.measured, reader.decodedRuns)
        }
        (self.folds, self.indexOfUID, self.indexOfPart) = (folds, indexOfUID, indexOfPart)
        measuredTexts = measured
        decodedRuns = decoded
    }

    /// The checks of one instance, reading the classified archive.
    private struct Reader {
        let view: BinaryPlistView
        let analysis: ArchiveAnalysis
        /// Per text measured, by where its bytes start: its length, 0 when it does not fold.
        private var textLengths: [Int: Int] = [:]
        /// How many times a text was read to measure it.
        private(set) var measured = 0
        /// Per `NS.data` object read, by where its bytes start: its runs, nil when they do not
        /// fold.
        private var runsOfData: [Int: Runs?] = [:]
        private(set) var decodedRuns = 0
        /// Per `NS.objects` array read, by its plist reference: its elements, nil when one is
        /// not a dictionary entry.
        private var elementsOfList: [Int: [Int]?] = [:]

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
            // An empty text has no runs: Foundation archives it as its `NSString` alone.
            if string >= 0, attributes < 0, info < 0 {
                return isEmptyText(string) ? Fold(string: string, lengths: [], slots: [], elements: []) : nil
            }
            guard string >= 0, attributes >= 0, let length = textLength(string),
                let attributesUID = uidTarget(attributes)
            else { return nil }
            guard info >= 0 else {
                guard isDictionary(attributesUID) else { return nil }
                return Fold(string: string, lengths: [length], slots: [0], elements: [attributes])
            }
            guard let infoUID = uidTarget(info), isOwnedEntry(infoUID, named: "NSMutableData", form: .classData),
                isOwnedEntry(attributesUID, named: "NSMutableArray", form: .array),
                let data = view.value(in: view.header(at: Int(analysis.entryOffsets[infoUID])), forKey: "NS.data")
            else { return nil }
            let dataHeader = view.header(of: data)
            let list = KeyedArchive.itemList(analysis.lists[attributesUID])
            guard dataHeader.kind == .data, let runs = runs(of: dataHeader), runs.total == length,
                view.header(of: list).count == runs.slotCount, let elements = elements(of: list)
            else { return nil }
            var fold = Fold(string: string, lengths: runs.lengths, slots: runs.slots, elements: elements)
            (fold.array, fold.info) = (attributesUID, infoUID)
            return fold
        }

        /// The runs data object `data` holds, decoded and checked once however many instances
        /// use it (`runsOfData`). Every slot is used and each new one is the next, so the runs
        /// fit an array exactly when it has `slotCount` elements.
        private mutating func runs(of data: PlistObjectHeader) -> Runs? {
            if let known = runsOfData[data.start] { return known }
            decodedRuns += 1
            var runs: Runs?
            if let values = Varint.decode(view.payload(data)), values.count >= 4, values.count % 2 == 0 {
                var (lengths, slots, firstRunOf) = ([Int](), [Int](), [Int]())
                lengths.reserveCapacity(values.count / 2)
                slots.reserveCapacity(values.count / 2)
                var total = 0
                var folds = true
                for pair in stride(from: 0, to: values.count, by: 2) {
                    let (runLength, slot) = (values[pair], values[pair + 1])
                    // No text is longer than `Int32.max` units (the sum stays far from overflow).
                    guard runLength >= 1, runLength <= UInt64(Int32.max) - UInt64(total), slot <= UInt64(firstRunOf.count) else {
                        folds = false
                        break
                    }
                    total += Int(runLength)
                    lengths.append(Int(runLength))
                    if Int(slot) < firstRunOf.count {
                        slots.append(-1 - firstRunOf[Int(slot)])
                    } else {
                        // A new slot is the next unused one.
                        firstRunOf.append(lengths.count - 1)
                        slots.append(Int(slot))
                    }
                }
                if folds { runs = Runs(lengths: lengths, slots: slots, total: total, slotCount: firstRunOf.count) }
            }
            runsOfData[data.start] = runs
            return runs
        }

        /// The elements of plist array `list` (an NSMutableArray's `NS.objects`), each a UID of
        /// a dictionary entry, read once however many instances use it (`elementsOfList`).
        private mutating func elements(of list: Int) -> [Int]? {
            if let known = elementsOfList[list] { return known }
            let header = view.header(of: list)
            var elements: [Int]? = (0..<header.count).map { view.childRef(header, $0) }
            if elements!.contains(where: { !isDictionary(view.uidValue(of: $0)) }) { elements = nil }
            elementsOfList[list] = elements
            return elements
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
            guard let text = text(value), text.count > 0 else { return nil }
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

        /// Whether the `NSString` value `value` references an empty text: an empty string, or an
        /// NSMutableString instance's.
        private func isEmptyText(_ value: Int) -> Bool {
            text(value)?.count == 0
        }

        /// The string `NSString`'s value `value` references: a string entry, or an
        /// NSMutableString instance's `NS.string`; nil for anything else.
        private func text(_ value: Int) -> PlistObjectHeader? {
            guard let uid = uidTarget(value), uid != 0 else { return nil }
            var text = view.header(at: Int(analysis.entryOffsets[uid]))
            switch analysis.forms[uid] {
            case .string: break
            case .mutableString:
                guard let field = view.value(in: text, forKey: "NS.string") else { return nil }
                text = view.header(of: field)
            default: return nil
            }
            return text.kind == .asciiString || text.kind == .utf16String ? text : nil
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
