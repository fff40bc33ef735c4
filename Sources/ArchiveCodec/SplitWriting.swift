/// What writing an archive's JSON takes, found before any writing: the depth the writer
/// will recurse to (callers check it against their stack), and, when the conversion may use
/// two threads, where to cut the readable view so that each writes half.
public struct WritePlan: Sendable {
    /// The depth, or an upper bound on it (`isBound`) when the probe was left to run
    /// beside the first writer.
    public let depth: Int
    public let isBound: Bool
    /// The reference at which the second writer takes over, if the view is cut.
    let cut: Int?
    /// Where the first writer stands at the cut; nil when the second writer's job finds it.
    let checkpoint: DepthProbe.Checkpoint?
}

extension KeyedArchive {
    /// The plan for writing `view`. With `parallelism` of width 2 or more, the compact
    /// readable view of an archive with at least twice `smallestPart` references is cut at
    /// its middle reference (counted from the reference counts: every reference is written
    /// once, unreachable objects aside).
    ///
    /// `depthLimit`: the deepest the caller's stack allows. When the archive provably
    /// stays within it (its containers form a tree, so no level of the writer expands the
    /// same container twice: the depth is at most the container count), a cut view skips
    /// the probe here: the second writer's job walks to the cut itself while the first
    /// writer starts.
    public func plan(view: ArchiveView, pretty: Bool, parallelism: Parallelism = .serial, depthLimit: Int? = nil) -> WritePlan {
        guard view == .readable else { return WritePlan(depth: depth(of: view), isBound: false, cut: nil, checkpoint: nil) }
        let references = referenceCounts.reduce(0) { $0 + Int($1) }
        guard parallelism.width >= 2, !pretty, references >= 2 * parallelism.smallestPart else {
            return WritePlan(depth: depth(of: view), isBound: false, cut: nil, checkpoint: nil)
        }
        let cut = references / 2
        if let depthLimit, plist.containersFormTree, plist.containerCount <= depthLimit {
            return WritePlan(depth: plist.containerCount, isBound: true, cut: cut, checkpoint: nil)
        }
        let (depth, checkpoint) = plist.withView { DepthProbe(archive: self, view: $0).run(checkpointAt: cut) }
        return WritePlan(depth: depth, isBound: false, cut: cut, checkpoint: checkpoint)
    }

    /// `writeJSON(view:pretty:to:)` following `plan`: when it has a cut, two writers run as
    /// two jobs of `parallelism` (each recursing up to `plan.depth`, so `run` must give
    /// them stacks as large as the caller's). The first writes up to the cut into `sink`
    /// (from whichever thread runs job 0, so `sink` must accept calls from any thread); the
    /// second writes the rest into memory, handed to `sink` once the first is done. The text
    /// is the same as one writer's.
    public func writeJSON(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        guard let cut = plan.cut, view == .readable, !pretty else {
            _ = try render(view: view, pretty: pretty, sink: sink)
            return
        }
        _ = try renderSplit(at: cut, checkpoint: plan.checkpoint, parallelism: parallelism, sink: sink)
    }

    /// The most text the second writer holds in memory while the first writes: its half of
    /// an ordinary archive's JSON fits easily; a document that repeats shared values enough
    /// to pass it (up to `maximumJSONSize`) has its second half written again, streamed,
    /// once the first is out, so memory stays bounded as with one writer.
    static func secondHalfBuffer(forInputSize inputSize: Int) -> Int {
        max(16 << 20, 2 * inputSize)
    }

    /// The readable view written by two writers meeting at reference `cut`, where the first
    /// stands as `checkpoint` says (found by the second writer's job when nil). If the
    /// document has fewer references than that, the first writer writes it all.
    /// `buffering`: tests' override of `secondHalfBuffer`.
    func renderSplit(at cut: Int, checkpoint known: DepthProbe.Checkpoint?, parallelism: Parallelism, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?, buffering: Int? = nil) throws(CodecError) -> [UInt8] {
        let limit = Self.maximumJSONSize(forInputSize: plist.bytes.count)
        let buffered = min(limit, buffering ?? Self.secondHalfBuffer(forInputSize: plist.bytes.count))
        let parts = plist.withView { view in
            parallelism.map([0..<1, 1..<2]) { job -> (out: JSONOutput, checkpoint: DepthProbe.Checkpoint?) in
                if job.lowerBound == 0 {
                    var out = JSONOutput(pretty: false, reserve: min(plist.bytes.count, limit), sink: sink)
                    out.limit = limit
                    var writer = ReadableWriter(archive: self, view: view, out: out)
                    writer.stopAt = cut
                    writer.writeDocument()
                    return (writer.out, nil)
                }
                var out = JSONOutput(pretty: false, reserve: min(plist.bytes.count / 2, buffered))
                guard let checkpoint = known ?? DepthProbe(archive: self, view: view).run(checkpointAt: cut, endingThere: true).checkpoint else {
                    return (out, nil)
                }
                out.limit = buffered
                out.continueAfterValue()
                let r = writingRest(from: checkpoint, view: view, into: out)
                return (r, checkpoint)
            }
        }
        var first = parts[0].out
        guard let checkpoint = parts[1].checkpoint else {
            // No reference numbered `cut`: the first writer wrote the whole document.
            guard !first.isOverLimit else { throw tooMuchJSON(limit: limit) }
            return first.finish()
        }
        // The first writer reaches the cut unless it passed the limit before it.
        guard first.stoppedAt != nil else { throw tooMuchJSON(limit: limit) }
        let firstCount = first.textCount
        var second = parts[1].out
        if second.isOverLimit {
            return try streamSecondHalf(after: &first, from: checkpoint, limit: limit, sink: sink)
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
            var start = skip
            while start < rest.count {
                let end = min(start + JSONOutput.drainSize, rest.count)
                sink(UnsafeBufferPointer(rebasing: rest[start..<end]))
                start = end
            }
            return []
        }
    }

    /// The second half written after the first, straight to `sink` (see `secondHalfBuffer`).
    private func streamSecondHalf(after first: inout JSONOutput, from checkpoint: DepthProbe.Checkpoint, limit: Int, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let firstCount = first.textCount
        var text = first.finish()
        var second = plist.withView { view -> JSONOutput in
            var out = JSONOutput(pretty: false, sink: sink)
            out.limit = limit - firstCount
            if first.commaAtStop { out.continueAfterValue() }
            return writingRest(from: checkpoint, view: view, into: out)
        }
        guard !second.isOverLimit else { throw tooMuchJSON(limit: limit) }
        text += second.finish()
        return text
    }

    /// The document from `checkpoint` to its end, written into `out`.
    private func writingRest(from checkpoint: DepthProbe.Checkpoint, view: BinaryPlistView, into out: JSONOutput) -> JSONOutput {
        var writer = ReadableWriter(archive: self, view: view, out: out, emitted: checkpoint.emitted)
        writer.resume(from: checkpoint)
        return writer.out
    }
}
