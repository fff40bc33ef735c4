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
}
