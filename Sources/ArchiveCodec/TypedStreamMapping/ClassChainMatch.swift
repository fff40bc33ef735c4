/// Whether a class of one typedstream and a class of another have the same chain (names and
/// versions, link for link), each pair of classes decided once.
///
/// A chain is as long as its stream makes it, and every object of a class stands on all of
/// it: comparing whole chains per object is the chain's length times the objects. Here a pair
/// is decided from its own link and its superclasses' pair, remembered, so that comparing two
/// streams walks each pair of links at most once, whatever the number of objects.
struct ClassChainMatch {
    /// Per class of the left stream: the right class it was first decided against (-1: none)
    /// and the verdict; the two streams' classes mostly pair one to one.
    private var partner: [Int32]
    private var verdict: [Bool]
    /// Any other pair (`left << 32 | right`): whether their chains are the same.
    private var others: [UInt64: Bool] = [:]

    /// A match for a left stream of `leftClasses` classes.
    init(leftClasses: Int) {
        partner = [Int32](filledWith: -1, count: leftClasses)
        verdict = [Bool](filledWith: false, count: leftClasses)
    }

    private func known(_ a: Int, _ b: Int) -> Bool? {
        if partner[a] == Int32(b) { return verdict[a] }
        return partner[a] < 0 ? nil : others[UInt64(a) << 32 | UInt64(b)]
    }

    private mutating func remember(_ a: Int, _ b: Int, _ same: Bool) {
        if partner[a] < 0 {
            partner[a] = Int32(b)
            verdict[a] = same
        } else {
            others[UInt64(a) << 32 | UInt64(b)] = same
        }
    }

    /// Whether class `left` of `l` and class `right` of `r` have the same chain.
    mutating func same(_ l: TypedStream, _ left: Int, _ r: TypedStream, _ right: Int) -> Bool {
        var walked: [(Int, Int)] = []
        var pair: (Int?, Int?) = (left, right)
        var same: Bool
        while true {
            guard let a = pair.0, let b = pair.1 else {
                same = pair.0 == nil && pair.1 == nil
                break
            }
            if let decided = known(a, b) {
                same = decided
                break
            }
            walked.append((a, b))
            guard l.classes[a].version == r.classes[b].version, l.name(ofClass: a).elementsEqual(r.name(ofClass: b)) else {
                same = false
                break
            }
            pair = (l.classes[a].superclass.map(Int.init), r.classes[b].superclass.map(Int.init))
        }
        // Every pair walked matched its own link, so each stands or falls with the last one.
        for (a, b) in walked { remember(a, b, same) }
        return same
    }
}
