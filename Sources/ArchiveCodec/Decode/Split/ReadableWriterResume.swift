/// Writing the readable view in two parts at once: one writer writes the document up to a
/// reference chosen in advance and stops (`stopAt`); another, starting from what
/// `ResumeWalk` saw there (`ResumeWalk.Checkpoint`), writes the rest. The two texts joined
/// are the document one writer would have written (`KeyedArchive.writeJSON`).
extension ReadableWriter {
    /// Writes the document from the checkpoint's reference to its end: that reference,
    /// then the rest of each expansion open there, innermost first, then the rest of
    /// `$top`. Each expansion's remaining children recurse as usual; the expansions
    /// themselves are finished one after another, so the recursion is never deeper than the
    /// single writer's.
    mutating func resume(from checkpoint: ResumeWalk.Checkpoint) {
        body = checkpoint.frames.last?.body ?? Placement.topBody
        writeReference(checkpoint.uid, keyContext: checkpoint.keyContext)
        for frame in checkpoint.frames.reversed() {
            body = frame.body
            finish(frame)
        }
        body = Placement.topBody
        if !placement.envelope { return }
        writeTopEntries(view.header(of: archive.topRef), from: checkpoint.topIndex + 1)
        out.closeObject()
        out.closeObject()
    }

    /// The children after the first `frame.position` ones, then the closing brackets.
    private mutating func finish(_ frame: ResumeWalk.Frame) {
        let done = frame.position
        guard frame.uid >= 0 else {
            // An inline plist container: always inside an `$inline` wrapper.
            writeInlineMembers(frame.list, from: done)
            closeInlineContainer(frame.list)
            return
        }
        let uid = frame.uid
        let form = archive.forms[uid]
        let info = archive.classOf[uid] >= 0 ? archive.classInfos[Int(archive.classOf[uid])] : nil
        let carriesID = carriesID[uid]
        let header = view.header(at: Int(archive.entryOffsets[uid]))
        switch frame.walk {
        case .uidList where form == .stringKeyDictionary:
            writeStringKeyEntries(view.header(of: KeyedArchive.keyList(archive.lists[uid])), frame.list, from: done)
            out.closeObject()
            if !isBare(info, defaultClass: FoundationClasses.defaultDictionaryClass, carriesID: carriesID) { out.closeObject() }
        case .uidList:
            writeUIDItems(frame.list, from: done)
            out.closeArray()
            if !(form == .array && isBare(info, defaultClass: FoundationClasses.defaultArrayClass, carriesID: carriesID)) { out.closeObject() }
        case .pairLists:
            // Children alternate key, value; a pair is its own array.
            let keys = frame.list
            let values = frame.second
            if done % 2 == 1 {
                writeReference(view.uidValue(of: view.childRef(values, done / 2)), keyContext: false)
            }
            out.closeArray()
            writePairs(keys, values, from: (done + 1) / 2)
            out.closeArray()
            out.closeObject()
        case .ordered:
            writeOrderedItems(Self.orderedSetValues(view, header), from: done)
            out.closeArray()
            out.closeObject()
        case .objectKeys:
            writeGenericMembers(header, from: done)
            out.closeObject()
        case .inline:
            // A plain dictionary or array stored as an object: inside `$plist`.
            writeInlineMembers(frame.list, from: done)
            closeInlineContainer(frame.list)
        }
    }

    private mutating func closeInlineContainer(_ header: PlistObjectHeader) {
        if header.kind == .array { out.closeArray() } else { out.closeObject() }
        out.closeObject()
    }
}
