/// What writing an archive's JSON takes, found before any writing: for the readable view,
/// where each body stands (`Placement`) and so the depth the writer will recurse to (callers
/// check it against their stack); when the conversion may use two threads, where to cut the
/// readable view so that each writes half.
public struct WritePlan: Sendable {
    /// The JSON nesting of the readable view (`Placement`), or the plist's nesting for the raw one.
    /// A plan made under a `depthLimit` (`Archive.plan`) may hold a bound instead, never more
    /// than that limit: exact wherever a caller refusing past the limit would refuse.
    public let depth: Int
    /// How many objects a nesting bound moved to the top-level `$table`.
    public var tableCount: Int { placement?.table.count ?? 0 }
    /// The readable view's placement (nil for the raw view).
    let placement: Placement?
    /// The reference at which the second writer takes over, if the view is cut.
    let cut: Int?
    /// The numbers written in typed wrappers (a placement says it for keyed archives).
    var numbers = NumberWrapping.nonFinite
    /// Data values with their readable accounts (a plain property list's; a placement says it
    /// for keyed archives): not when a nesting bound left them out.
    var accounts = true
    /// The document with its nested payloads decoded (`Archive.plan(…, nested:)`), written
    /// instead of the view alone.
    var nested: NestedExpansion?
}

extension KeyedArchive {
    /// The plan for writing `view`. For the readable view: `maxDepth` bounds its nesting
    /// (objects that would pass it go to `$table`; throws `depthBoundTooSmall` when even that
    /// cannot fit), `numbers` says which numbers are written in typed wrappers.
    ///
    /// With `parallelism` of width 2 or more, the compact readable view of an archive with at
    /// least twice `smallestPart` references and no `$table` is cut at its middle reference
    /// (counted from the reference counts: every reference is written once, unreachable
    /// objects aside); the second writer's job walks to the cut itself while the first
    /// writer starts.
    package func plan(view: ArchiveView, pretty: Bool, maxDepth: Int? = nil, numbers: NumberWrapping = .nonFinite, parallelism: Parallelism = .serial) throws(CodecError) -> WritePlan {
        guard view == .readable else { return WritePlan(depth: depth(of: view), placement: nil, cut: nil) }
        let placement = try plist.withView { (view) throws(CodecError) -> Placement in
            try Placement(archive: self, view: view, numbers: numbers, bound: maxDepth, parallelism: parallelism)
        }
        let references = referenceCounts.reduce(0) { $0 + Int($1) }
        guard parallelism.width >= 2, !pretty, placement.table.isEmpty, references >= 2 * parallelism.smallestPart else {
            return WritePlan(depth: placement.depth, placement: placement, cut: nil)
        }
        return WritePlan(depth: placement.depth, placement: placement, cut: references / 2)
    }

    /// `writeJSON(view:pretty:to:)` following `plan`: when it has a cut, two writers run as
    /// two jobs of `parallelism` (each recursing up to `plan.depth`, so `run` must give
    /// them stacks as large as the caller's). The first writes up to the cut into `sink`
    /// (from whichever thread runs job 0, so `sink` must accept calls from any thread); the
    /// second writes the rest into memory, handed to `sink` once the first is done. The text
    /// is the same as one writer's.
    package func writeJSON(view: ArchiveView, pretty: Bool, plan: WritePlan, parallelism: Parallelism, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(CodecError) {
        guard let cut = plan.cut, let placement = plan.placement, view == .readable, !pretty else {
            _ = try render(view: view, placement: plan.placement, pretty: pretty, sink: sink)
            return
        }
        _ = try renderSplit(at: cut, placement: placement, checkpoint: nil, parallelism: parallelism, sink: sink)
    }
}
