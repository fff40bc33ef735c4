/// Follows `TypedStreamJSONWriter`'s walk without writing, to find where in the document a
/// value of the stream stands (`DocumentPath`, from the root: `.$typedstream[0]["@"].$runs[1]`).
///
/// `targets` are the value and the values that hold it, outermost first: the `@` value where
/// each enclosing object first occurs and each enclosing struct or array. A readable leaf
/// form (a string, a number, data) is written whole at its object's `@` value and its own
/// values are never walked: the deepest target the walk reaches names the place. A target
/// that writes nothing of its own (an array's count, a run's length) names the innermost
/// container open around it.
struct TypedStreamPathSink: TypedStreamJSONSink {
    /// An open container: an object and the key of the member being written, or an array and
    /// how many elements it holds so far.
    private enum Frame {
        case object(String?)
        case array(Int)
    }

    private var frames: [Frame] = []
    /// Each target's position in `targets`.
    private let depthOf: [Int: Int]
    private let deepest: Int
    /// The target whose place is the next value written.
    private var pending: Int?
    /// The deepest target reached and its place.
    private(set) var found: (depth: Int, path: DocumentPath)?

    init(targets: [Int]) {
        depthOf = Dictionary(targets.enumerated().map { ($1, $0) }, uniquingKeysWith: max)
        deepest = targets.count - 1
    }

    static var followsNestingOnly: Bool { true }

    mutating func isStopped() -> Bool { found?.depth == deepest }

    mutating func willWrite(value index: Int) {
        if let depth = depthOf[index], depth > (found?.depth ?? -1) { pending = depth }
    }

    mutating func didWrite(value index: Int) {
        guard let depth = pending, depthOf[index] == depth else { return }
        found = (depth, path(next: false))
        pending = nil
    }

    /// The place of the next value (`next`), or of the innermost open container.
    private func path(next: Bool) -> DocumentPath {
        var path = DocumentPath()
        for (position, frame) in frames.enumerated() where next || position < frames.count - 1 {
            switch frame {
            case .object(let key?): path.append(.member(key))
            case .object(nil): break
            case .array(let count): path.append(.index(count))
            }
        }
        return path
    }

    /// A value begins: the pending target's place.
    private mutating func beginValue() {
        guard let depth = pending else { return }
        found = (depth, path(next: true))
        pending = nil
    }

    /// A value ends: its container moves on.
    private mutating func endValue() {
        guard let last = frames.indices.last else { return }
        switch frames[last] {
        case .object: frames[last] = .object(nil)
        case .array(let count): frames[last] = .array(count + 1)
        }
    }

    private mutating func scalar() {
        beginValue()
        endValue()
    }

    private mutating func setKey(_ key: String) {
        if let last = frames.indices.last { frames[last] = .object(key) }
    }

    mutating func openObject() {
        beginValue()
        frames.append(.object(nil))
    }

    mutating func closeObject() {
        frames.removeLast()
        endValue()
    }

    mutating func openArray() {
        beginValue()
        frames.append(.array(0))
    }

    mutating func closeArray() {
        frames.removeLast()
        endValue()
    }

    mutating func key(_ literal: StaticString) { setKey(String(describing: literal)) }
    mutating func groupKey(_ string: Int, of stream: TypedStream) { setKey(String(decoding: stream.sharedString(string), as: UTF8.self)) }

    /// A dictionary's key: a key that is a target names its member.
    mutating func dataKey(_ bytes: ArraySlice<UInt8>) {
        guard case .member(let key) = DocumentPath.dataKey(String(decoding: bytes, as: UTF8.self)) else { return }
        setKey(key)
        if let depth = pending {
            found = (depth, path(next: true))
            pending = nil
        }
    }

    mutating func null() { scalar() }
    mutating func bool(_ value: Bool) { scalar() }
    mutating func integer(_ value: Int64) { scalar() }
    mutating func unsigned(_ value: UInt64) { scalar() }
    mutating func mappingInteger(_ value: Int64) { scalar() }
    mutating func real(_ value: Double) { scalar() }
    mutating func time(_ seconds: Double) { scalar() }
    mutating func string(_ literal: StaticString) { scalar() }
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) { scalar() }
    mutating func colorHex(_ spelling: ColorHex.Spelling) { scalar() }
    mutating func data(_ bytes: ArraySlice<UInt8>) { scalar() }
    mutating func base64(_ bytes: ArraySlice<UInt8>) { scalar() }
    mutating func reference(_ object: Int) { scalar() }
    mutating func brokenMark(offset: Int, reason: String, rest: ArraySlice<UInt8>) { scalar() }
    mutating func kindMember(_ kind: DataKind) {
        key(MappingKeys.kind)
        scalar()
    }
}
