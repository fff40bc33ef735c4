import TestSupport

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

/// Builds keyed archives for tests from a compact description of `$objects` entries (with
/// `TestPlistBuilder`, laid out as the codec's writers lay out what the codec encodes).
enum Entry {
    case string(String)
    case int(Int64)
    case real(Double)
    case bool(Bool)
    case data([UInt8])
    /// A class instance: class name and (key, value) pairs.
    case object(String, [(String, Value)])
    case array([Value])
}

indirect enum Value {
    case uid(Int)
    case int(Int64)
    case real(Double)
    case string(String)
    case data([UInt8])
    case array([Value])
}

func buildArchive(_ entries: [Entry], top: [(String, Value)] = [("root", .uid(1))], xml: Bool = false) throws -> [UInt8] {
    var plist = TestPlistBuilder()
    var classUIDs: [String: Int] = [:]
    var objects = [plist.string("$null")]
    var classEntries: [(String, Int)] = []
    let classBase = entries.count + 1
    for entry in entries {
        if case .object(let name, _) = entry, classUIDs[name] == nil {
            classUIDs[name] = classBase + classEntries.count
            classEntries.append((name, classBase + classEntries.count))
        }
    }
    func dict(_ keys: [Int], _ values: [Int]) -> Int { plist.add(.dict(zip(keys, values).map { (key: $0, value: $1) })) }
    func value(_ v: Value) -> Int {
        switch v {
        case .uid(let u): return plist.uid(u)
        case .int(let i): return plist.integer(i)
        case .real(let d): return plist.real(d)
        case .string(let s): return plist.string(s)
        case .data(let d): return plist.data(d)
        case .array(let items): return plist.add(.array(items.map(value)))
        }
    }
    for entry in entries {
        switch entry {
        case .string(let s): objects.append(plist.string(s))
        case .int(let i): objects.append(plist.integer(i))
        case .real(let d): objects.append(plist.real(d))
        case .bool(let b): objects.append(plist.bool(b))
        case .data(let d): objects.append(plist.data(d))
        case .array(let items): objects.append(plist.add(.array(items.map(value))))
        case .object(let name, let pairs):
            var keys = [plist.string("$class")]
            var values = [plist.uid(classUIDs[name]!)]
            for (k, v) in pairs {
                keys.append(plist.string(k))
                values.append(value(v))
            }
            objects.append(dict(keys, values))
        }
    }
    for (name, _) in classEntries {
        let keys = [plist.string("$classname"), plist.string("$classes")]
        let values = [plist.string(name), plist.add(.array(FoundationClasses.defaultChain(for: name).map { plist.string($0) }))]
        objects.append(dict(keys, values))
    }
    let topDict = dict(top.map { plist.string($0.0) }, top.map { value($0.1) })
    let keys = [plist.string("$version"), plist.string("$archiver"), plist.string("$top"), plist.string("$objects")]
    let values = [plist.integer(100_000), plist.string("NSKeyedArchiver"), topDict, plist.add(.array(objects))]
    let root = dict(keys, values)
    return xml ? plist.xml(top: root) : plist.binary(top: root)
}

/// Up to `most` keys `k0`, `k1`, … each holding the UID of a random entry in 0...`count`
/// (0 being nil): the links of a random object graph.
func randomLinks(most: Int, count: Int, using generator: inout some RandomNumberGenerator) -> [(String, Value)] {
    (0..<Int.random(in: 0...most, using: &generator)).map { index in
        ("k\(index)", Value.uid(Int.random(in: 0...count, using: &generator)))
    }
}

/// The values of `links` without nil UIDs (what an array of objects may hold).
func nonNilValues(_ links: [(String, Value)]) -> [Value] {
    links.map(\.1).filter { if case .uid(let target) = $0 { return target > 0 } else { return true } }
}

/// A random object graph of `count` entries (cycles, sharing, nil links) mixing every kind
/// the tests need: instances of a few classes, NSArray, NSDictionary, NSMutableString,
/// instances holding inline arrays of UIDs, plain strings and numbers (equal values in
/// distinct entries), and raw arrays.
func randomGraph(count: Int, using generator: inout some RandomNumberGenerator) -> [Entry] {
    let classes = ["N", "A", "B", "C"]
    return (0..<count).map { index in
        let links = randomLinks(most: 4, count: count, using: &generator)
        let uids = nonNilValues(links)
        switch Int.random(in: 0..<8, using: &generator) {
        case 0: return .object(classes[Int.random(in: 0..<classes.count, using: &generator)], links)
        case 1: return .object("NSArray", [("NS.objects", .array(uids))])
        case 2: return .object("N", [("inline", .array(links.map(\.1)))])
        case 3: return .object("NSDictionary", [("NS.keys", .array(uids)), ("NS.objects", .array(uids))])
        case 4: return .object("NSMutableString", [("NS.string", .string("s\(index % 3)"))])
        case 5: return .string("text \(index % 4)")
        case 6: return .int(Int64(index % 5))
        default: return .array(uids)
        }
    }
}

/// A linked list of `depth` Node objects; `cyclic` points the last back at the first.
func chainArchive(depth: Int, cyclic: Bool = false) throws -> [UInt8] {
    var entries: [Entry] = []
    for i in 0..<depth {
        let next = i + 1 < depth ? i + 2 : (cyclic ? 1 : 0)
        entries.append(.object("Node", [("next", .uid(next)), ("n", .int(Int64(i)))]))
    }
    return try buildArchive(entries)
}

/// Runs `body` on a thread with a stack of `size` bytes (the tests' own deep recursion).
func onThread(stackSize size: Int, _ body: @escaping () -> Void) {
    final class Box {
        let body: () -> Void
        init(_ b: @escaping () -> Void) { body = b }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setstacksize(&attributes, size)
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let rc = pthread_create(
        &thread, &attributes,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    pthread_join(thread, nil)
    pthread_attr_destroy(&attributes)
}
