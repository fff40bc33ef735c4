/// Finds, without recursion, where `ReadableWriter` stands when it is about to write a given
/// reference (`Checkpoint`), so that a second writer can write the rest of the document from
/// there (`ReadableWriter.resume`). It walks the same objects in the same order, deciding body
/// or `$ref` from the same `Placement` as the writer, with an explicit stack standing in for
/// the writer's frames.
struct ResumeWalk {
    let archive: KeyedArchive
    let view: BinaryPlistView
    let placement: Placement

    /// One expansion the writer would have open and the next child position to visit.
    /// Holds only plain values, so pushing and reading frames costs no reference counting.
    struct Frame {
        /// The expansion's children, as `ReadableShape` lists them.
        var children: ChildList
        var position: Int
        /// The object expanded (its `$objects` index), or −1 for an inline container.
        var uid: Int
        /// The object whose body the frame is part of (`ReadableWriter.body`).
        var body: UInt32
    }

    /// Where the writer stands when it is about to write reference number `reference` (in
    /// the order it writes them): the expansions it has open, the `$top` entry it is in,
    /// and which objects it has written by then. `ReadableWriter.resume` writes the rest
    /// of the document from here.
    struct Checkpoint {
        let reference: Int
        /// The object referred to there, and whether as an archived key's value.
        let uid: Int
        let keyContext: Bool
        let frames: [Frame]
        let topIndex: Int
        let emitted: [Bool]
    }

    /// Where the writer stands when it has written `stop` references, before the next one;
    /// nil when the document has no more references than that.
    func checkpoint(at stop: Int) -> Checkpoint? {
        let shape = ReadableShape(archive: archive, view: view)
        let forms = archive.forms
        let carriesID = placement.carriesID
        let bodyHolder = placement.bodyHolder
        var emitted = [Bool](filledWith: false, count: archive.objectCount)
        // The innermost open frame is `current` (while `depth > 0`); `stack` holds the
        // `depth - 1` frames around it, outermost first.
        var stack: [Frame] = []
        let none = PlistObjectHeader(kind: .array, marker: 0, start: 0, count: 0)
        var current = Frame(children: .inlineMembers(of: none), position: 0, uid: -1, body: Placement.topBody)
        var depth = 0
        // The values of the ordered sets open on the stack, innermost last.
        var orderedLists: [[Int]] = []
        var references = 0
        var checkpoint: Checkpoint?
        var topIndex = 0

        /// A UID reached in the walk: the frame the writer opens for it here, if any.
        func open(uid: Int, keyContext: Bool) -> Frame? {
            if references == stop {
                checkpoint = Checkpoint(
                    reference: references, uid: uid, keyContext: keyContext, frames: depth > 0 ? stack + [current] : [],
                    topIndex: topIndex, emitted: emitted)
            }
            references += 1
            guard uid != 0 else { return nil }
            if carriesID[uid] {
                let body = depth > 0 ? current.body : Placement.topBody
                if emitted[uid] || bodyHolder[uid] != body { return nil }
                emitted[uid] = true
            }
            if forms[uid].isScalar { return nil }
            let children = shape.layout(of: uid, carriesID: carriesID[uid]).children
            if children.walk == .ordered { orderedLists.append(ReadableShape.orderedSetValues(children, view)) }
            return Frame(children: children, position: 0, uid: uid, body: UInt32(truncatingIfNeeded: uid))
        }
        /// A child's value: a reference, or a value the writer may expand in place (an
        /// inline container); `keyContext` for an archived key's value or an inline member.
        func open(_ child: Child) -> Frame? {
            if child.role == .reference { return open(uid: view.uidValue(of: child.value), keyContext: false) }
            let header = view.header(of: child.value)
            switch header.kind {
            case .uid: return open(uid: Int(view.uid(header)), keyContext: child.role == .keyedValue)
            case .array, .dict:
                let body = depth > 0 ? current.body : Placement.topBody
                return Frame(children: .inlineMembers(of: header), position: 0, uid: -1, body: body)
            default: return nil
            }
        }

        let top = shape.topChildren()
        for index in 0..<top.count where checkpoint == nil {
            topIndex = index
            var next: Frame? = nil
            if let child = shape.child(top, at: index) { next = open(child) }
            while true {
                if let frame = next {
                    if depth > 0 { stack.append(current) }
                    current = frame
                    depth += 1
                }
                guard depth > 0, checkpoint == nil else { break }
                let position = current.position
                guard position < current.children.count else {
                    if current.children.walk == .ordered { orderedLists.removeLast() }
                    depth -= 1
                    if depth > 0 { current = stack.removeLast() }
                    next = nil
                    continue
                }
                current.position = position + 1
                if current.children.walk == .ordered {
                    next = open(shape.orderedChild(orderedLists[orderedLists.count - 1], at: position))
                } else if current.children.walk.isFolded {
                    // Not through a closure: capturing `open` would box the walk's state.
                    next = nil
                    if let child = ReadableShape.foldedChild(archive.attributedRuns, view, current.children, at: position) { next = open(child) }
                } else if let child = shape.child(current.children, at: position) {
                    next = open(child)
                } else {
                    next = nil
                }
            }
        }
        return checkpoint
    }
}
