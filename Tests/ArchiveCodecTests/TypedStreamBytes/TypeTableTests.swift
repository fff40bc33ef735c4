import XCTest

@testable import ArchiveCodec

final class TypeTableTests: XCTestCase {
    private typealias Node = TypeTable.Node

    private func parse(_ text: String, string: UInt32 = 0, into table: inout TypeTable) throws -> UInt32 {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { try table.root(ofString: string, text: $0, at: nil) }
    }

    private func nodes(of text: String) throws -> [Node] {
        var table = TypeTable()
        let root = try parse(text, into: &table)
        return (Int(root)..<Int(root + table[root].size)).map { table[UInt32($0)] }
    }

    private func scalar(_ code: Character, at position: UInt32, bytes: UInt32 = 1) -> Node {
        Node(code: UInt8(ascii: code.unicodeScalars.first!), count: 0, size: 1, minimumBytes: bytes, string: 0, start: position, end: position + 1)
    }

    /// A string of scalars only: a root holding one node per byte, each one wide, the root's
    /// byte minimum one per type but `!`.
    func testScalarTypesAreARootAndANodePerType() throws {
        XCTAssertEqual(
            try nodes(of: "iq!@"),
            [
                Node(code: TypeCode.sequence, count: 4, size: 5, minimumBytes: 3, string: 0, start: 0, end: 4),
                scalar("i", at: 0), scalar("q", at: 1), scalar("!", at: 2, bytes: 0), scalar("@", at: 3)
            ])
        XCTAssertEqual(try nodes(of: "+"), [Node(code: TypeCode.sequence, count: 1, size: 2, minimumBytes: 1, string: 0, start: 0, end: 1), scalar("+", at: 0)])
    }

    /// Composites nest in pre-order, each node's size its subtree; the scalars inside them are
    /// laid out as scalars alone are.
    func testCompositesAreSubtreesInPreOrder() throws {
        let nodes = try nodes(of: "i{?=ii}[3c]^@")
        XCTAssertEqual(nodes.map(\.code), Array("\u{0}i{ii[c^@".utf8).map { $0 == 0 ? TypeCode.sequence : $0 })
        XCTAssertEqual(nodes.map(\.size), [9, 1, 3, 1, 1, 2, 1, 2, 1])
        XCTAssertEqual(nodes.map(\.count), [4, 0, 2, 0, 0, 3, 0, 1, 0])
        XCTAssertEqual(nodes.map(\.minimumBytes), [7, 1, 2, 1, 1, 3, 1, 1, 1])
        XCTAssertEqual(nodes[3], scalar("i", at: 4))
        XCTAssertEqual(nodes[8], scalar("@", at: 12))
    }

    /// A string parsed once is found again without parsing; strings of other shared strings
    /// get roots of their own after the nodes already held.
    func testEachStringIsParsedOnce() throws {
        var table = TypeTable()
        let first = try parse("iq", string: 3, into: &table)
        let second = try parse("{ii}", string: 1, into: &table)
        XCTAssertEqual(first, 0)
        XCTAssertEqual(second, 3)
        XCTAssertEqual(try parse("iq", string: 3, into: &table), first)
        XCTAssertEqual(table.root(ofString: 1), second)
        XCTAssertNil(table.root(ofString: 2))
        XCTAssertEqual(table[first + 1].string, 3)
    }

    /// Empty strings and unknown codes are refused, scalar-only or not, and leave no nodes.
    func testMalformedStringsAreRefused() throws {
        var table = TypeTable()
        for text in ["", "i&", "&", "{ii", "[c]", "[5!]"] {
            XCTAssertThrowsError(try parse(text, into: &table), text)
            XCTAssertNil(table.root(ofString: 0), text)
        }
        XCTAssertEqual(try parse("i", into: &table), 0)
    }
}
