import XCTest

@testable import ArchiveCodec

/// `PlistTree` on its own: interning and the layout of its containers' children.
final class PlistTreeTests: XCTestCase {
    func testEqualScalarsShareOneNode() throws {
        var tree = PlistTree()
        let first = try tree.string(bytes: Array("name".utf8))
        let again = try tree.string(bytes: Array("name".utf8))
        let data = try Array("name".utf8).withUnsafeBufferPointer { (bytes) throws(CodecError) -> UInt32 in try tree.data(bytes) }
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, data, "a string and data of the same bytes are different values")
        XCTAssertEqual(try tree.integer(PlistInteger(signed: 7)), try tree.integer(PlistInteger(signed: 7)))
        XCTAssertNotEqual(try tree.integer(PlistInteger(signed: -1)), try tree.integer(PlistInteger(unsigned: .max)))
    }

    func testADictionaryFromPairsIsTheOneFromKeysAndValues() throws {
        var tree = PlistTree()
        let keys = try ["a", "b", "c"].map { (key) throws(CodecError) -> UInt32 in try tree.string(key) }
        let values = try (1...3).map { (value) throws(CodecError) -> UInt32 in try tree.integer(PlistInteger(signed: Int64(value))) }
        let fromLists = try tree.dict(keys: keys, values: values)
        let pairs = zip(keys, values).flatMap { [$0, $1] }
        let fromPairs = try pairs.withUnsafeBufferPointer { (pairs) throws(CodecError) -> UInt32 in try tree.dict(pairs: pairs) }
        let lists = tree.node(fromLists)
        let paired = tree.node(fromPairs)
        XCTAssertEqual(paired.kind, .dict)
        XCTAssertEqual(paired.count, 3)
        // Keys first, then values, as the binary format lays a dictionary out.
        XCTAssertEqual((0..<6).map { tree.child(paired, $0) }, keys + values)
        XCTAssertEqual((0..<6).map { tree.child(paired, $0) }, (0..<6).map { tree.child(lists, $0) })
        let empty = try [UInt32]().withUnsafeBufferPointer { (pairs) throws(CodecError) -> UInt32 in try tree.dict(pairs: pairs) }
        XCTAssertEqual(tree.node(empty).count, 0)
    }
}
