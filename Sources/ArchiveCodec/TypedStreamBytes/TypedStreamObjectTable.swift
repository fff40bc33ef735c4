/// A typedstream's object table as its reader numbers it: objects, classes and C strings
/// numbered together in the order they appear, which later bytes refer back into.
///
/// An entry's index in its own table (`TypedStream.objects`, `classes`, `cStrings`) is how many
/// entries of its kind come before it, as the reader appends to those tables exactly when it
/// numbers an entry. So an entry is one byte, its kind and how many of its kind come before it
/// within its block of 64 entries, and each block keeps the count of objects and of classes
/// before it: an index is a byte and a block's count added, a few instructions a reference.
/// That is 1.125 bytes an entry where an index and a kind took 4 (a stream of small objects
/// numbers an entry per 11 bytes of it, and the table lives until the read ends, when the model
/// is whole). Two bitmaps with population counts took less still, but cost a decode 3.2 % more
/// instructions where this costs 0.55 % (no `popcnt` in the baseline x86-64 instruction set).
struct TypedStreamObjectTable {
    enum Kind: UInt8 {
        case object, classObject, cString

        var name: String {
            switch self {
            case .object: "an object"
            case .classObject: "a class"
            case .cString: "a C string"
            }
        }
    }

    /// The most entries the table numbers. Each entry takes at least two bytes of the stream,
    /// so only a stream past 2 GiB can reach it.
    static let limit = 1 << 30

    /// Per entry: its kind in the top two bits, in the six below how many entries of its kind
    /// come before it in its block of 64.
    private var entries: [UInt8] = []
    /// Per block of 64 entries: the objects numbered before it in the low 32 bits, the classes
    /// in the high 32.
    private var before: [UInt64] = []
    private var objects: UInt32 = 0
    private var classes: UInt32 = 0
    /// Of the current block: how many objects, classes and C strings it holds so far.
    private var inBlock: (UInt8, UInt8, UInt8) = (0, 0, 0)

    var count: Int { entries.count }

    /// Room for `entries` entries before the tables grow.
    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        before.reserveCapacity(count / 64 + 1)
    }

    /// Numbers a new entry of `kind`; returns its index in its own table (the caller checks
    /// `count` against `limit` first).
    @inline(__always)
    mutating func append(_ kind: Kind) -> UInt32 {
        let number = entries.count
        if number & 63 == 0 {
            before.append(UInt64(objects) | UInt64(classes) << 32)
            inBlock = (0, 0, 0)
        }
        let rank: UInt8
        let index: UInt32
        switch kind {
        case .object:
            (rank, index) = (inBlock.0, objects)
            inBlock.0 += 1
            objects += 1
        case .classObject:
            (rank, index) = (inBlock.1, classes)
            inBlock.1 += 1
            classes += 1
        case .cString:
            (rank, index) = (inBlock.2, UInt32(number) - objects - classes)
            inBlock.2 += 1
        }
        entries.append(kind.rawValue << 6 | rank)
        return index
    }

    /// Entry `number` (below `count`): its kind and its index in its own table.
    @inline(__always)
    func entry(_ number: Int) -> (kind: Kind, index: UInt32) {
        let entry = entries[number]
        let counts = before[number >> 6]
        let rank = UInt32(entry & 63)
        switch entry >> 6 {
        case Kind.object.rawValue: return (.object, UInt32(truncatingIfNeeded: counts) + rank)
        case Kind.classObject.rawValue: return (.classObject, UInt32(truncatingIfNeeded: counts >> 32) + rank)
        default:
            let blockStart = UInt32(number & ~63)
            return (.cString, blockStart - UInt32(truncatingIfNeeded: counts) - UInt32(truncatingIfNeeded: counts >> 32) + rank)
        }
    }
}
