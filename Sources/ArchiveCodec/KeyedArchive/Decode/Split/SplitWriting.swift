/// The readable view written by two writers at once (`WritePlan.cut`): the first from the
/// start up to a reference, the second from there (`ResumeWalk`, `ReadableWriterResume`).
extension KeyedArchive {
    /// The most text the second writer holds in memory while the first writes: its half of
    /// an ordinary archive's JSON fits easily; a document that repeats shared values enough
    /// to pass it (up to `maximumOutputSize`) has its second half written again, streamed,
    /// once the first is out, so memory stays bounded as with one writer.
    static func secondHalfBuffer(forInputSize inputSize: Int) -> Int {
        max(16 << 20, 2 * inputSize)
    }

    /// The readable view written by two writers meeting at reference `cut`, where the first
    /// stands as `checkpoint` says (found by the second writer's job when nil). If the
    /// document has fewer references than that, the first writer writes it all.
    /// `buffering`: tests' override of `secondHalfBuffer`.
    func renderSplit(at cut: Int, placement: Placement, checkpoint known: ResumeWalk.Checkpoint?, parallelism: Parallelism, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?, buffering: Int? = nil)
        throws(CodecError) -> [UInt8]
    {
        let limit = Self.maximumOutputSize(forInputSize: plist.bytes.count)
        let buffered = min(limit, buffering ?? Self.secondHalfBuffer(forInputSize: plist.bytes.count))
        let parts = plist.withView { view in
            parallelism.map(Cuts(units: 2)) { job -> (out: JSONOutput, checkpoint: ResumeWalk.Checkpoint?) in
                if job.lowerBound == 0 {
                    var out = JSONOutput(pretty: false, reserve: min(plist.bytes.count, limit), sink: sink)
                    out.limit = limit
                    var writer = ReadableWriter(archive: self, view: view, placement: placement, out: out)
                    writer.stopAt = cut
                    writer.writeDocument()
                    return (writer.out, nil)
                }
                var out = JSONOutput(pretty: false, reserve: min(plist.bytes.count / 2, buffered))
                guard let checkpoint = known ?? ResumeWalk(archive: self, view: view, placement: placement).checkpoint(at: cut) else {
                    return (out, nil)
                }
                out.limit = buffered
                out.continueAfterValue()
                let r = writingRest(from: checkpoint, placement: placement, view: view, into: out)
                return (r, checkpoint)
            }
        }
        var first = parts[0].out
        guard let checkpoint = parts[1].checkpoint else {
            // No reference numbered `cut`: the first writer wrote the whole document.
            try first.refuseIfUnfinished(tooMuchJSON(limit: limit))
            return first.finish()
        }
        // The first writer reaches the cut unless it passed the limit (or the deadline) before it.
        guard first.stoppedAt != nil else {
            try first.refuseIfUnfinished(tooMuchJSON(limit: limit))
            throw tooMuchJSON(limit: limit)
        }
        let firstCount = first.textCount
        var second = parts[1].out
        if second.isOverLimit {
            return try streamSecondHalf(after: &first, from: checkpoint, placement: placement, limit: limit, sink: sink)
        }
        return try second.finish { (rest) throws(CodecError) -> [UInt8] in
            // The second part opens with a comma; it belongs there only if the first part
            // stopped where a value would have needed one.
            let skip = rest.first == UInt8(ascii: ",") && !first.commaAtStop ? 1 : 0
            guard firstCount + rest.count - skip <= limit else { throw tooMuchJSON(limit: limit) }
            var text = first.finish()
            guard let sink else {
                text += rest[skip...]
                return text
            }
            UnsafeBufferPointer(rebasing: rest[skip...]).forEachPiece(of: JSONOutput.drainSize, sink)
            return []
        }
    }

    /// The second half written after the first, straight to `sink` (see `secondHalfBuffer`).
    private func streamSecondHalf(after first: inout JSONOutput, from checkpoint: ResumeWalk.Checkpoint, placement: Placement, limit: Int, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?)
        throws(CodecError) -> [UInt8]
    {
        let firstCount = first.textCount
        var text = first.finish()
        var second = plist.withView { view -> JSONOutput in
            var out = JSONOutput(pretty: false, sink: sink)
            out.limit = limit - firstCount
            if first.commaAtStop { out.continueAfterValue() }
            return writingRest(from: checkpoint, placement: placement, view: view, into: out)
        }
        try second.refuseIfUnfinished(tooMuchJSON(limit: limit))
        text += second.finish()
        return text
    }

    /// The document from `checkpoint` to its end, written into `out`.
    private func writingRest(from checkpoint: ResumeWalk.Checkpoint, placement: Placement, view: BinaryPlistView, into out: JSONOutput) -> JSONOutput {
        var writer = ReadableWriter(archive: self, view: view, placement: placement, out: out, emitted: checkpoint.emitted)
        writer.resume(from: checkpoint)
        return writer.out
    }
}
