/// Measures, without recursion, the depth `ReadableWriter` will reach on an archive: it
/// walks the same objects in the same order, marking shared objects written at their first
/// visit as the writer does, with an explicit stack standing in for the writer's frames.
struct DepthProbe {
    let archive: KeyedArchive
    let view: BinaryPlistView

    /// One expansion the writer would have open: an object (by UID) or an inline container
    /// (by plist ref), and the next child position to visit.
    private struct Frame {
        var isObject: Bool
        var id: Int
        var position: Int
        var count: Int
        /// Orderded sets only: child refs in index order.
        var ordered: [Int]?
    }

    func run() -> Int {
        var emitted = [Bool](repeating: false, count: archive.objectCount)
        var stack: [Frame] = []
        var deepest = 0
        let objectsHeader = view.header(of: archive.objectsRef)

        func push(_ frame: Frame) {
            stack.append(frame)
            deepest = max(deepest, stack.count)
        }
        /// A UID reached in the walk: opens a frame if the writer would expand it here.
        func visit(uid: Int) {
            guard uid != 0 else { return }
            if archive.needsIdentity[uid] {
                if emitted[uid] { return }
                emitted[uid] = true
            }
            let form = archive.forms[uid]
            if form.isScalar { return }
            let header = view.header(of: view.childRef(objectsHeader, uid))
            var frame = Frame(isObject: true, id: uid, position: 0, count: 0, ordered: nil)
            switch form {
            case .array, .set:
                frame.count = view.header(of: view.value(in: header, forKey: "NS.objects")!).count
            case .stringKeyDictionary:
                frame.count = view.header(of: view.value(in: header, forKey: "NS.objects")!).count
            case .pairDictionary:
                frame.count = 2 * view.header(of: view.value(in: header, forKey: "NS.objects")!).count
            case .orderedSet:
                let writer = ReadableWriter(archive: archive, view: view, out: JSONOutput(pretty: false))
                frame.ordered = writer.orderedSetValues(header)
                frame.count = frame.ordered!.count
            case .generic, .rawDict, .rawArray:
                frame.count = header.count
            default:
                frame.count = 0
            }
            push(frame)
        }
        /// A value inside an object's own dictionary or an inline container.
        func visit(inline ref: Int) {
            let header = view.header(of: ref)
            switch header.kind {
            case .uid: visit(uid: Int(view.uid(header)))
            case .array, .dict: push(Frame(isObject: false, id: ref, position: 0, count: header.count, ordered: nil))
            default: break
            }
        }

        let top = view.header(of: archive.topRef)
        for index in 0..<top.count {
            visit(inline: view.childRef(top, top.count + index))
            drain()
        }
        return deepest

        func drain() {
            while let frame = stack.last {
                guard frame.position < frame.count else {
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].position += 1
                let index = frame.position
                if !frame.isObject {
                    let header = view.header(of: frame.id)
                    visit(inline: view.childRef(header, header.kind == .dict ? header.count + index : index))
                    continue
                }
                let header = view.header(of: view.childRef(objectsHeader, frame.id))
                switch archive.forms[frame.id] {
                case .array, .set, .stringKeyDictionary:
                    let items = view.header(of: view.value(in: header, forKey: "NS.objects")!)
                    visit(uid: Int(view.uid(view.header(of: view.childRef(items, index)))))
                case .pairDictionary:
                    let list = view.header(of: view.value(in: header, forKey: index % 2 == 0 ? "NS.keys" : "NS.objects")!)
                    visit(uid: Int(view.uid(view.header(of: view.childRef(list, index / 2)))))
                case .orderedSet:
                    visit(uid: Int(view.uid(view.header(of: frame.ordered![index]))))
                case .generic:
                    if view.isString(view.childRef(header, index), equalTo: "$class") { continue }
                    visit(inline: view.childRef(header, header.count + index))
                case .rawDict:
                    visit(inline: view.childRef(header, header.count + index))
                case .rawArray:
                    visit(inline: view.childRef(header, index))
                default:
                    break
                }
            }
        }
    }
}
