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
        writeChildren(shape.topChildren(), from: checkpoint.topIndex + 1)
        out.closeObject()
        out.closeObject()
    }

    /// The end of the child the first half stopped at, the children after it, then the
    /// brackets the expansion opened.
    private mutating func finish(_ frame: ResumeWalk.Frame) {
        let done = frame.position
        endChild(of: frame.children, at: done - 1)
        writeChildren(frame.children, from: done)
        guard frame.uid >= 0 else {
            // An inline plist container: always inside an `$inline` wrapper.
            if frame.children.isDictionary { out.closeObject() } else { out.closeArray() }
            out.closeObject()
            return
        }
        close(shape.layout(of: frame.uid, carriesID: carriesID[frame.uid]).closing)
    }
}
