/// Finds, without recursion, where `ReadableWriter` stands when it is about to write a given
/// reference (`Checkpoint`), so that a second writer can write the rest of the document from
/// there (`ReadableWriter.resume`). It walks the same objects in the same order, deciding body
/// or `$ref` from the same `Placement` as the writer, with an explicit stack standing in for
/// the writer's frames.
struct ResumeWalk {
    let archive: KeyedArchive
    let view: BinaryPlistView
    let placement: Placement

    /// How a frame's children are found.
    enum Walk {
        /// UIDs in one plist array (NSArray, NSSet, the values of a string-key dictionary).
        case uidList
        /// Keys and values alternately, from two plist arrays (dictionary of `$dict` pairs).
        case pairLists
        /// The values of an object's own dictionary, skipping `$class`.
        case objectKeys
        /// The children of a plist array or dictionary held inline.
        case inline
        /// An ordered set's values, in index order (`orderedLists`).
        case ordered
    }

    /// One expansion the writer would have open and the next child position to visit.
    /// Holds only plain values, so pushing and reading frames costs no reference counting.
    struct Frame {
        var walk: Walk
        var list: PlistObjectHeader
        var second: PlistObjectHeader
        var position: Int
        var count: Int
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
        let forms = archive.forms
        let carriesID = placement.carriesID
        let bodyHolder = placement.bodyHolder
        let classKeys = archive.classKeys
        var emitted = [Bool](repeating: false, count: archive.objectCount)
        // The innermost open frame is `current` (while `depth > 0`); `stack` holds the
        // `depth - 1` frames around it, outermost first.
        var stack: [Frame] = []
        let none = PlistObjectHeader(kind: .array, marker: 0, start: 0, count: 0)
        var current = Frame(walk: .inline, list: none, second: none, position: 0, count: 0, uid: -1, body: Placement.topBody)
        var depth = 0
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
            let form = forms[uid]
            if form.isScalar { return nil }
            let header = view.header(at: Int(archive.entryOffsets[uid]))
            switch form {
            case .array, .set, .stringKeyDictionary:
                let items = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
                return Frame(walk: .uidList, list: items, second: none, position: 0, count: items.count, uid: uid, body: UInt32(truncatingIfNeeded: uid))
            case .pairDictionary:
                let keys = view.header(of: KeyedArchive.keyList(archive.lists[uid]))
                let values = view.header(of: KeyedArchive.itemList(archive.lists[uid]))
                return Frame(walk: .pairLists, list: keys, second: values, position: 0, count: 2 * values.count, uid: uid, body: UInt32(truncatingIfNeeded: uid))
            case .orderedSet:
                orderedLists.append(ReadableWriter.orderedSetValues(view, header))
                return Frame(walk: .ordered, list: header, second: none, position: 0, count: orderedLists[orderedLists.count - 1].count, uid: uid, body: UInt32(truncatingIfNeeded: uid))
            case .generic:
                return Frame(walk: .objectKeys, list: header, second: none, position: 0, count: header.count, uid: uid, body: UInt32(truncatingIfNeeded: uid))
            case .rawDict, .rawArray:
                return Frame(walk: .inline, list: header, second: none, position: 0, count: header.count, uid: uid, body: UInt32(truncatingIfNeeded: uid))
            default:
                return Frame(walk: .inline, list: none, second: none, position: 0, count: 0, uid: uid, body: UInt32(truncatingIfNeeded: uid))
            }
        }
        /// A value inside an object's own dictionary or an inline container (`keyContext`), or
        /// a `$top` value.
        func open(inline ref: Int, keyContext: Bool = true) -> Frame? {
            let header = view.header(of: ref)
            switch header.kind {
            case .uid: return open(uid: Int(view.uid(header)), keyContext: keyContext)
            case .array, .dict:
                let body = depth > 0 ? current.body : Placement.topBody
                return Frame(walk: .inline, list: header, second: none, position: 0, count: header.count, uid: -1, body: body)
            default: return nil
            }
        }

        let top = view.header(of: archive.topRef)
        for index in 0..<top.count where checkpoint == nil {
            topIndex = index
            var next = open(inline: view.childRef(top, top.count + index), keyContext: false)
            while true {
                if let frame = next {
                    if depth > 0 { stack.append(current) }
                    current = frame
                    depth += 1
                }
                guard depth > 0, checkpoint == nil else { break }
                let position = current.position
                guard position < current.count else {
                    if current.walk == .ordered { orderedLists.removeLast() }
                    depth -= 1
                    if depth > 0 { current = stack.removeLast() }
                    next = nil
                    continue
                }
                current.position = position + 1
                let list = current.list
                switch current.walk {
                case .uidList:
                    next = open(uid: view.uidValue(of: view.childRef(list, position)), keyContext: false)
                case .pairLists:
                    let source = position % 2 == 0 ? list : current.second
                    next = open(uid: view.uidValue(of: view.childRef(source, position / 2)), keyContext: false)
                case .ordered:
                    let ref = orderedLists[orderedLists.count - 1][position]
                    next = open(uid: view.uidValue(of: ref), keyContext: false)
                case .objectKeys:
                    next =
                        classKeys.contains(view.childRef(list, position))
                        ? nil : open(inline: view.childRef(list, list.count + position))
                case .inline:
                    next = open(inline: view.childRef(list, list.kind == .dict ? list.count + position : position))
                }
            }
        }
        return checkpoint
    }
}
