/// Which nodes of a directed graph lie on a cycle: those in a strongly connected component of
/// two or more nodes, or with an edge to themselves. Tarjan's algorithm with an explicit stack,
/// so a chain of a million objects needs no deeper call stack than a chain of two; linear in
/// nodes and edges.
///
/// The graph is given as adjacency lists laid end to end: node `n`'s edges are
/// `targets[edgeStart[n]..<edgeStart[n + 1]]`.
enum ReferenceCycles {
    static func onCycle(edgeStart: [Int32], targets: [Int32]) -> [Bool] {
        let count = edgeStart.count - 1
        guard count > 0 else { return [] }
        let unvisited = Int32(-1)
        var order = [Int32](filledWith: unvisited, count: count)
        var lowest = [Int32](filledWith: 0, count: count)
        var onStack = [Bool](filledWith: false, count: count)
        var cyclic = [Bool](filledWith: false, count: count)
        // The component stack, and the walk's stack of (node, next edge).
        var members: [Int32] = []
        var walk: [(node: Int32, edge: Int32)] = []
        var next: Int32 = 0
        func visit(_ node: Int) {
            order[node] = next
            lowest[node] = next
            next += 1
            members.append(Int32(node))
            onStack[node] = true
            walk.append((Int32(node), edgeStart[node]))
        }
        for root in 0..<count where order[root] == unvisited {
            visit(root)
            while let (node, edge) = walk.last {
                let current = Int(node)
                if edge < edgeStart[current + 1] {
                    walk[walk.count - 1].edge = edge + 1
                    let target = Int(targets[Int(edge)])
                    if target == current { cyclic[current] = true }
                    if order[target] == unvisited {
                        visit(target)
                    } else if onStack[target] {
                        lowest[current] = min(lowest[current], order[target])
                    }
                    continue
                }
                walk.removeLast()
                if let parent = walk.last.map({ Int($0.node) }) { lowest[parent] = min(lowest[parent], lowest[current]) }
                guard lowest[current] == order[current] else { continue }
                // `current` roots a component: its members are on the stack down to it.
                let start = members.lastIndex(of: node)!
                for member in members[start...] {
                    onStack[Int(member)] = false
                    if members.count - start > 1 { cyclic[Int(member)] = true }
                }
                members.removeSubrange(start...)
            }
        }
        return cyclic
    }
}
