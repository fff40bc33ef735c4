import TestSupport
import XCTest

@testable import ArchiveCodec

final class ObjectClassifierTests: XCTestCase {
    /// A class entry with a key a class never has is a broken archive; the error names the
    /// entry and the key, and suggests the raw view in the codec's terms (each front end words it).
    func testClassEntryWithAnUnknownKeySuggestsTheRawView() throws {
        var tree = PlistTree()
        let classEntry = try tree.dict(
            keys: [try tree.string("$classname"), try tree.string("$classes"), try tree.string("colour")],
            values: [try tree.string("Foo"), try tree.array([try tree.string("Foo"), try tree.string("NSObject")]), try tree.string("red")])
        let instance = try tree.dict(keys: [try tree.string("$class")], values: [try tree.uid(2)])
        let root = try tree.dict(
            keys: [try tree.string("$version"), try tree.string("$archiver"), try tree.string("$top"), try tree.string("$objects")],
            values: [
                try tree.integer(PlistInteger(signed: 100_000)), try tree.string("NSKeyedArchiver"),
                try tree.dict(keys: [try tree.string("root")], values: [try tree.uid(1)]),
                try tree.array([try tree.string("$null"), instance, classEntry])
            ])
        let bytes = BinaryPlistWriter.write(tree, root: root)
        do {
            _ = try KeyedArchive(parsing: bytes)
            XCTFail("a class entry with an unknown key was accepted")
        } catch {
            XCTAssertEqual(error.kind, .invalidArchive)
            XCTAssertEqual(error.uid, 2)
            XCTAssertEqual(error.remedy, .rawView)
            XCTAssertTrue(error.message.contains("\"colour\""), error.message)
            XCTAssertFalse(error.message.contains("view=raw"), error.message)
        }
        // The raw view reads it as it is, as the remedy says.
        XCTAssertNoThrow(try BinaryPlist(bytes: bytes))
        XCTAssertThrowsError(try Archive(parsing: bytes))
        let raw = String(decoding: try Archive(parsing: bytes, view: .raw).json(view: .raw, pretty: false), as: UTF8.self)
        XCTAssertTrue(raw.contains("\"colour\":\"red\""), raw)
    }

    /// `classes` instances, each of its own class entry, every class entry's `$classes` one
    /// plist array of `names` references to one string; `padding` objects nothing refers to
    /// (each one byte) raise the expansion limit, which bounds the names read in all.
    private func sharedChain(classes: Int, names: Int, padding: Int = 0) -> [UInt8] {
        var plist = TestPlistBuilder()
        for _ in 0..<padding { _ = plist.add(.bool(false)) }
        let classKey = plist.string("$class")
        let chain = plist.add(.array([Int](repeating: plist.string("Base"), count: names)))
        func classEntry(_ name: String, _ chain: Int) -> Int {
            plist.add(.dict([(key: plist.string("$classname"), value: plist.string(name)), (key: plist.string("$classes"), value: chain)]))
        }
        let arrayClass = 2 + 2 * classes
        var objects = [plist.string("$null")]
        objects.append(
            plist.add(
                .dict([
                    (key: classKey, value: plist.uid(arrayClass)),
                    (key: plist.string("NS.objects"), value: plist.add(.array((0..<classes).map { plist.uid(2 + $0) })))
                ])))
        objects += (0..<classes).map { plist.add(.dict([(key: classKey, value: plist.uid(2 + classes + $0))])) }
        objects += (0..<classes).map { classEntry("C\($0)", chain) }
        objects.append(classEntry("NSArray", plist.add(.array([plist.string("NSArray"), plist.string("NSObject")]))))
        return plist.keyedArchive(objects: objects)
    }

    /// Class entries that share one `$classes` array share its names: read once, kept once,
    /// so what classification keeps follows the input, not the entries times the names.
    func testASharedClassChainIsReadOnce() throws {
        let archive = try KeyedArchive(parsing: sharedChain(classes: 100, names: 300))
        let chains = archive.classInfos.filter { $0.name.hasPrefix("C") }.map { $0.chain! }
        XCTAssertEqual(chains.count, 100)
        XCTAssertEqual(chains[0], [String](repeating: "Base", count: 300))
        XCTAssertEqual(Set(chains.map { $0.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } }).count, 1)
        let json = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(json.hasPrefix(#"[{"$class":"C0","$classes":["Base","Base","#), String(json.prefix(100)))
        // The expansion limit (8 per object, plus 1,000,000) admits 2,000² names with the padding.
        let result = try ScalingCheck.measure(startingAt: 500, maximumSize: 500, make: { sharedChain(classes: $0, names: $0, padding: 400_000) }) {
            _ = try KeyedArchive(parsing: $0)
        }
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description)
    }
}
