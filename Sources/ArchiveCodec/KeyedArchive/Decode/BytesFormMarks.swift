/// Which data objects of an archive the readable view writes in a readable form
/// (`BytesForm`), found once after classification: the bytes under the form keys of the
/// instances of classes that have them (`ClassInfo.bytesFormOwner`, decided per class), inline
/// or in the data entry the key references (an NSData entry, or an NSMutableData instance's
/// `NS.data`). Only bytes the form gives back exactly are marked.
///
/// Marks are kept by where each data object's bytes begin (`PlistObjectHeader.start`), so the
/// writers find them from the header they already hold, wherever the object is written: in
/// its key, in `$table`, or with `$id` at another reference. A form stands for the bytes alone
/// (the encoder needs no context), so a data object reached from elsewhere too reads the same.
/// An archive without such classes pays one look at its classes and nothing per value.
struct BytesFormMarks: Sendable {
    /// A marked data object: its form and the brackets the form opens
    /// (`ReadableShape.formHeight`) under each `NumberWrapping`, found when marking so that
    /// measuring the view does not read the bytes again.
    struct Mark {
        let form: BytesForm
        /// Per `NumberWrapping` (`.nonFinite`, `.integers`, `.all`), 4 bits each.
        private let heights: UInt32
        /// The colour space label (`ColorSpaceLabel`) of a colour's components: 1 + its index
        /// in `BytesFormMarks.labels`, 0 for none.
        fileprivate(set) var label: Int

        fileprivate init(form: BytesForm, content: BytesForm.Content, label: Int) {
            self.form = form
            var heights: UInt32 = 0
            for (index, numbers) in Self.wrappings.enumerated() {
                heights |= UInt32(ReadableShape.formHeight(form, content, numbers)) << (4 * UInt32(index))
            }
            self.heights = heights
            self.label = label
        }

        fileprivate init(packed: UInt32) {
            form = BytesForm(rawValue: UInt8(truncatingIfNeeded: packed & 0xF))!
            heights = (packed >> 4) & 0xFFF
            label = Int(packed >> 16)
        }

        /// Form, heights and label in the 24 bits an `OffsetTable` holds.
        fileprivate var packed: UInt32 { UInt32(form.rawValue) | heights << 4 | UInt32(label) << 16 }

        /// The brackets the form opens when numbers are wrapped as `numbers` says.
        @inline(__always)
        func height(_ numbers: NumberWrapping) -> Int {
            let index: UInt32 =
                switch numbers {
                case .nonFinite: 0
                case .integers: 1
                case .all: 2
                }
            return Int((heights >> (4 * index)) & 0xF)
        }

        private static let wrappings: [NumberWrapping] = [.nonFinite, .integers, .all]
    }

    /// Marks (`Mark.packed`) by the start of the bytes.
    private var table = OffsetTable()

    /// The profile descriptions marks name as labels, each once: `Mark.label` 1 … 5 are
    /// `ColorSpaceLabel.modelLabels`, and 6 on these, at most `maximumLabels` in all so that a
    /// label fits a mark.
    private(set) var labels: [String] = []
    private static let maximumLabels = 255

    var isEmpty: Bool { table.count == 0 }

    /// The `$space` label of a colour's components marked `mark`, if they have one.
    func label(of mark: Mark) -> ColorSpaceLabel.Text? {
        switch mark.label {
        case 0: nil
        case ...ColorSpaceLabel.modelLabels.count: .model(ColorSpaceLabel.modelLabels[mark.label - 1])
        default: .profile(labels[mark.label - ColorSpaceLabel.modelLabels.count - 1])
        }
    }

    /// The mark of the data object whose bytes begin at `start`, if it has one.
    @inline(__always)
    func mark(at start: Int) -> Mark? {
        guard let packed = table.find(start) else { return nil }
        return Mark(packed: packed)
    }

    /// `analysis` is borrowed: an argument an initialiser owns is a copy of every table it holds.
    init(view: BinaryPlistView, analysis: borrowing ArchiveAnalysis) {
        // Most archives have no class that holds such bytes: they make no table of owners.
        guard analysis.classInfos.contains(where: { $0.bytesFormOwner != nil }) else { return }
        let owners = analysis.classInfos.map(\.bytesFormOwner)
        // The form each key object names, by key reference (instances share their key strings):
        // 64 slots, as `ObjectClassifier` remembers the keys it knows.
        var keyForms = [(ref: Int, owner: BytesForm.Owner?, form: BytesForm?, index: Int)](filledWith: (-1, nil, nil, 0), count: 64)
        var labelling = Labelling()
        for uid in 0..<analysis.objectCount where analysis.classOf[uid] >= 0 {
            guard let owner = owners[Int(analysis.classOf[uid])] else { continue }
            let header = view.header(at: Int(analysis.entryOffsets[uid]))
            for index in 0..<header.count {
                let key = view.childRef(header, index)
                let slot = key & (keyForms.count - 1)
                if keyForms[slot].ref != key { keyForms[slot] = Self.formNamed(by: key, view: view) }
                let named = keyForms[slot]
                guard named.owner == owner, let form = named.form, !analysis.classKeys.contains(key),
                    let data = Self.dataHeader(view.childRef(header, header.count + index), view: view, analysis: analysis)
                else { continue }
                let label =
                    owner == .color ? labelling.label(of: ColorSpaceLabel.Key.all[named.index], in: header, view: view, analysis: analysis, marks: &self) : 0
                // A data object under two keys keeps the first form found: each gives back the
                // bytes. Its label stays only if every colour that holds it gives the same.
                if let packed = table.find(data.start) {
                    var mark = Mark(packed: packed)
                    if mark.label != label, mark.label != 0 {
                        mark.label = 0
                        table.update(data.start, value: mark.packed)
                    }
                    continue
                }
                guard let content = form.content(of: view.payload(data)) else { continue }
                let shown = Self.isRGB(components: content, of: header, key: key, view: view) ? BytesForm.rgbComponents : form
                table.insert(data.start, value: Mark(form: shown, content: content, label: label).packed)
            }
        }
    }

    /// The label number (`Mark.label`) of profile description `text`, entered when new; 0
    /// when `labels` is full.
    fileprivate mutating func labelIndex(_ text: String, known: inout [String: Int]) -> Int {
        if let index = known[text] { return index }
        guard ColorSpaceLabel.modelLabels.count + labels.count < Self.maximumLabels else { return 0 }
        labels.append(text)
        let index = ColorSpaceLabel.modelLabels.count + labels.count
        known[text] = index
        return index
    }

    /// Reads each colour's label (`ColorSpaceLabel`) for its component keys: a colour's
    /// space number is read once for all its keys, and a custom space's profile once however
    /// many colours refer to it. A model label is a number of its own (nothing is hashed or
    /// made for it: a nested payload of one colour pays little).
    private struct Labelling {
        /// Label number by the custom space's UID (0: the space gives none).
        var spaceLabels: [Int: Int] = [:]
        /// Label number by where the profile's bytes begin: many spaces may share one profile,
        /// which is read once.
        var profileLabels: [Int: Int] = [:]
        var known: [String: Int] = [:]
        /// The colour last read and its space number (nil: none that labels).
        var colour = -1
        var model: Int64?

        mutating func label(of which: ColorSpaceLabel.Key, in header: PlistObjectHeader, view: BinaryPlistView, analysis: ArchiveAnalysis, marks: inout BytesFormMarks) -> Int {
            guard which == .components else {
                if colour != header.start {
                    colour = header.start
                    model = BytesFormMarks.colorModel(of: header, view: view)
                }
                guard let model, let index = ColorSpaceLabel.modelLabelIndex(which, model: model) else { return 0 }
                return index + 1
            }
            guard let space = view.value(in: header, forKey: ColorSpaceLabel.customSpaceKey) else { return 0 }
            let reference = view.header(of: space)
            guard reference.kind == .uid else { return 0 }
            let target = Int(view.uid(reference))
            guard target < analysis.objectCount else { return 0 }
            if let index = spaceLabels[target] { return index }
            var index = 0
            let entry = view.header(at: Int(analysis.entryOffsets[target]))
            if analysis.classOf[target] >= 0, entry.kind == .dict, let profile = view.value(in: entry, forKey: ColorSpaceLabel.profileKey),
                let data = BytesFormMarks.dataHeader(profile, view: view, analysis: analysis)
            {
                if let known = profileLabels[data.start] {
                    index = known
                } else {
                    index = ColorSpaceLabel.profileLabel(view.payload(data)).map { marks.labelIndex($0, known: &known) } ?? 0
                    profileLabels[data.start] = index
                }
            }
            spaceLabels[target] = index
            return index
        }

    }

    /// Whether `key` is an NSColor's `NSComponents` holding red, green, blue (and alpha) of
    /// the RGB model (`NSColorSpace` 1, calibrated, or 2, device; in the colour's own space,
    /// `NSCustomColorSpace` when it has one): then the components have a `$hex` too, as
    /// `NSRGB`'s have (`BytesForm.rgbComponents`), and a reader sees the colour's own hex
    /// beside the fallback's. Other models (white, CMYK) have none.
    private static func isRGB(components content: BytesForm.Content, of header: PlistObjectHeader, key: Int, view: BinaryPlistView) -> Bool {
        guard case .components(let text) = content, text.components.count == 3 || text.components.count == 4, view.isString(key, equalTo: "NSComponents"),
            let model = colorModel(of: header, view: view)
        else { return false }
        return model == 1 || model == 2
    }

    /// Colour `header`'s `NSColorSpace` number, when it is a signed integer.
    fileprivate static func colorModel(of header: PlistObjectHeader, view: BinaryPlistView) -> Int64? {
        guard let number = view.value(in: header, forKey: ColorSpaceLabel.modelKey) else { return nil }
        let model = view.header(of: number)
        guard model.kind == .int else { return nil }
        let value = view.integer(model)
        return value.isUnsigned ? nil : Int64(bitPattern: value.bits)
    }

    /// The owner and form whose key the string `key` is, if any (every key belongs to one
    /// owner), with the key's place among the owner's (`BytesForm.Owner.keys`).
    private static func formNamed(by key: Int, view: BinaryPlistView) -> (ref: Int, owner: BytesForm.Owner?, form: BytesForm?, index: Int) {
        for owner in BytesForm.Owner.allCases {
            if let index = owner.keys.firstIndex(where: { view.isString(key, equalTo: $0.key) }) { return (key, owner, owner.keys[index].form, index) }
        }
        return (key, nil, nil, 0)
    }

    /// The data object a form key's value holds: inline data, an NSData entry it references,
    /// or a referenced NSMutableData instance's `NS.data`.
    fileprivate static func dataHeader(_ value: Int, view: BinaryPlistView, analysis: ArchiveAnalysis) -> PlistObjectHeader? {
        let header = view.header(of: value)
        switch header.kind {
        case .data:
            return header
        case .uid:
            let target = Int(view.uid(header))
            guard target < analysis.objectCount else { return nil }
            let entry = view.header(at: Int(analysis.entryOffsets[target]))
            switch analysis.forms[target] {
            case .data: return entry
            case .classData:
                guard let data = view.value(in: entry, forKey: "NS.data"), view.header(of: data).kind == .data else { return nil }
                return view.header(of: data)
            default: return nil
            }
        default:
            return nil
        }
    }
}
