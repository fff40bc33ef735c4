/// Which numbers the readable view writes in typed wrappers (`{"$integer": "…"}`,
/// `{"$real": "…"}`) instead of bare, so that JSON tools that hold numbers their own way give
/// them back unchanged. The one place that decides it: the writers and every depth pass ask
/// here, so a wrapper's extra level is always counted where it is written.
public enum NumberWrapping: Sendable, Equatable {
    /// Only what JSON numbers cannot hold: NaN and the infinities (always wrapped).
    case nonFinite
    /// Also integers beyond ±(2^53 − 1), which readers that keep every number as a double
    /// round (`exactIntegers`).
    case integers
    /// Also every real without a fraction (`1.0`, `-0.0`, `9007199254740992.0`, `1e300`), which
    /// jq, node's `JSON.stringify` and many libraries write back as integers (`1`, `0`, `-0`):
    /// `exactNumbers`, whose output keeps its meaning through them.
    case all

    /// `exactNumbers` includes `exactIntegers`.
    public init(exactIntegers: Bool, exactNumbers: Bool = false) {
        self = exactNumbers ? .all : exactIntegers ? .integers : .nonFinite
    }

    /// The smallest integer magnitude a double cannot hold next to its neighbours: 2^53.
    static let exactIntegerBound: UInt64 = 1 << 53

    /// Whether `value` is written `{"$integer": "…"}`.
    @inline(__always)
    func wraps(_ value: PlistInteger) -> Bool {
        guard self != .nonFinite else { return false }
        if value.isUnsigned { return value.bits >= Self.exactIntegerBound }
        return Int64(bitPattern: value.bits).magnitude >= Self.exactIntegerBound
    }

    /// Whether `value` is written `{"$real": "…"}`.
    @inline(__always)
    func wraps(_ value: Double) -> Bool {
        guard value.isFinite else { return true }
        return self == .all && value.rounded(.towardZero) == value
    }

    /// Whether a time (seconds since 2001, `JSONOutput.mappedTime`) is written as a wrapped
    /// real: when it has no exact text and `wraps` it.
    func wrapsTime(_ seconds: Double) -> Bool {
        guard wraps(seconds) else { return false }
        return !seconds.isFinite || DateText.readable(seconds) == nil
    }
}
