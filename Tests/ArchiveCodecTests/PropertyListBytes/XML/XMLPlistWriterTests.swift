import XCTest

@testable import ArchiveCodec

/// `XMLPlistWriter` on its own: Apple's layout, escaping, integers and the capped indentation.
final class XMLPlistWriterTests: XCTestCase {
    private static let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    private func text(_ tree: PlistTree, _ root: UInt32) throws -> String {
        String(decoding: try XMLPlistWriter.write(tree, root: root), as: UTF8.self)
    }

    func testADictionaryOfScalarsInApplesLayout() throws {
        var tree = PlistTree()
        let keys = try ["name", "a<b & c>d\r", "low", "high", "id"].map { (key) throws(CodecError) -> UInt32 in try tree.string(key) }
        let values = [
            try tree.string("x & y"), try tree.integer(PlistInteger(signed: .min)), try tree.integer(PlistInteger(signed: -7)),
            try tree.integer(PlistInteger(unsigned: .max)), try tree.uid(42)
        ]
        let root = try tree.dict(keys: keys, values: values)
        XCTAssertEqual(
            try text(tree, root),
            Self.head + """
                <dict>
                \t<key>name</key>
                \t<string>x &amp; y</string>
                \t<key>a&lt;b &amp; c&gt;d&#13;</key>
                \t<integer>-9223372036854775808</integer>
                \t<key>low</key>
                \t<integer>-7</integer>
                \t<key>high</key>
                \t<integer>18446744073709551615</integer>
                \t<key>id</key>
                \t<dict>
                \t\t<key>CF$UID</key>
                \t\t<integer>42</integer>
                \t</dict>
                </dict>
                </plist>

                """)
    }

    func testIndentationStopsAtItsCap() throws {
        var tree = PlistTree()
        var node = try tree.integer(PlistInteger(signed: 0))
        for _ in 0..<(XMLPlistWriter.maximumIndent + 6) { node = try tree.array([node]) }
        let lines = try text(tree, node).split(separator: "\n")
        let tabs = lines.map { $0.prefix { $0 == "\t" }.count }
        XCTAssertEqual(tabs.max(), XMLPlistWriter.maximumIndent)
        let integer = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("<integer>0</integer>") })
        XCTAssertEqual(tabs[integer], XMLPlistWriter.maximumIndent)
        XCTAssertEqual(tabs[integer - 1], XMLPlistWriter.maximumIndent)
        XCTAssertEqual(tabs[5], 2, "the third array in")
    }

    func testWhatItWritesReadsBack() throws {
        var tree = PlistTree()
        let strings = try ["", "plain", "<&>", "\r\n", "café 😀"].map { (text) throws(CodecError) -> UInt32 in try tree.string(text) }
        let root = try tree.array(strings + [try tree.integer(PlistInteger(signed: 12_345_678_901))])
        let (read, top) = try XMLPlistReader.read(try XMLPlistWriter.write(tree, root: root))
        let node = read.node(top)
        XCTAssertEqual((0..<5).map { read.text(of: read.child(node, $0)) }, ["", "plain", "<&>", "\r\n", "café 😀"])
        XCTAssertEqual(Int64(bitPattern: read.node(read.child(node, 5)).bits), 12_345_678_901)
    }
}
