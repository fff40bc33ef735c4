/// The longest of a run of values, kept while they are met: at most `ArchiveSummary.listedValues`,
/// longest first, the first met first among equals. A value's preview is made only when it
/// enters the list.
///
/// Distinct values: a value equal to one kept (the same bytes, wherever they stand: writers
/// that do not intern spell one value many times) is not listed again. Only a value that
/// would enter the list is compared, with the kept ones of its length, and bytes at the same
/// place are equal without reading them. The comparisons read at most the budget given
/// (twice the document, which values that do not overlap cannot exhaust); past it, a value
/// that would enter is listed without comparing.
struct LargestValues {
    private(set) var entries: [ArchiveSummary.LargeValue] = []
    /// Per entry, where its bytes stand in the caller's buffer (nil: not compared).
    private var spans: [Range<Int>?] = []
    /// How many more bytes the comparisons may read.
    private var budget: Int

    /// `budget`: how many bytes the comparisons of values may read in all.
    init(comparing budget: Int = 0) {
        self.budget = budget
    }

    /// Whether a value of `length` would enter the list.
    func admits(_ length: Int) -> Bool {
        entries.count < ArchiveSummary.listedValues || length > entries[entries.count - 1].length
    }

    /// Considers a value of `length`, met at `location`. `span`: where its bytes stand in the
    /// caller's buffer, and `equal` whether the bytes at two spans are equal (nil: the value
    /// is listed without comparing it).
    mutating func consider(
        length: Int, at location: ArchiveSummary.Location?, span: Range<Int>? = nil, equal: (Range<Int>, Range<Int>) -> Bool = { _, _ in false },
        preview: () -> String
    ) {
        guard admits(length) else { return }
        if let span {
            for (index, kept) in spans.enumerated() where entries[index].length == length {
                guard let kept, kept.count == span.count else { continue }
                if kept == span { return }
                guard budget >= span.count else { break }
                budget -= span.count
                if equal(kept, span) { return }
            }
        }
        let position = entries.firstIndex { $0.length < length } ?? entries.count
        entries.insert(ArchiveSummary.LargeValue(length: length, preview: preview(), location: location), at: position)
        spans.insert(span, at: position)
        if entries.count > ArchiveSummary.listedValues {
            entries.removeLast()
            spans.removeLast()
        }
    }

    /// Names the place of each value of `values` met at a location (`place`: the steps to the
    /// location's value, nil when it has none), its payload's suffix after them.
    static func name(_ values: inout [ArchiveSummary.LargeValue], _ place: (ArchiveSummary.Location) -> [DocumentPath.Step]?) {
        for index in values.indices {
            guard let location = values[index].location else { continue }
            values[index].steps = place(location).map { $0 + location.suffix }
            values[index].location = nil
        }
    }

    /// `entries` and `more` as one list, longest first (entries of `entries` first among equals).
    static func merged(_ entries: [ArchiveSummary.LargeValue], _ more: [ArchiveSummary.LargeValue]) -> [ArchiveSummary.LargeValue] {
        var list = entries
        for value in more where list.count < ArchiveSummary.listedValues || value.length > list[list.count - 1].length {
            let position = list.firstIndex { $0.length < value.length } ?? list.count
            list.insert(value, at: position)
            if list.count > ArchiveSummary.listedValues { list.removeLast() }
        }
        return list
    }
}

/// The largest strings and data values of a property list's objects (a keyed archive's or a
/// plain one's), and the payloads among the data. Callers hand each object over once, however
/// many places refer to it, so its bytes are scanned once; equal values in several objects are
/// listed once (`LargestValues`).
struct LargestPlistValues {
    var strings: LargestValues
    var data: LargestValues

    /// `documentSize`: the bytes of the property list (the comparisons' budget is twice that).
    init(documentSize: Int) {
        strings = LargestValues(comparing: 2 * documentSize)
        data = LargestValues(comparing: 2 * documentSize)
    }

    /// Considers plist object `header` when it is a string or data (anything else is let be).
    mutating func consider(_ header: PlistObjectHeader, view: BinaryPlistView, at location: ArchiveSummary.Location?, payloads: inout PayloadScan) {
        let bytes = view.payload(header)
        let span = header.start..<(header.start + bytes.count)
        let equal = { (a: Range<Int>, b: Range<Int>) in view.bytes[a].elementsEqual(view.bytes[b]) }
        switch header.kind {
        case .asciiString:
            strings.consider(length: header.count, at: location, span: span, equal: equal) { ValuePreview.text(utf8: bytes) }
        case .utf16String:
            strings.consider(length: header.count, at: location, span: span, equal: equal) { ValuePreview.text(utf16BigEndian: bytes) }
        case .data:
            data.consider(length: bytes.count, at: location, span: span, equal: equal) { ValuePreview.data(bytes) }
            payloads.consider(bytes, at: location)
        default: break
        }
    }
}

/// The previews of `ArchiveSummary.LargeValue`.
enum ValuePreview {
    /// At most this many bytes of a value are decoded for its preview: enough for
    /// `previewLength` characters of four bytes each, and a few more.
    private static let bytesRead = 4 * ArchiveSummary.previewLength + 16

    /// The first characters of UTF-8 text.
    static func text(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        cut(String(decoding: bytes.prefix(bytesRead), as: UTF8.self), whole: bytes.count <= bytesRead)
    }

    /// The first characters of big-endian UTF-16 text (a binary plist's).
    static func text(utf16BigEndian bytes: UnsafeBufferPointer<UInt8>) -> String {
        let shown = bytes.prefix(2 * bytesRead)
        let units = stride(from: 0, to: shown.count - 1, by: 2).map { UInt16(shown[$0]) << 8 | UInt16(shown[$0 + 1]) }
        return cut(String(decoding: units, as: UTF16.self), whole: bytes.count <= 2 * bytesRead)
    }

    /// Data's first bytes: as text when they read as text (`DataText`), else as base64.
    static func data(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if DataText.isText(bytes) { return text(utf8: bytes) }
        let shown = UnsafeBufferPointer(rebasing: bytes.prefix(ArchiveSummary.previewLength / 4 * 3))
        var base64: [UInt8] = []
        Base64.encode(shown, into: &base64)
        return String(decoding: base64, as: UTF8.self) + (shown.count < bytes.count ? "…" : "")
    }

    /// `text` cut to `previewLength` characters, with `…` when anything is left out.
    private static func cut(_ text: String, whole: Bool) -> String {
        guard text.count > ArchiveSummary.previewLength || !whole else { return text }
        return String(text.prefix(ArchiveSummary.previewLength)) + "…"
    }
}
