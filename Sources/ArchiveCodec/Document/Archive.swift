/// Any document the codec reads: a typedstream (told by its header), an NSKeyedArchiver archive
/// (a property list whose root dictionary has `$archiver`, `$top` or `$objects`; refused when
/// broken, never read as something else) or a plain property list. Both front ends decode
/// through it; each format keeps its own mapping and answers every step (`DocumentFormat`:
/// `KeyedArchive`, `PlainPropertyList`, `TypedStreamDocument`).
public struct Archive: Sendable {
    /// The document, as its format (`DocumentFormat`): every step below dispatches to it once.
    let document: any DocumentFormat
    /// The size of the bytes read, which bounds the size of the JSON (`KeyedArchive.maximumOutputSize`).
    public let inputSize: Int

    /// `parallelism`: how the independent parts of validation and classification may share
    /// threads (the result is the same for every choice). For the raw view (`view: .raw`) the
    /// property list is taken as it is, archive or not: the raw view of an archive whose graph
    /// is broken still shows it (`CodecError.Remedy.rawView`).
    ///
    /// `salvaging`: a damaged typedstream is read as far as it goes, a damaged binary property
    /// list with each object it could not read marked (`BinaryPlistSalvage`), a keyed archive
    /// whose graph (or binary property list) is broken with each entry or reference it could
    /// not read marked in the readable view (`KeyedArchiveSalvage`), what could not be read
    /// marked `$broken` in place (docs/mapping.md, "Salvage"; `breaks` counts the marks); an
    /// XML property list's own damage is refused as without it. A whole file reads exactly
    /// as without it, through the same steps: salvage starts only once a strict read refused.
    public init(parsing bytes: [UInt8], view: ArchiveView = .readable, parallelism: Parallelism = .serial, salvaging: Bool = false) throws(CodecError) {
        inputSize = bytes.count
        if TypedStreamDocument.starts(bytes) {
            document = try TypedStreamDocument(parsing: bytes, salvaging: salvaging)
            return
        }
        let plist: BinaryPlist
        let format: PlistFormat
        do {
            (plist, format) = try KeyedArchive.readPropertyList(bytes, parallelism: parallelism)
        } catch {
            // Salvage runs only once the strict read has refused: a whole file pays nothing.
            guard salvaging, error.kind == .malformedPlist else { throw error }
            if bytes.starts(with: "bplist".utf8) {
                document = try Self.salvagedPropertyList(bytes, view: view, parallelism: parallelism, refusal: error)
            } else if KeyedArchive.looksLikeXML(bytes) {
                document = try Self.salvagedXMLPropertyList(bytes, view: view, parallelism: parallelism, refusal: error)
            } else {
                throw error
            }
            return
        }
        if view == .readable, Self.isKeyedArchive(plist) {
            guard salvaging else {
                document = try KeyedArchive(plist: plist, sourceFormat: format, parallelism: parallelism)
                return
            }
            do {
                document = try KeyedArchive(plist: plist, sourceFormat: format, parallelism: parallelism)
            } catch {
                // A graph the strict read refuses; any other refusal (a limit, the deadline) stands.
                guard error.kind == .invalidArchive else { throw error }
                document = try KeyedArchiveSalvage.salvage(plist, sourceFormat: format, parallelism: parallelism, refusal: error)
            }
        } else {
            document = PlainPropertyList(plist: plist, sourceFormat: format)
        }
    }

    /// A damaged binary property list read with its damaged objects marked
    /// (`BinaryPlistSalvage`): as a plain property list, or in the readable view as the keyed
    /// archive it holds, its marks placed in the archive's graph (`KeyedArchiveSalvage`);
    /// `refusal` (the strict read's) when nothing could be marked, or in the readable view when
    /// its top is marked (then nothing tells an archive from a plain list, and nothing but the
    /// mark would be read) or the archive's marks cannot be placed.
    private static func salvagedPropertyList(_ bytes: [UInt8], view: ArchiveView, parallelism: Parallelism, refusal: CodecError) throws(CodecError) -> any DocumentFormat {
        let (plist, marks) = try BinaryPlistSalvage.repair(bytes, parallelism: parallelism)
        guard !marks.isEmpty, view == .raw || marks[plist.topObject] == nil else { throw refusal }
        guard view == .readable, isKeyedArchive(plist) else { return PlainPropertyList(plist: plist, sourceFormat: .binary, marks: marks) }
        let areaEnd = try BinaryPlist.readTrailer(bytes).offsetTableStart
        return try KeyedArchiveSalvage.salvage(plist, sourceFormat: .binary, plistMarks: marks, areaEnd: areaEnd, parallelism: parallelism, refusal: refusal)
    }

    /// The keys only an archive's root has. NSKeyedUnarchiver needs all of `$archiver`,
    /// `$top` and `$objects`; one of them is enough to mean an archive was meant, so a broken
    /// archive is refused as one rather than shown as a plain dictionary.
    /// A damaged XML property list read up to its break (`XMLPlistReader.salvage`), the break
    /// marked where it stands. An archive in XML whose text breaks is refused as without
    /// salvage: its graph's marks are placed in a binary file's terms (`KeyedArchiveSalvage`).
    private static func salvagedXMLPropertyList(_ bytes: [UInt8], view: ArchiveView, parallelism: Parallelism, refusal: CodecError) throws(CodecError) -> any DocumentFormat {
        let plist: BinaryPlist
        let broken: (node: UInt32, mark: BinaryPlistSalvage.Mark)
        do throws(CodecError) {
            let (tree, root, found) = try XMLPlistReader.salvage(bytes)
            guard let found else { throw refusal }
            broken = found
            plist = try BinaryPlist(bytes: BinaryPlistWriter.write(tree, root: root), parallelism: parallelism)
        } catch {
            // A limit or the deadline stands; anything else is the file's, as the strict read said.
            guard error.kind == .malformedPlist || error.kind == .invalidArchive else { throw error }
            throw refusal
        }
        guard view == .raw || !isKeyedArchive(plist) else { throw refusal }
        return PlainPropertyList(plist: plist, sourceFormat: .xml, marks: [Int(broken.node): broken.mark])
    }

    static func isKeyedArchive(_ plist: BinaryPlist) -> Bool {
        plist.withView { view in
            let root = view.header(of: plist.topObject)
            guard root.kind == .dict else { return false }
            return (0..<root.count).contains { index in
                let key = view.childRef(root, index)
                return view.isString(key, equalTo: MappingKeys.archiver) || view.isString(key, equalTo: MappingKeys.top) || view.isString(key, equalTo: ArchiverKeys.objects)
            }
        }
    }

    /// How many places a salvaged read marked `$broken` (0: the document was read whole).
    public var breaks: Int {
        (document as? TypedStreamDocument)?.breaks ?? (document as? PlainPropertyList)?.marks?.count ?? (document as? SalvagedKeyedArchive)?.breaks ?? 0
    }

    /// The property list format read (a typedstream is neither: binary).
    public var sourceFormat: PlistFormat { document.sourceFormat }

    /// The keyed archive this document is, if it is one.
    package var keyedArchive: KeyedArchive? { document as? KeyedArchive }

    /// Whether the document is a typedstream.
    public var isTypedStream: Bool { document is TypedStreamDocument }

    /// What the document is, in words: "a keyed archive".
    public var kindName: String { type(of: document).kindName }

    /// Depth of `view`'s JSON with the default options (`DocumentFormat.depth(of:)`).
    public func depth(of view: ArchiveView) -> Int { document.depth(of: view) }

    /// What writing `view` takes (`KeyedArchive.plan`). A plain property list has nothing to
    /// move: a `maxDepth` below its nesting is refused with the bound it needs.
    ///
    /// `nested`: the readable view with its nested payloads decoded in place
    /// (`NestedExpansion`), planned under that policy: the plan's depth is the whole
    /// document's, checked by the caller against the same policy before writing. `hold` is
    /// asked before the plan holds more text or reads a payload (`NestedExpansion.init`).
    ///
    /// `depthLimit`: the deepest nesting the caller lets through (`DecodePolicy.nestingLimit`;
    /// a nested expansion takes its policy's). The depth may then be a bound where a format
    /// finds one without a walk (`DocumentFormat.plan(…depthLimit:)`), never more than the
    /// limit, and exact wherever it passes it; without a limit it is exact.
    public func plan(
        view: ArchiveView, pretty: Bool, maxDepth: Int? = nil, numbers: NumberWrapping = .nonFinite, parallelism: Parallelism = .serial, nested policy: DecodePolicy? = nil,
        depthLimit: Int? = nil, hold: (_ text: Int, _ reading: [UInt8]?) -> Bool = { _, _ in true }
    ) throws(CodecError) -> WritePlan {
        let plan = try measuredPlan(
            view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: parallelism, nested: policy,
            depthLimit: depthLimit, hold: hold)
        // A depth pass that met the deadline ended early and its depth means nothing (the
        // raw view's measure then says Int.max): the deadline is the answer, not a refusal.
        try ConversionDeadline.check()
        return plan
    }

    private func measuredPlan(
        view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, parallelism: Parallelism, nested policy: DecodePolicy?, depthLimit: Int?,
        hold: (_ text: Int, _ reading: [UInt8]?) -> Bool
    ) throws(CodecError) -> WritePlan {
        if let policy, view == .readable {
            let expansion = try NestedExpansion(
                archive: self, inputSize: inputSize, pretty: pretty, maxDepth: maxDepth, numbers: numbers, policy: policy, parallelism: parallelism,
                depthLimit: depthLimit, hold: hold)
            var plan = WritePlan(depth: expansion.depth, placement: nil, cut: nil, numbers: numbers)
            plan.nested = expansion
            return plan
        }
        guard let depthLimit else { return try document.plan(view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: parallelism) }
        return try document.plan(view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: parallelism, depthLimit: depthLimit)
    }

    /// Writes `view` following `plan` into `sink` (`KeyedArchive.writeJSON(view:pretty:plan:parallelism:to:)`).
    public func writeJSON(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        if let expansion = plan.nested { return expansion.write(to: sink) }
        try document.write(view: view, pretty: pretty, plan: plan, parallelism: parallelism, to: sink)
    }

    /// `view` as JSON text with the default options.
    public func json(view: ArchiveView, pretty: Bool) throws(CodecError) -> [UInt8] {
        try document.json(view: view, pretty: pretty)
    }

    /// Where two documents first differ (nil: equivalent): two archives as
    /// `KeyedArchive.difference` says, two plain property lists value for value (dictionaries
    /// as sets of keys), two typedstreams as `TypedStreamEquivalence` says; never documents of
    /// different kinds. Data that are nested payloads are equal when their documents are
    /// (`NestedPayload.equivalent`).
    ///
    /// The text names the place in this document's readable JSON and both values there
    /// (`DocumentDifference`: `.games.$array[3].name: "Bears" ≠ "Lions"`). With
    /// `plistDatesToWholeSeconds`, plist-level dates need only agree on the whole second
    /// (all an XML property list holds).
    public func difference(from other: Archive, plistDatesToWholeSeconds: Bool = false) -> String? {
        documentDifference(from: other, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: 0)?.description
    }

    /// The first difference as a place and a detail; `payloadNesting`: how many payloads the
    /// two documents are nested in.
    func documentDifference(from other: Archive, plistDatesToWholeSeconds: Bool = false, payloadNesting: Int) -> DocumentDifference? {
        document.difference(fromAny: other.document, plistDatesToWholeSeconds: plistDatesToWholeSeconds, payloadNesting: payloadNesting)
    }
}
