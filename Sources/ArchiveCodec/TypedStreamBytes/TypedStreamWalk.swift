/// Walks a `TypedStream` in stream order, the order of its bytes, with an explicit stack (no
/// recursion, however deep the stream nests): the writer's walk, and any caller's that wants
/// the stream as events.
///
/// The walk gives the top-level groups, each followed by its values and its end. It goes into
/// an object's groups or a composite's children only when told to (`enter(object:)`,
/// `enter(childrenOf:)`) right after the `.value` step that met it, and gives their end when
/// they are done: the writer enters an object only where it first occurs, and a caller may
/// skip what it does not want.
struct TypedStreamWalk {
    enum Step: Equatable {
        /// The group whose first value is `first` begins (`TypedStream` names a group so); its
        /// `values` values follow (given here, as a writer wants the count and the walk has it).
        case group(Int, values: Int)
        /// Value `index`.
        case value(Int)
        /// The values of the group whose first value is this are done.
        case endOfGroup(Int)
        /// The children of composite value `index` are done.
        case endOfComposite(Int)
        /// The groups of object `index` are done.
        case endOfObject(Int)
    }

    let stream: TypedStream
    /// The runs around `held` and the innermost, outermost (the stream's) first.
    private var outer: [Run] = []
    /// The run around the innermost, when it is not in `outer`: a run entered is held here
    /// and goes to `outer` only when another is entered inside it, so that a group entered
    /// and left (the walk's commonest pair) touches no array — each change of `outer` made the
    /// runtime check its uniqueness.
    private var held: Run?
    /// The innermost run, kept apart from `outer`: a step moves a field of it, where moving an
    /// array element made the runtime check the array's uniqueness at every step.
    private var current: Run

    /// A run of groups (the stream's, an object's) or of values (a group's, a composite's).
    private struct Run {
        enum Kind { case stream, object, group, composite }
        /// The next value, or the next group's first value.
        var next: Int
        var end: Int
        var kind: Kind
        /// What the run belongs to: the object, group or composite value's index.
        var owner: Int
    }

    init(_ stream: TypedStream) {
        self.stream = stream
        current = Run(next: 0, end: stream.values.count, kind: .stream, owner: 0)
        // A small stream's nesting at once (`SmallDocument`): the builder noted the most runs
        // open at once.
        outer.reserveCapacity(Swift.min(stream.deepestOpen, SmallDocument.nesting))
    }

    /// Inlined into the walk's callers: it runs at every step, and the call itself cost a
    /// fifth of it.
    @inline(__always)
    mutating func next() -> Step? {
        guard current.next < current.end else {
            // The stream's run has no parent: once it is done, every step is nil.
            let done = current
            if let parent = held {
                current = parent
                held = nil
            } else {
                guard let parent = outer.popLast() else { return nil }
                current = parent
            }
            switch done.kind {
            case .stream: return nil
            case .object: return .endOfObject(done.owner)
            case .group: return .endOfGroup(done.owner)
            case .composite: return .endOfComposite(done.owner)
            }
        }
        let index = current.next
        guard current.kind == .stream || current.kind == .object else {
            current.next = index + 1
            return .value(index)
        }
        // The next group starts past everything reserved inside this one, whether or not the
        // caller goes into its objects and composites.
        current.next = stream.end(ofGroup: index)
        let values = stream.values(ofGroup: index)
        enter(Run(next: values.lowerBound, end: values.upperBound, kind: .group, owner: index))
        return .group(index, values: values.count)
    }

    /// Walks the groups of object `index` next (the object of the `.value` just given).
    mutating func enter(object index: Int) {
        let object = stream.objects[index]
        enter(Run(next: Int(object.firstValue), end: Int(object.end), kind: .object, owner: index))
    }

    /// Walks the children of composite value `index` (a struct, pointer or array of other than
    /// bytes, the `.value` just given) next.
    mutating func enter(childrenOf index: Int) {
        let first = stream.values[index].index
        enter(Run(next: first, end: first + Int(stream.types[stream.values[index].type].count), kind: .composite, owner: index))
    }

    @inline(__always)
    private mutating func enter(_ run: Run) {
        if let parent = held { outer.append(parent) }
        held = current
        current = run
    }
}
