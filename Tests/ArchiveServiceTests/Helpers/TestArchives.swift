/// A minimal binary property list writer, enough to build test archives of any depth.
///
/// Format (bplist00): header, objects, offset table, 32-byte trailer. Offsets and object references
/// are always 4 bytes; counts of 15 or more are written as nibble 0xF followed by an int object.
struct BinaryPlistWriter {
    indirect enum Value {
        case string(String)  // ASCII only
        case int(Int)
        case uid(Int)
        case array([Int])  // references to other objects
        case dict([(key: Int, value: Int)])
    }

    private(set) var objects: [Value] = []
    private var strings: [String: Int] = [:]
    private var uids: [Int: Int] = [:]

    /// Adds an object and returns its reference.
    mutating func add(_ value: Value) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    /// Reserves a reference to fill in later with `set` (lets a container be written before its children).
    mutating func reserve() -> Int { add(.int(0)) }

    mutating func set(_ reference: Int, _ value: Value) { objects[reference] = value }

    mutating func string(_ text: String) -> Int {
        if let existing = strings[text] { return existing }
        let reference = add(.string(text))
        strings[text] = reference
        return reference
    }

    mutating func uid(_ value: Int) -> Int {
        if let existing = uids[value] { return existing }
        let reference = add(.uid(value))
        uids[value] = reference
        return reference
    }

    func serialize(top: Int) -> [UInt8] {
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .string(let text):
                precondition(text.utf8.allSatisfy { $0 < 0x80 }, "ASCII strings only")
                Self.marker(0x50, count: text.utf8.count, into: &out)
                out += Array(text.utf8)
            case .int(let value):
                out.append(0x13)
                Self.bigEndian(UInt64(bitPattern: Int64(value)), bytes: 8, into: &out)
            case .uid(let value):
                out.append(0x83)
                Self.bigEndian(UInt64(value), bytes: 4, into: &out)
            case .array(let references):
                Self.marker(0xA0, count: references.count, into: &out)
                for reference in references { Self.bigEndian(UInt64(reference), bytes: 4, into: &out) }
            case .dict(let pairs):
                Self.marker(0xD0, count: pairs.count, into: &out)
                for pair in pairs { Self.bigEndian(UInt64(pair.key), bytes: 4, into: &out) }
                for pair in pairs { Self.bigEndian(UInt64(pair.value), bytes: 4, into: &out) }
            }
        }
        let offsetTable = out.count
        for offset in offsets { Self.bigEndian(UInt64(offset), bytes: 4, into: &out) }
        out += [0, 0, 0, 0, 0, 0, 4, 4]
        Self.bigEndian(UInt64(objects.count), bytes: 8, into: &out)
        Self.bigEndian(UInt64(top), bytes: 8, into: &out)
        Self.bigEndian(UInt64(offsetTable), bytes: 8, into: &out)
        return out
    }

    private static func marker(_ high: UInt8, count: Int, into out: inout [UInt8]) {
        if count < 15 {
            out.append(high | UInt8(count))
        } else {
            out.append(high | 0x0F)
            out.append(0x13)
            bigEndian(UInt64(count), bytes: 8, into: &out)
        }
    }

    private static func bigEndian(_ value: UInt64, bytes: Int, into out: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}

/// Keyed archives built for the tests.
enum TestArchives {
    enum Tail {
        case `nil`  // last node's next is nil: an acyclic chain
        case cycle  // last node points back at the first
        case dangling  // last node points at a UID that does not exist
    }

    /// An NSKeyedArchiver archive of a singly linked list of `count` `Node` objects:
    /// `$objects` = ["$null", node 1 … node count, class], node i = {"$class": class, "next": UID(i+1)}.
    static func linkedList(count: Int, tail: Tail = .nil) -> [UInt8] {
        precondition(count >= 1)
        var writer = BinaryPlistWriter()
        let top = writer.reserve()
        let classUID = count + 1
        var objectRefs = [writer.string("$null")]
        let classKey = writer.string("$class")
        let nextKey = writer.string("next")
        let classRef = writer.uid(classUID)
        for index in 1...count {
            let next: Int
            if index < count {
                next = index + 1
            } else {
                switch tail {
                case .nil: next = 0
                case .cycle: next = 1
                case .dangling: next = 0x7FFF_FFF0
                }
            }
            let nextRef = writer.uid(next)
            objectRefs.append(writer.add(.dict([(classKey, classRef), (nextKey, nextRef)])))
        }
        let nodeName = writer.string("Node")
        let objectName = writer.string("NSObject")
        let classes = writer.add(.array([nodeName, objectName]))
        let classnameKey = writer.string("$classname")
        let classesKey = writer.string("$classes")
        objectRefs.append(writer.add(.dict([(classnameKey, nodeName), (classesKey, classes)])))
        let objects = writer.add(.array(objectRefs))
        let rootKey = writer.string("root")
        let rootRef = writer.uid(1)
        let topDict = writer.add(.dict([(rootKey, rootRef)]))
        let pairs = [
            (writer.string("$archiver"), writer.string("NSKeyedArchiver")),
            (writer.string("$version"), writer.add(.int(100_000))),
            (writer.string("$top"), topDict),
            (writer.string("$objects"), objects)
        ].map { (key: $0.0, value: $0.1) }
        writer.set(top, .dict(pairs))
        return writer.serialize(top: top)
    }

    /// An archive of an empty NSArray whose `$objects` has `count` more entries that are all one
    /// string object: each costs one 4-byte reference in the file, and a decode's tables by
    /// the entry.
    static func sharedEntries(count: Int) -> [UInt8] {
        var writer = BinaryPlistWriter()
        let top = writer.reserve()
        let shared = writer.string("same")
        let name = writer.string("NSArray")
        let classes = writer.add(.array([name, writer.string("NSObject")]))
        let classEntry = writer.add(.dict([(writer.string("$classname"), name), (writer.string("$classes"), classes)]))
        let root = writer.add(.dict([(writer.string("NS.objects"), writer.add(.array([]))), (writer.string("$class"), writer.uid(2))]))
        let objects = writer.add(.array([writer.string("$null"), root, classEntry] + Array(repeating: shared, count: count)))
        writer.set(
            top,
            .dict(
                [
                    (writer.string("$archiver"), writer.string("NSKeyedArchiver")), (writer.string("$version"), writer.add(.int(100_000))),
                    (writer.string("$top"), writer.add(.dict([(writer.string("root"), writer.uid(1))]))), (writer.string("$objects"), objects)
                ].map { (key: $0.0, value: $0.1) }))
        return writer.serialize(top: top)
    }

    /// A well-formed binary plist that is not a keyed archive: {"name": "plain", "count": 3}.
    static func plainPlist() -> [UInt8] {
        var writer = BinaryPlistWriter()
        let top = writer.reserve()
        let nameKey = writer.string("name")
        let name = writer.string("plain")
        let countKey = writer.string("count")
        let count = writer.add(.int(3))
        writer.set(top, .dict([(nameKey, name), (countKey, count)]))
        return writer.serialize(top: top)
    }
}
