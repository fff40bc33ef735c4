/// A keyed archive parsed and validated once: the plist layer (binary, or XML converted to
/// binary), the archive layer (`$top`, `$objects`, every UID in range, every `$class` a
/// class), the readable form of each object, and its reference count. Writing JSON from it
/// then cannot fail.
package struct KeyedArchive: Sendable {
    let plist: BinaryPlist
    package let sourceFormat: PlistFormat
    /// Whether the readable document is the root object itself rather than an envelope.
    /// (Beside `sourceFormat`, in the plist's last word: the readable view's walkers copy
    /// this description often, so its size counts.)
    let isPlainRoot: Bool

    /// Plist references of the archive's parts.
    let archiverRef: Int
    let versionRef: Int
    let topRef: Int
    let objectsRef: Int
    let objectCount: Int

    /// The per-entry tables (`Tables`), in one object: the readable view's writers, shape
    /// and scanners each keep a copy of the archive, and a copy retains this one reference
    /// rather than the dozen arrays it holds (a keyed document was copied six times or more
    /// on its way to JSON, and every nested payload with it). Read through the accessors
    /// below, which lend each table in place.
    private let tables: Tables

    var forms: [ObjectForm] { _read { yield tables.forms } }
    var classOf: [Int32] { _read { yield tables.classOf } }
    var referenceCounts: [UInt32] { _read { yield tables.referenceCounts } }
    var carriesID: [Bool] { _read { yield tables.carriesID } }
    var tieGroups: [Int32] { _read { yield tables.tieGroups } }
    var lists: [UInt64] { _read { yield tables.lists } }
    var entryOffsets: [UInt32] { _read { yield tables.entryOffsets } }
    var classInfos: [ClassInfo] { _read { yield tables.classInfos } }
    var bytesForms: BytesFormMarks { _read { yield tables.bytesForms } }
    var attributedRuns: AttributedRunFolds { _read { yield tables.attributedRuns } }
    var classKeys: ClassKeyRefs { _read { yield tables.classKeys } }

    /// What `KeyedArchive` holds per entry, and its marks.
    final class Tables: Sendable {
        /// Per `$objects` entry.
        let forms: [ObjectForm]
        /// Index in `classInfos` of each class instance's class (−1 otherwise).
        let classOf: [Int32]
        /// How many UID references (from `$top` and from objects, `$class` excluded) point at it.
        let referenceCounts: [UInt32]
        /// Whether the entry needs `$id`: shared or cyclic objects, and scalars that are not the
        /// one object standing for their value (see `ScalarIdentity`).
        let carriesID: [Bool]
        /// Per entry, the group of equal scalars referenced equally often that it belongs to (−1:
        /// none; empty when no value has such a tie): `carriesID` marks them all, and placement
        /// writes the first one it reaches of each group bare (see `ScalarIdentity`).
        let tieGroups: [Int32]
        /// Per collection entry (forms array, set, and both dictionary forms), the plist
        /// references of its lists, found once while classifying: `NS.objects` in the low 32
        /// bits, `NS.keys` (dictionaries) in the high ones. Zero for other entries.
        let lists: [UInt64]
        /// Per entry, where its object starts in the file: read once while classifying, so the
        /// writers reach an object in one step instead of through `$objects` and the offset
        /// table (two more dependent memory reads per reference).
        let entryOffsets: [UInt32]
        /// The class entries instances use, each read once.
        let classInfos: [ClassInfo]
        /// The data objects whose bytes the readable view writes in a readable form.
        let bytesForms: BytesFormMarks
        /// The attributed strings the readable view writes as text in runs.
        let attributedRuns: AttributedRunFolds

        /// The plist objects that are the key `$class`.
        let classKeys: ClassKeyRefs

        /// The tables `analysis` found, and the marks read from it.
        init(_ analysis: borrowing ArchiveAnalysis, bytesForms: BytesFormMarks, attributedRuns: AttributedRunFolds) {
            forms = analysis.forms
            classOf = analysis.classOf
            referenceCounts = analysis.referenceCounts
            carriesID = analysis.carriesID
            tieGroups = analysis.tieGroups
            lists = analysis.lists
            entryOffsets = analysis.entryOffsets
            classInfos = analysis.classInfos
            classKeys = analysis.classKeys
            self.bytesForms = bytesForms
            self.attributedRuns = attributedRuns
        }
    }

    /// A class entry as the readable view writes it. A class (instances share one, and the
    /// writer reaches it for every instance: a reference costs one retain, not three).
    final class ClassInfo: Sendable {
        let name: String
        /// nil when the class entry has no `$classes`.
        let chain: [String]?
        let hints: [String]?
        let isDefaultChain: Bool
        /// The usual chain and no hints: with the wrapper's default name, no `$class` at all.
        let isPlain: Bool
        /// `name` as a JSON string, quotes included, escaped once.
        let quotedName: [UInt8]
        /// The member `"$class":` `quotedName`, as compact text writes it.
        let classMember: [UInt8]
        /// The readable wrapper instances may use (nil: none, always generic).
        let family: FoundationClasses.Family?
        /// Whether instances hold bytes under keys that have a readable form (`BytesForm`).
        let bytesFormOwner: BytesForm.Owner?

        /// `chainOwner`: the form `chain`'s names call for (`BytesForm.Owner(anyOf:)`), which
        /// the caller reads once per `$classes` array: class entries may share one.
        init(name: String, chain: [String]?, hints: [String]?, chainOwner: BytesForm.Owner?) {
            self.name = name
            self.chain = chain
            self.hints = hints
            isDefaultChain = chain == FoundationClasses.defaultChain(for: name)
            isPlain = isDefaultChain && hints == nil
            var text = JSONOutput(pretty: false)
            text.string(name)
            quotedName = text.finish()
            classMember = Array("\"$class\":".utf8) + quotedName
            family = FoundationClasses.family(of: name)
            bytesFormOwner = BytesForm.Owner(named: name) ?? chainOwner
        }
    }

    /// `parallelism`: how the independent parts of validation and classification may share
    /// threads (the result is the same for every choice).
    package init(parsing bytes: [UInt8], parallelism: Parallelism = .serial) throws(CodecError) {
        let (plist, sourceFormat) = try Self.readPropertyList(bytes, parallelism: parallelism)
        try self.init(plist: plist, sourceFormat: sourceFormat, parallelism: parallelism)
    }

    /// A binary or XML property list, validated; XML is turned into a binary one in memory.
    static func readPropertyList(_ bytes: [UInt8], parallelism: Parallelism) throws(CodecError) -> (BinaryPlist, PlistFormat) {
        let plist: BinaryPlist
        let sourceFormat: PlistFormat
        if bytes.starts(with: "bplist".utf8) {
            plist = try BinaryPlist(bytes: bytes, parallelism: parallelism)
            sourceFormat = .binary
        } else if Self.looksLikeXML(bytes) {
            let (tree, root) = try XMLPlistReader.read(bytes)
            do {
                plist = try BinaryPlist(bytes: BinaryPlistWriter.write(tree, root: root), parallelism: parallelism)
            } catch {
                throw error.droppingByteOffset()
            }
            sourceFormat = .xml
        } else if let embedded = Self.firstIndex(of: Array("bplist00".utf8), in: bytes) {
            throw CodecError(
                .malformedPlist,
                "not a bare property list, but a binary plist starts at byte \(embedded): this looks like a protocol frame (e.g. DTX) that carries an archive; send the archive bytes alone",
                byteOffset: 0)
        } else {
            throw CodecError(.malformedPlist, "not a property list: expected a binary plist (bplist00) or XML", byteOffset: 0)
        }
        return (plist, sourceFormat)
    }

    /// The archive in `plist`, read as `sourceFormat` (error offsets of XML input are dropped:
    /// they would point into the binary form).
    /// `placeholders`: a salvage's placeholder entries (`KeyedArchiveSalvage`).
    init(plist: BinaryPlist, sourceFormat: PlistFormat, parallelism: Parallelism = .serial, placeholders: Set<Int> = []) throws(CodecError) {
        self.plist = plist
        self.sourceFormat = sourceFormat
        let (parsed, format) = (plist, sourceFormat)
        let (analysis, bytesForms, attributedRuns) = try parsed.withView {
            (view) throws(CodecError) -> (ArchiveAnalysis, BytesFormMarks, AttributedRunFolds) in
            do throws(CodecError) {
                let analysis = try ArchiveAnalysis(
                    view: view, top: parsed.topObject, classKeys: parsed.classKeys, sharedObjects: parsed.sharedObjects, parallelism: parallelism,
                    placeholders: placeholders)
                // The marks first: a tuple that read the analysis after taking it would take a copy.
                let (marks, runs) = (BytesFormMarks(view: view, analysis: analysis), AttributedRunFolds(view: view, analysis: analysis))
                return (analysis, marks, runs)
            } catch {
                // Offsets found past the XML reader point into the binary plist it was turned into.
                throw format == .xml ? error.droppingByteOffset() : error
            }
        }
        archiverRef = analysis.archiverRef
        versionRef = analysis.versionRef
        topRef = analysis.topRef
        objectsRef = analysis.objectsRef
        objectCount = analysis.objectCount
        tables = Tables(analysis, bytesForms: bytesForms, attributedRuns: attributedRuns)
        isPlainRoot = analysis.isPlainRoot
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }

    static func looksLikeXML(_ bytes: [UInt8]) -> Bool {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<")
    }

    /// Depth of `view`'s JSON with the default options: the plist's nesting for the raw
    /// view, the JSON nesting of the readable one (`Placement`). Computed without recursion.
    package func depth(of view: ArchiveView) -> Int {
        switch view {
        case .raw: return plist.rawDepth
        case .readable: return defaultPlacement().depth
        }
    }

    /// The readable view's placement without a nesting bound (which is the only way it throws);
    /// `parallelism`: how scanning bodies may be split (the same placement for every choice).
    /// Not stopped by a `ConversionDeadline` (its callers cannot fail; the pass is linear):
    /// a caller under a deadline checks it after.
    func defaultPlacement(parallelism: Parallelism = .serial) -> Placement {
        do {
            return try ConversionDeadline.run(seconds: nil) { () throws(CodecError) -> Placement in
                try plist.withView { (view) throws(CodecError) -> Placement in
                    try Placement(archive: self, view: view, numbers: .nonFinite, bound: nil, parallelism: parallelism)
                }
            }
        } catch {
            preconditionFailure("a placement without a bound cannot fail: \(error)")
        }
    }

    /// The most either conversion may write from `inputSize` bytes: 16 times the input, and
    /// at least 64 MiB. The readable view writes a shared string (and the raw view a shared
    /// plist value) at every reference, so a small archive can stand for an enormous document
    /// (100 KB of references to one long string → 100 MB); past this size the conversion is
    /// refused instead of exhausting memory. Real archives decode to 1–4 times their size and
    /// JSON encodes to a binary archive smaller than itself (an XML one 2–8 times); only
    /// documents that repeat shared values, or JSON of empty containers asking for an XML
    /// archive, go past it. A server sizes its memory from this bound, so it holds for both
    /// directions.
    package static func maximumOutputSize(forInputSize inputSize: Int) -> Int {
        max(64 << 20, 16 * inputSize)
    }

    /// The archive as JSON text, with the default options. Recurses `depth(of: view)` levels:
    /// callers with a bounded stack compare that depth with `StackBudget.maxDepth(stackSize:)`
    /// first (or use `plan` and `json(plan:pretty:)`, which place the view once). Throws
    /// `limitExceeded` when the text would pass `maximumOutputSize(forInputSize:)`.
    package func json(view: ArchiveView, pretty: Bool) throws(CodecError) -> [UInt8] {
        try render(view: view, placement: view == .readable ? defaultPlacement() : nil, pretty: pretty, sink: nil)
    }

    /// The archive as JSON text following `plan` (made with the same `view`).
    package func json(view: ArchiveView, pretty: Bool, plan: WritePlan) throws(CodecError) -> [UInt8] {
        try render(view: view, placement: plan.placement, pretty: pretty, sink: nil)
    }

    /// The archive as JSON text handed to `sink` in pieces of about a megabyte as it is
    /// written, so that memory does not grow with the document. The same contract as
    /// `json(view:pretty:)`, except that the size limit is found after part of the text
    /// has gone to the sink: a `limitExceeded` error means what it received is incomplete.
    package func writeJSON(view: ArchiveView, pretty: Bool, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        _ = try render(view: view, placement: view == .readable ? defaultPlacement() : nil, pretty: pretty, sink: sink)
    }

    func render(view: ArchiveView, placement: Placement?, pretty: Bool, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let limit = Self.maximumOutputSize(forInputSize: plist.bytes.count)
        var output = plist.withView { plistView -> JSONOutput in
            var out = JSONOutput(pretty: pretty, reserve: min(plist.bytes.count * 2, limit), sink: sink)
            out.limit = limit
            guard view == .readable, let placement else {
                var writer = PlistValueWriter(view: plistView, out: out)
                writer.write(plist.topObject)
                return writer.out
            }
            var writer = ReadableWriter(archive: self, view: plistView, placement: placement, out: out)
            writer.writeDocument()
            return writer.out
        }
        try output.refuseIfUnfinished(tooMuchJSON(limit: limit))
        return output.finish()
    }

    func tooMuchJSON(limit: Int) -> CodecError {
        CodecError(.limitExceeded, "the JSON would be larger than \(limit) bytes for a \(plist.bytes.count)-byte archive: it repeats shared values at every reference", limit: limit)
    }

    @inline(__always)
    static func itemList(_ lists: UInt64) -> Int { Int(truncatingIfNeeded: lists & 0xFFFF_FFFF) }

    @inline(__always)
    static func keyList(_ lists: UInt64) -> Int { Int(truncatingIfNeeded: lists >> 32) }

    /// Entry UID's plist reference.
    @inline(__always)
    func entryRef(_ uid: Int, _ view: BinaryPlistView) -> Int {
        view.childRef(view.header(of: objectsRef), uid)
    }
}
