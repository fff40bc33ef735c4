import TestSupport
import XCTest

@testable import ArchiveCodec

/// Class entries read once per process (`ClassInfoCache`): the key is the entry's strings
/// exactly (kind, length, bytes), the answers are those of a fresh reading, and what is kept is
/// bounded.
final class ClassInfoCacheTests: XCTestCase {
    /// A class entry of `name` with `$classes` `chain` (and no hints), as plist objects.
    private func classEntry(_ name: String, chain: [String]?, in tree: inout PlistTree) throws -> UInt32 {
        var keys = [try tree.string("$classname")]
        var values = [try tree.string(name)]
        if let chain {
            keys.append(try tree.string("$classes"))
            var names: [UInt32] = []
            for text in chain { names.append(try tree.string(text)) }
            values.append(try tree.array(names))
        }
        return try tree.dict(keys: keys, values: values)
    }

    private func key(_ name: String, chain: [String]?) throws -> ClassInfoCache.Key? {
        var tree = PlistTree()
        let entry = try classEntry(name, chain: chain, in: &tree)
        let bytes = BinaryPlistWriter.write(tree, root: entry)
        let plist = try BinaryPlist(bytes: bytes)
        return plist.withView { view in
            let header = view.header(of: plist.topObject)
            return ClassInfoCache.key(
                name: view.value(in: header, forKey: "$classname")!, chain: view.value(in: header, forKey: "$classes"), hints: nil, in: view)
        }
    }

    func testKeysAreTheStringsExactly() throws {
        let team = try XCTUnwrap(try key("Team", chain: ["Team", "NSObject"]))
        XCTAssertEqual(try key("Team", chain: ["Team", "NSObject"]), team)
        XCTAssertNotEqual(try key("Team", chain: nil), team)
        XCTAssertNotEqual(try key("Team", chain: ["TeamNSObject"]), team)
        XCTAssertNotEqual(try key("Team", chain: ["Team", "NSObject", ""]), team)
        // Text beyond ASCII (UTF-16 in the plist) is a key of its own.
        XCTAssertNotNil(try key("Équipe", chain: ["Équipe", "NSObject"]))
        XCTAssertNotEqual(try key("Équipe", chain: ["Équipe", "NSObject"]), try key("Equipe", chain: ["Equipe", "NSObject"]))
        // Strings past the key's bound are not kept.
        XCTAssertNil(try key(String(repeating: "x", count: ClassInfoCache.maximumKeyBytes), chain: nil))
    }

    /// A lookup misses with the key `key` gives, and hits once its info is kept under it; an
    /// entry kept again under an equal key replaces its info and counts once.
    func testLookUpFindsWhatWasKept() throws {
        var tree = PlistTree()
        let entry = try classEntry("Team", chain: ["Team", "NSObject"], in: &tree)
        let plist = try BinaryPlist(bytes: BinaryPlistWriter.write(tree, root: entry))
        let cache = ClassInfoCache()
        let team = KeyedArchive.ClassInfo(name: "Team", chain: ["Team", "NSObject"], hints: nil, chainOwner: nil)
        let other = KeyedArchive.ClassInfo(name: "Other", chain: nil, hints: nil, chainOwner: nil)
        try plist.withView { view in
            let header = view.header(of: plist.topObject)
            let (name, chain) = (view.value(in: header, forKey: "$classname")!, view.value(in: header, forKey: "$classes"))
            guard case .unknown(let missed) = cache.lookUp(name: name, chain: chain, hints: nil, in: view) else { return XCTFail("a hit in an empty cache") }
            let key = try XCTUnwrap(missed)
            XCTAssertEqual(key, ClassInfoCache.key(name: name, chain: chain, hints: nil, in: view))
            cache.keep(other, for: ClassInfoCache.Key(bytes: key.bytes + [0]))
            cache.keep(team, for: key)
            guard case .known(let found) = cache.lookUp(name: name, chain: chain, hints: nil, in: view) else { return XCTFail("a miss after keep") }
            XCTAssertEqual(found.name, "Team")
            cache.keep(other, for: ClassInfoCache.Key(bytes: key.bytes))
            XCTAssertEqual(cache.count, 2)
            guard case .known(let replaced) = cache.lookUp(name: name, chain: chain, hints: nil, in: view) else { return XCTFail("a miss after keep") }
            XCTAssertEqual(replaced.name, "Other")
        }
    }

    func testWhatIsKeptIsBounded() throws {
        let cache = ClassInfoCache()
        let info = KeyedArchive.ClassInfo(name: "Team", chain: nil, hints: nil, chainOwner: nil)
        for index in 0..<(ClassInfoCache.maximumEntries + 10) {
            cache.keep(info, for: ClassInfoCache.Key(bytes: Array("class \(index)".utf8)))
        }
        // Full, it was emptied before the entry that would pass the bound: the last ten are kept.
        XCTAssertEqual(cache.count, 10)
        XCTAssertNil(cache.info(for: ClassInfoCache.Key(bytes: Array("class 0".utf8))))
        XCTAssertNotNil(cache.info(for: ClassInfoCache.Key(bytes: Array("class \(ClassInfoCache.maximumEntries + 9)".utf8))))
        // The strings kept are bounded too: names of control characters, six bytes each written.
        let names = ClassInfoCache()
        let name = String(repeating: "\u{1}", count: 500)
        var emptied = false
        for index in 0..<1_000 {
            names.keep(KeyedArchive.ClassInfo(name: name + "\(index)", chain: nil, hints: nil, chainOwner: nil), for: ClassInfoCache.Key(bytes: Array("\(index)".utf8)))
            if names.count < index + 1 { emptied = true }
            XCTAssertLessThan(names.count * 6_000, 2 * ClassInfoCache.maximumRetainedBytes)
        }
        XCTAssertTrue(emptied)
    }

    /// Every fixture decodes to the same text when its classes come from the cache (a second
    /// decode) as when they were read (the first, or any).
    func testAnswersDoNotDependOnTheCache() throws {
        var checked = 0
        for name in try Fixtures.names() {
            let bytes = try Fixtures.bytes(name)
            ClassInfoCache.shared.removeAll()
            guard let first = try? Archive(parsing: bytes).json(view: .readable, pretty: false) else { continue }
            XCTAssertEqual(try Archive(parsing: bytes).json(view: .readable, pretty: false), first, name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20)
    }
}
