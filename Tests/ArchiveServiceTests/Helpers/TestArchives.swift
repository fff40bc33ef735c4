import TestSupport

/// Keyed archives built for the tests, in `TestPlistBuilder`'s wide layout (every reference and
/// offset 4 bytes, every integer 8), which the tests' sizes count on.
enum TestArchives {
    enum Tail {
        case `nil`  // last node's next is nil: an acyclic chain
        case cycle  // last node points back at the first
        case dangling  // last node points at a UID that does not exist
    }

    /// A cyclic list of 200,000 objects: a few hundred milliseconds of work in a debug build,
    /// far past `TestServer.timingOut()`'s 20 ms.
    static let pastTheTimeout = linkedList(count: 200_000, tail: .cycle)

    /// An NSKeyedArchiver archive of a singly linked list of `count` `Node` objects:
    /// `$objects` = ["$null", node 1 … node count, class], node i = {"$class": class, "next": UID(i+1)}.
    static func linkedList(count: Int, tail: Tail = .nil) -> [UInt8] {
        precondition(count >= 1)
        var writer = TestPlistBuilder()
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
            (writer.string("$version"), writer.add(.integer(100_000))),
            (writer.string("$top"), topDict),
            (writer.string("$objects"), objects)
        ].map { (key: $0.0, value: $0.1) }
        writer.set(top, .dict(pairs))
        return writer.binary(top: top, layout: .wide)
    }

    /// An archive of an empty NSArray whose `$objects` has `count` more entries that are all one
    /// string object: each costs one 4-byte reference in the file, and a decode's tables by
    /// the entry.
    static func sharedEntries(count: Int) -> [UInt8] {
        var writer = TestPlistBuilder()
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
                    (writer.string("$archiver"), writer.string("NSKeyedArchiver")), (writer.string("$version"), writer.add(.integer(100_000))),
                    (writer.string("$top"), writer.add(.dict([(writer.string("root"), writer.uid(1))]))), (writer.string("$objects"), objects)
                ].map { (key: $0.0, value: $0.1) }))
        return writer.binary(top: top, layout: .wide)
    }

    /// A well-formed binary plist that is not a keyed archive: {"name": "plain", "count": 3}.
    static func plainPlist() -> [UInt8] {
        var writer = TestPlistBuilder()
        let top = writer.reserve()
        let nameKey = writer.string("name")
        let name = writer.string("plain")
        let countKey = writer.string("count")
        let count = writer.add(.integer(3))
        writer.set(top, .dict([(nameKey, name), (countKey, count)]))
        return writer.binary(top: top, layout: .wide)
    }

    /// A dictionary with an archive's `$top` but no `$archiver` or `$objects`: meant as an
    /// archive, not a whole one.
    static func halfArchive() -> [UInt8] {
        var writer = TestPlistBuilder()
        let top = writer.reserve()
        let topKey = writer.string("$top")
        let nameKey = writer.string("name")
        let empty = writer.add(.dict([]))
        let name = writer.string("plain")
        writer.set(top, .dict([(topKey, empty), (nameKey, name)]))
        return writer.binary(top: top, layout: .wide)
    }
}
