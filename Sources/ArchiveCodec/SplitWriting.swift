/// What writing an archive's JSON takes, found by one pass before any writing: the depth
/// the writer will recurse to (callers check it against their stack), and, when the
/// conversion may use two threads, where to cut the readable view so that each writes half.
public struct WritePlan: Sendable {
    public let depth: Int
    let checkpoint: DepthProbe.Checkpoint?
}

extension KeyedArchive {
    /// The plan for writing `view`. With `parallelism` of width 2 or more, the compact
    /// readable view of an archive with at least twice `smallestPart` references is cut at
    /// its middle reference (counted from the reference counts: every reference is written
    /// once, unreachable objects aside).
    public func plan(view: ArchiveView, pretty: Bool, parallelism: Parallelism = .serial) -> WritePlan {
        guard view == .readable else { return WritePlan(depth: depth(of: view), checkpoint: nil) }
        let references = referenceCounts.reduce(0) { $0 + Int($1) }
        let cut = parallelism.width >= 2 && !pretty && references >= 2 * parallelism.smallestPart ? references / 2 : nil
        let (depth, checkpoint) = plist.withView { DepthProbe(archive: self, view: $0).run(checkpointAt: cut) }
        return WritePlan(depth: depth, checkpoint: checkpoint)
    }

    /// `writeJSON(view:pretty:to:)` following `plan`: when it has a cut, two writers run as
    /// two jobs of `parallelism` (each recursing up to `plan.depth`, so `run` must give
    /// them stacks as large as the caller's). The first writes up to the cut into `sink`
    /// (from job 0's thread); the second writes the rest into memory, handed to `sink` once
    /// the first is done. The text is the same as one writer's.
    public func writeJSON(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        guard let checkpoint = plan.checkpoint, view == .readable, !pretty else {
            _ = try render(view: view, pretty: pretty, sink: sink)
            return
        }
        _ = try renderSplit(at: checkpoint, parallelism: parallelism, sink: sink)
    }

    /// The readable view written by two writers meeting at `checkpoint`.
    func renderSplit(at checkpoint: DepthProbe.Checkpoint, parallelism: Parallelism, sink: ((UnsafeBufferPointer<UInt8>) -> Void)?) throws(CodecError) -> [UInt8] {
        let limit = Self.maximumJSONSize(forInputSize: plist.bytes.count)
        var parts = plist.withView { view in
            parallelism.map([0..<1, 1..<2]) { job -> JSONOutput in
                if job.lowerBound == 0 {
                    var out = JSONOutput(pretty: false, reserve: min(plist.bytes.count, limit), sink: sink)
                    out.limit = limit
                    var writer = ReadableWriter(archive: self, view: view, out: out)
                    writer.stopAt = checkpoint.reference
                    writer.writeDocument()
                    return writer.out
                }
                var out = JSONOutput(pretty: false, reserve: min(plist.bytes.count / 2, limit))
                out.limit = limit
                out.continueAfterValue()
                var writer = ReadableWriter(archive: self, view: view, out: out, emitted: checkpoint.emitted)
                writer.resume(from: checkpoint)
                return writer.out
            }
        }
        // The first writer reaches the cut unless it passed the limit before it.
        guard parts[0].stoppedAt != nil, !parts[1].isOverLimit else { throw tooMuchJSON(limit: limit) }
        let firstCount = parts[0].textCount
        let rest = parts[1].finish()
        // The second part opens with a comma; it belongs there only if the first part
        // stopped where a value would have needed one.
        let skip = rest.first == UInt8(ascii: ",") && !parts[0].commaAtStop ? 1 : 0
        guard firstCount + rest.count - skip <= limit else { throw tooMuchJSON(limit: limit) }
        var text = parts[0].finish()
        guard let sink else {
            text += rest[skip...]
            return text
        }
        rest.withUnsafeBufferPointer { buffer in
            var start = skip
            while start < buffer.count {
                let end = min(start + JSONOutput.drainSize, buffer.count)
                sink(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
        return []
    }
}
