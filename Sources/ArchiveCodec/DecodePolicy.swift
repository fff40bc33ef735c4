/// Which decodes a thread may run, decided on the plan (`KeyedArchive.plan`) before anything
/// recursive starts: the one policy of the service and `archive-tool`.
///
/// Two limits, checked in this order:
/// 1. The stack's: the readable writer recurses once per level of the JSON, so a decode nests
///    no deeper than `StackBudget` admits on the stack it runs on. Refused first because its
///    remedy, a `maxDepth` bound (at most `suggestedMaxDepth`), also satisfies the second.
/// 2. Indentation's: each indented line is indented by its level, so indented output grows with
///    the square of the depth (a 400 KB chain 18,000 levels deep would indent to over a
///    gigabyte); up to `prettyDepthLimit` it stays within a few megabytes.
///
/// A front end words a refusal in its own terms (a query parameter, a command-line flag) from
/// the refusal's figures; the decision and the figures are made here.
public struct DecodePolicy: Sendable, Equatable {
    /// Deepest JSON a decode may write: `StackBudget.maxDepth(stackSize:)` of its thread's stack.
    public let depthLimit: Int

    /// Deepest JSON written indented (`pretty`), whatever the stack.
    public static let prettyDepthLimit = 1_000

    /// The nesting bound a refusal suggests: what the least tolerant common JSON readers accept
    /// (.NET's default is 64 levels; serde_json's 128, Swift Foundation's 512) and shallow enough
    /// that the `$table` it moves objects to stays readable.
    public static let suggestedMaxDepth = 64

    /// The policy for a thread with `stackSize` bytes of stack.
    public init(stackSize: Int) {
        depthLimit = StackBudget.maxDepth(stackSize: stackSize)
    }

    /// The policy with an explicit depth limit (`Int.max` to skip the stack check, as a
    /// diagnostic run that measures where the stack really runs out does).
    public init(depthLimit: Int) {
        self.depthLimit = depthLimit
    }

    /// The deepest nesting a decode may have: past it `refusal` refuses.
    public func nestingLimit(pretty: Bool) -> Int { pretty ? min(depthLimit, Self.prettyDepthLimit) : depthLimit }

    /// Why a decode whose JSON nests `depth` levels may not run, or nil if it may.
    public func refusal(depth: Int, pretty: Bool) -> Refusal? {
        if depth > depthLimit { return .tooDeep(depth: depth, limit: depthLimit) }
        if pretty && depth > Self.prettyDepthLimit { return .tooDeepToIndent(depth: depth, limit: Self.prettyDepthLimit) }
        return nil
    }

    /// A refused decode: how deep its JSON nests and the limit it passes.
    public enum Refusal: Sendable, Equatable {
        /// Deeper than the stack admits. A bound of `suggestedMaxDepth` (never more than the
        /// limit) decodes it on this stack, or a larger stack does.
        case tooDeep(depth: Int, limit: Int)
        /// Too deep to indent; compact output has no such limit.
        case tooDeepToIndent(depth: Int, limit: Int)

        /// The bound to suggest: `suggestedMaxDepth`, or the limit when the stack admits less.
        public var suggestedMaxDepth: Int {
            switch self {
            case .tooDeep(_, let limit), .tooDeepToIndent(_, let limit): min(limit, DecodePolicy.suggestedMaxDepth)
            }
        }
    }
}
