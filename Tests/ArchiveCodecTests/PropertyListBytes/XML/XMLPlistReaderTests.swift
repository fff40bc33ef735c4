import TestSupport
import XCTest

@testable import ArchiveCodec

/// `XMLPlistReader` on its own: every value type it reads, what it skips, and every refusal,
/// with the kind and the byte offset it reports. Expected values were checked against Python's
/// `plistlib` reading the same documents (noted where the reader goes its own way).
final class XMLPlistReaderTests: XCTestCase {
    // MARK: Helpers

    /// A plist value as these tests compare it: reals and dates by their bits (so NaN and
    /// -0.0 compare exactly), dictionaries as (key, value) pairs in document order.
    enum Value: Equatable {
        case bool(Bool)
        case int(Int64)
        /// An integer above `Int64.max`, held unsigned.
        case unsigned(UInt64)
        case realBits(UInt64)
        case dateBits(UInt64)
        case data([UInt8])
        case string(String)
        case uid(UInt64)
        case array([Value])
        case dict([Entry])

        static func real(_ value: Double) -> Value { .realBits(value.bitPattern) }
        static func date(_ seconds: Double) -> Value { .dateBits(seconds.bitPattern) }
    }

    struct Entry: Equatable {
        let key: String
        let value: Value
        init(_ key: String, _ value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// The value of node `index` of `tree` (recursive: for the small trees of these tests).
    private func value(_ tree: PlistTree, _ index: UInt32) -> Value {
        let node = tree.node(index)
        switch node.kind {
        case .bool: return .bool(node.bits != 0)
        case .int: return node.isUnsigned ? .unsigned(node.bits) : .int(Int64(bitPattern: node.bits))
        case .real: return .realBits(node.bits)
        case .date: return .dateBits(node.bits)
        case .data: return .data(Array(tree.bytes(node)))
        case .asciiString, .utf16String:
            return .string(String(validating: tree.bytes(node), as: UTF8.self) ?? "<invalid UTF-8>")
        case .uid: return .uid(node.bits)
        case .array: return .array((0..<Int(node.count)).map { value(tree, tree.child(node, $0)) })
        case .dict:
            let count = Int(node.count)
            return .dict((0..<count).map { Entry(tree.text(of: tree.child(node, $0)), value(tree, tree.child(node, count + $0))) })
        }
    }

    private func read(_ xml: String) throws -> Value {
        let (tree, root) = try XMLPlistReader.read(Array(xml.utf8))
        return value(tree, root)
    }

    /// `body` as Apple writes a whole document around it.
    private func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>

        """
    }

    /// Byte offset of the `occurrence`-th `needle` in `text`.
    private func offset(of needle: String, in text: String, occurrence: Int = 1) -> Int {
        let haystack = Array(text.utf8)
        let pattern = Array(needle.utf8)
        var seen = 0
        for start in 0...(haystack.count - pattern.count) where haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
            seen += 1
            if seen == occurrence { return start }
        }
        XCTFail("\(needle) not found \(occurrence) times")
        return -1
    }

    private func refusal(_ bytes: [UInt8]) -> CodecError? {
        do {
            _ = try XMLPlistReader.read(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// `xml` is refused as `kind`, at byte `offset`, with a message that holds `fragment`.
    private func assertRefused(
        _ xml: String, at offset: Int, saying fragment: String, kind: CodecError.Kind = .malformedPlist,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertRefused(bytes: Array(xml.utf8), at: offset, saying: fragment, kind: kind, file: file, line: line)
    }

    private func assertRefused(
        bytes: [UInt8], at offset: Int, saying fragment: String, kind: CodecError.Kind = .malformedPlist,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let shown = String(decoding: bytes.suffix(80), as: UTF8.self)
        guard let error = refusal(bytes) else {
            return XCTFail("accepted: …\(shown)", file: file, line: line)
        }
        XCTAssertEqual(error.kind, kind, "\(error) for …\(shown)", file: file, line: line)
        XCTAssertEqual(error.byteOffset, offset, "\(error) for …\(shown)", file: file, line: line)
        XCTAssertTrue(error.message.contains(fragment), "\(error) does not say \(fragment)", file: file, line: line)
    }

    /// Each `(body, needle, occurrence, fragment)`: `body`, in a whole document, is refused at
    /// the `occurrence`-th `needle` with a message that holds `fragment`.
    private func assertEachRefused(_ cases: [(String, String, Int, String)], file: StaticString = #filePath, line: UInt = #line) {
        for (body, needle, occurrence, fragment) in cases {
            let xml = plist(body)
            assertRefused(xml, at: offset(of: needle, in: xml, occurrence: occurrence), saying: fragment, file: file, line: line)
        }
    }

    // MARK: Values

    func testStringsDecodeEntitiesCharacterReferencesCDATAAndUTF8() throws {
        let xml = plist(
            """
            <array>
            <string>a &lt; b &amp;&amp; c &gt; d &quot;q&quot; &apos;s&apos;</string>
            <string>&#65;&#x42;&#x63;&#233;&#x20AC;&#x1F600;</string>
            <string><![CDATA[<not a tag> & &amp;]]></string>
            <string>café €uro 😀 日本</string>
            <string/>
            <string></string>
            <string>  spaced
            \ttext  </string>
            <string>a<!-- hidden -->b</string>
            <string>x<![CDATA[]]>y<![CDATA[]]]]>z</string>
            </array>
            """)
        // plistlib reads the same nine strings.
        XCTAssertEqual(
            try read(xml),
            .array([
                .string("a < b && c > d \"q\" 's'"),
                .string("ABcé€😀"),
                .string("<not a tag> & &amp;"),
                .string("café €uro 😀 日本"),
                .string(""),
                .string(""),
                .string("  spaced\n\ttext  "),
                .string("ab"),
                .string("xy]]z")
            ]))
        // Character references give the same UTF-8 as the literal characters.
        XCTAssertEqual(try read("<string>&#x1F600;&#233;</string>"), try read("<string>😀é</string>"))
    }

    func testKeysDecodeAsStringsDo() throws {
        let xml = plist("<dict><key>&lt;k&gt; &amp; &#x263A;</key><true/><key><![CDATA[$class]]></key><false/><key/><integer>1</integer></dict>")
        XCTAssertEqual(
            try read(xml),
            .dict([
                Entry("<k> & ☺", .bool(true)),
                Entry("$class", .bool(false)),
                Entry("", .int(1))
            ]))
    }

    func testIntegersSignedUnsignedAndHex() throws {
        let texts = [
            "0", "-1", "42", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "18446744073709551615", "0x10", "0xFFFFFFFFFFFFFFFF", " 7 ", "+5", "007"
        ]
        let xml = plist("<array>" + texts.map { "<integer>\($0)</integer>" }.joined() + "</array>")
        // plistlib: [0, -1, 42, 2^63-1, -2^63, 2^63, 2^64-1, 16, 2^64-1, 7, 5, 7]; above Int64.max
        // the value is held unsigned, as the binary format's 16-byte integers are.
        XCTAssertEqual(
            try read(xml),
            .array([
                .int(0), .int(-1), .int(42), .int(.max), .int(.min),
                .unsigned(9_223_372_036_854_775_808), .unsigned(.max), .int(16), .unsigned(.max), .int(7), .int(5), .int(7)
            ]))
        // Character data is gathered as in a string: CDATA, references and comments inside.
        XCTAssertEqual(
            try read("<array><integer><![CDATA[ 42 ]]></integer><integer>&#52;2</integer><integer>4<!-- c -->2</integer></array>"),
            .array([.int(42), .int(42), .int(42)]))
    }

    func testIntegersEitherSideOfTheShortDecimalPath() throws {
        // Up to 18 digits (after a sign) are read by the reader itself, more by Swift's parser:
        // the values must not show where the line is.
        let texts = [
            "999999999999999999", "-999999999999999999", "+999999999999999999", "1000000000000000000", "-1000000000000000000",
            "0000000000000000001", "00000000000000000000000000042", "\n123456789012345678\t"
        ]
        let xml = plist("<array>" + texts.map { "<integer>\($0)</integer>" }.joined() + "</array>")
        XCTAssertEqual(
            try read(xml),
            .array([
                .int(999_999_999_999_999_999), .int(-999_999_999_999_999_999), .int(999_999_999_999_999_999),
                .int(1_000_000_000_000_000_000), .int(-1_000_000_000_000_000_000), .int(1), .int(42), .int(123_456_789_012_345_678)
            ]))
        for text in ["-", "+", "+-1", "1 2", "12a"] {
            XCTAssertThrowsError(try read(plist("<integer>\(text)</integer>")), text)
        }
    }

    func testTextIsTheSameWhereverItsFirstReferenceStands() throws {
        // Plain text is taken where it stands until the first reference, CDATA section or
        // comment; from there it is decoded: both ways give one string.
        let xml = plist(
            """
            <array>
            <string>0123456789abcdef&amp;0123456789</string>
            <string>0123456789abcdef<![CDATA[<b>]]>tail</string>
            <string>0123456789abcdef<!-- note -->tail</string>
            <string>&amp;0123456789abcdef</string>
            <string>0123456789abcdef</string>
            </array>
            """)
        XCTAssertEqual(
            try read(xml),
            .array([
                .string("0123456789abcdef&0123456789"), .string("0123456789abcdef<b>tail"), .string("0123456789abcdeftail"),
                .string("&0123456789abcdef"), .string("0123456789abcdef")
            ]))
    }

    func testRealsIncludingExponentsAndNonFiniteSpellings() throws {
        let texts = [
            "1.5", "-0.0", "1e3", "1E-3", "2.5e+10", ".5", "5.", "3", " 3.25 ",
            "nan", "NaN", "+infinity", "-infinity", "inf", "-inf", "Infinity", "+inf", "-Infinity"
        ]
        let xml = plist("<array>" + texts.map { "<real>\($0)</real>" }.joined() + "</array>")
        // plistlib: [1.5, -0.0, 1000.0, 0.001, 25000000000.0, 0.5, 5.0, 3.0, 3.25, nan, nan, inf,
        // -inf, inf, -inf, inf, inf, -inf]. Apple writes "nan", "+infinity" and "-infinity".
        XCTAssertEqual(
            try read(xml),
            .array([
                .real(1.5), .real(-0.0), .real(1000), .real(0.001), .real(25_000_000_000), .real(0.5), .real(5), .real(3), .real(3.25),
                .real(.nan), .real(.nan), .real(.infinity), .real(-.infinity), .real(.infinity), .real(-.infinity),
                .real(.infinity), .real(.infinity), .real(-.infinity)
            ]))
        // The NaN is the usual quiet one, the one the XML writer writes as "nan".
        guard case .array(let values) = try read(xml), case .realBits(let bits) = values[9] else { return XCTFail() }
        XCTAssertEqual(bits, NonFiniteReal.canonicalNaN)
        XCTAssertEqual(bits, Double.nan.bitPattern)
    }

    /// Reals read as `Double(String)` reads their text, bit for bit, whether their text is a JSON
    /// number (read without a `String`) or not: signed zeros, integers past 2^64, leading
    /// zeros, full-precision decimals.
    func testRealsReadAsDoubleReadsTheirText() throws {
        var texts = [
            "0", "-0", "0.0", "-0.0", "4", "-17", "0.72549019607843135", "0.7254901960784313", "18446744073709551615",
            "18446744073709551616", "-9223372036854775808", "123456789012345678901234", "01.5", "-01", "1e400", "-1e400", "1e-400",
            "9007199254740993", "9007199254740993.0", "4503599627370496.5", "1.7976931348623157e308"
        ]
        var generator = TestRandom(for: self)
        for _ in 0..<3_000 {
            let value = Double(bitPattern: generator.next())
            if value.isFinite { texts.append(value.description) }
            let digits = (0..<Int.random(in: 1...20, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            texts.append(digits.count > 1 ? digits.prefix(1) + "." + digits.dropFirst() : digits)
        }
        let xml = plist("<array>" + texts.map { "<real>\($0)</real>" }.joined() + "</array>")
        guard case .array(let values) = try read(xml) else { return XCTFail() }
        for (text, value) in zip(texts, values) {
            guard case .realBits(let bits) = value else { return XCTFail("\(text): \(value)") }
            XCTAssertEqual(bits, Double(text)!.bitPattern, text)
        }
    }

    func testBooleans() throws {
        XCTAssertEqual(
            try read(plist("<array><true/><false/><true></true><false></false><true /></array>")),
            .array([.bool(true), .bool(false), .bool(true), .bool(false), .bool(true)]))
    }

    func testDatesAsSecondsSince2001() throws {
        // Seconds since 2001-01-01T00:00:00Z as plistlib gives them for the same text.
        let cases: [(String, Double)] = [
            ("2020-11-01T17:44:28Z", 625_945_468),
            ("1970-01-01T00:00:00Z", -978_307_200),
            ("0001-01-01T00:00:00Z", -63_113_904_000),
            ("9999-12-31T23:59:59Z", 252_423_993_599),
            ("2000-02-29T12:00:00Z", -26_481_600),
            ("2001-01-01T00:00:00Z", 0),
            (" 2001-01-01T00:00:01Z\n", 1),  // surrounding whitespace is not part of the date
            ("2020-11-01T17:44:28.5Z", 625_945_468.5)  // a fraction, which plistlib does not read
        ]
        for (text, seconds) in cases {
            XCTAssertEqual(try read(plist("<date>\(text)</date>")), .date(seconds), text)
        }
    }

    func testDataWithWhitespaceInsideTheBase64() throws {
        // As Apple and plistlib lay data out: lines of base64 indented with tabs.
        let bytes = Array(UInt8(0)...UInt8(255))
        var text: [UInt8] = []
        bytes.withUnsafeBufferPointer { Base64.encode($0, into: &text) }
        let lines = stride(from: 0, to: text.count, by: 68).map { String(decoding: text[$0..<min($0 + 68, text.count)], as: UTF8.self) }
        let xml = plist("<dict>\n\t<key>d</key>\n\t<data>\n\t" + lines.joined(separator: "\n\t") + "\n\t</data>\n</dict>")
        XCTAssertEqual(try read(xml), .dict([Entry("d", .data(bytes))]))
        // plistlib: b'\x00\x01\x02\x03\x04\x05\x06\x07\x08\t' for the first, b'' for the others.
        XCTAssertEqual(
            try read("<array><data>\n\tAAECAwQF\n\tBgcICQ==\n\t</data><data>AA EC\r\nAw==</data><data></data><data/><data> </data></array>"),
            .array([.data(Array(0...9)), .data([0, 1, 2, 3]), .data([]), .data([]), .data([])]))
    }

    func testEmptyAndSelfClosingContainers() throws {
        XCTAssertEqual(
            try read(plist("<array><array/><dict/><array></array><dict></dict><array /><dict\n/><string/></array>")),
            .array([.array([]), .dict([]), .array([]), .dict([]), .array([]), .dict([]), .string("")]))
        XCTAssertEqual(try read("<array/>"), .array([]))
        XCTAssertEqual(try read("<dict/>"), .dict([]))
    }

    func testCFUIDDictionariesBecomeUIDs() throws {
        let xml = plist(
            """
            <array>
            <dict><key>CF$UID</key><integer>7</integer></dict>
            <dict>
            \t<key>CF$UID</key>
            \t<integer>0</integer>
            </dict>
            <dict><key>CF$UID</key><integer>4294967295</integer></dict>
            <dict><key>CF$UID</key><integer>0x10</integer></dict>
            <dict><key>CF$UID</key><string>7</string></dict>
            <dict><key>CF$UID</key><integer>7</integer><key>other</key><integer>1</integer></dict>
            <dict><key>CF$UID</key><real>7</real></dict>
            <dict><key>cf$uid</key><integer>7</integer></dict>
            </array>
            """)
        // Only a dictionary whose single key is CF$UID, holding an integer, is a UID.
        XCTAssertEqual(
            try read(xml),
            .array([
                .uid(7), .uid(0), .uid(4_294_967_295), .uid(16),
                .dict([Entry("CF$UID", .string("7"))]),
                .dict([Entry("CF$UID", .int(7)), Entry("other", .int(1))]),
                .dict([Entry("CF$UID", .real(7))]),
                .dict([Entry("cf$uid", .int(7))])
            ]))
        // Out of range: above UInt32.max, negative, unsigned; reported at the dictionary.
        for number in ["4294967296", "-1", "18446744073709551615"] {
            let bad = plist("<array><true/><dict><key>CF$UID</key><integer>\(number)</integer></dict></array>")
            assertRefused(bad, at: offset(of: "<dict>", in: bad), saying: "CF$UID value out of range")
        }
    }

    func testNestingAndKeyOrder() throws {
        let xml = plist(
            """
            <dict>
            \t<key>z</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>b</key>
            \t\t\t<array><array><integer>1</integer></array><dict/></array>
            \t\t\t<key>a</key>
            \t\t\t<string>x</string>
            \t\t</dict>
            \t\t<integer>2</integer>
            \t</array>
            \t<key>a</key>
            \t<dict><key>CF$UID</key><integer>3</integer></dict>
            </dict>
            """)
        XCTAssertEqual(
            try read(xml),
            .dict([
                Entry(
                    "z",
                    .array([
                        .dict([Entry("b", .array([.array([.int(1)]), .dict([])])), Entry("a", .string("x"))]),
                        .int(2)
                    ])),
                Entry("a", .uid(3))
            ]))
    }

    func testCommentsProcessingInstructionsDoctypeAndBOMAreSkipped() throws {
        let expected = Value.dict([Entry("k", .array([.string("v")]))])
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- before -->
            <?editor hint="x"?>
            <!DOCTYPE plist SYSTEM "file://localhost/System/Library/DTDs/PropertyList.dtd">
            <!-- <string>not a value</string> -->
            <plist version="1.0" note='a > b'><!-- c --><dict><!-- c --><key>k</key><!-- between key and value -->
            <array><!-- c --><string>v</string><!-- <dict> --></array><!-- c --></dict><!-- c --></plist>
            <!-- after -->
            <?after?>

            """
        XCTAssertEqual(try read(xml), expected)
        // A UTF-8 byte order mark before it all.
        XCTAssertEqual(value(try XMLPlistReader.read([0xEF, 0xBB, 0xBF] + Array(xml.utf8))), expected)
        // The <plist> wrapper is optional: a bare top value, with or without a BOM.
        XCTAssertEqual(try read("<string>bare</string>"), .string("bare"))
        XCTAssertEqual(try read("\n <integer>5</integer> \n"), .int(5))
        XCTAssertEqual(value(try XMLPlistReader.read([0xEF, 0xBB, 0xBF] + Array("<true/>".utf8))), .bool(true))
    }

    private func value(_ read: (tree: PlistTree, root: UInt32)) -> Value { value(read.tree, read.root) }

    /// The tree the reader builds is the one the same values give when added in document order:
    /// the binary writer lays both out byte for byte alike, and the result is a valid bplist.
    func testTreeMatchesTheSameValuesBuiltDirectly() throws {
        let xml = plist(
            """
            <dict>
            \t<key>name</key><string>Bears &amp; co</string>
            \t<key>big</key><integer>18446744073709551615</integer>
            \t<key>list</key>
            \t<array><integer>-3</integer><real>0.25</real><true/><date>2001-01-01T00:01:00Z</date><data>AAEC</data>
            \t<dict><key>CF$UID</key><integer>9</integer></dict><string>Bears &amp; co</string><array/></array>
            \t<key>utf</key><string>é😀</string>
            </dict>
            """)
        let (tree, root) = try XMLPlistReader.read(Array(xml.utf8))
        var built = PlistTree()
        let name = try built.string("name")
        let bears = try built.string("Bears & co")
        let big = try built.string("big")
        let max = try built.integer(PlistInteger(unsigned: .max))
        let list = try built.string("list")
        var elements = [
            try built.integer(PlistInteger(signed: -3)), try built.real(0.25), try built.bool(true), try built.date(60),
            try [0, 1, 2].withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try built.data(buffer) }
        ]
        // A UID is read as the dictionary's key and integer first: those stay in the tree.
        _ = try built.string("CF$UID")
        _ = try built.integer(PlistInteger(signed: 9))
        elements += [try built.uid(9), try built.string("Bears & co"), try built.array([UInt32]())]
        let array = try built.array(elements)
        let utf = try built.string("utf")
        let text = try built.string("é😀")
        let top = try built.dict(keys: [name, big, list, utf], values: [bears, max, array, text])
        let bytes = BinaryPlistWriter.write(tree, root: root)
        XCTAssertEqual(bytes, BinaryPlistWriter.write(built, root: top))
        // Equal scalars are one node: "Bears & co" appears twice, so 19 values make 18 nodes.
        XCTAssertEqual(tree.nodes.count, 18)
        let parsed = try BinaryPlist(bytes: bytes)
        XCTAssertEqual(parsed.objectCount, 18)
        XCTAssertEqual(parsed.topObject, Int(root))
    }

    /// Whatever `XMLPlistWriter` writes reads back as the same values.
    func testWhatTheXMLWriterWritesReadsBack() throws {
        var tree = PlistTree()
        let keys = try ["plain", "markup", "cr", "unicode", "ints", "reals", "misc"].map { try tree.string($0) }
        let values = [
            try tree.string("text"),
            try tree.string("<a href=\"x\">&amp;</a> 'q'"),
            try tree.string("line\r\nnext\rlast"),
            try tree.string("café 日本 😀"),
            try tree.array([
                tree.integer(PlistInteger(signed: .min)), tree.integer(PlistInteger(signed: .max)),
                tree.integer(PlistInteger(unsigned: 1 << 63)), tree.integer(PlistInteger(unsigned: .max)),
                tree.integer(PlistInteger(signed: 0))
            ]),
            try tree.array([
                tree.real(-0.0), tree.real(.nan), tree.real(.infinity), tree.real(-.infinity), tree.real(1e-7),
                tree.real(.greatestFiniteMagnitude), tree.real(.leastNonzeroMagnitude), tree.real(0.1)
            ]),
            try tree.array([
                tree.bool(false), tree.date(-63_113_904_000), tree.date(625_945_468), tree.uid(0), tree.uid(UInt64(UInt32.max)),
                [UInt8](repeating: 0xAB, count: 100).withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) },
                tree.array([UInt32]()), tree.dict(keys: [UInt32](), values: [UInt32]())
            ])
        ]
        let root = try tree.dict(keys: keys, values: values)
        let xml = try XMLPlistWriter.write(tree, root: root)
        let (back, backRoot) = try XMLPlistReader.read(xml)
        XCTAssertEqual(value(back, backRoot), value(tree, root))
        XCTAssertEqual(
            value(back, backRoot),
            .dict([
                Entry("plain", .string("text")),
                Entry("markup", .string("<a href=\"x\">&amp;</a> 'q'")),
                Entry("cr", .string("line\r\nnext\rlast")),
                Entry("unicode", .string("café 日本 😀")),
                Entry("ints", .array([.int(.min), .int(.max), .unsigned(1 << 63), .unsigned(.max), .int(0)])),
                Entry(
                    "reals",
                    .array([
                        .real(-0.0), .real(.nan), .real(.infinity), .real(-.infinity), .real(1e-7),
                        .real(.greatestFiniteMagnitude), .real(.leastNonzeroMagnitude), .real(0.1)
                    ])),
                Entry(
                    "misc",
                    .array([
                        .bool(false), .date(-63_113_904_000), .date(625_945_468), .uid(0), .uid(UInt64(UInt32.max)),
                        .data([UInt8](repeating: 0xAB, count: 100)), .array([]), .dict([])
                    ]))
            ]))
    }

    /// The reader does not look for repeated keys: that check belongs to the binary plist the
    /// tree becomes (`KeyedArchive` reads XML that way), which refuses the dictionary.
    func testRepeatedKeysAreLeftToTheBinaryCheck() throws {
        let xml = plist("<dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict>")
        let (tree, root) = try XMLPlistReader.read(Array(xml.utf8))
        XCTAssertEqual(value(tree, root), .dict([Entry("a", .int(1)), Entry("a", .int(2))]))
        XCTAssertThrowsError(try BinaryPlist(bytes: BinaryPlistWriter.write(tree, root: root))) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .malformedPlist, "\(error)")
        }
    }

    /// Nesting is counted in open `<array>` and `<dict>` elements; `maximumNesting` of them
    /// read (an empty `<array/>` inside opens none), one more is refused where it opens.
    /// Read without recursion, so the depth costs no stack.
    func testNestingUpToTheLimitAndPastIt() throws {
        let limit = XMLPlistReader.maximumNesting
        XCTAssertEqual(limit, 500_000)
        let deepest = String(repeating: "<array>", count: limit) + "<array/>" + String(repeating: "</array>", count: limit)
        let (tree, root) = try XMLPlistReader.read(Array(deepest.utf8))
        var node = tree.node(root)
        var depth = 1
        while node.kind == .array, node.count == 1 {
            node = tree.node(tree.child(node, 0))
            depth += 1
        }
        XCTAssertEqual(node.kind, .array)
        XCTAssertEqual(node.count, 0)
        XCTAssertEqual(depth, limit + 1)

        let header = "<plist version=\"1.0\">"
        for opener in ["<array>", "<dict><key>k</key>"] {
            let tooDeep = header + String(repeating: opener, count: limit + 1)
            guard let error = refusal(Array(tooDeep.utf8)) else { return XCTFail("accepted") }
            XCTAssertEqual(error.kind, .limitExceeded, "\(error)")
            XCTAssertEqual(error.byteOffset, header.utf8.count + limit * opener.utf8.count, "\(error)")
            XCTAssertEqual(error.found, limit + 1)
            XCTAssertEqual(error.limit, limit)
        }
    }

    // MARK: Refusals

    func testDoctypeWithAnInternalSubsetIsRefused() {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
            <!ENTITY boom "boom boom">
            ]>
            <plist><string>&boom;</string></plist>
            """
        assertRefused(xml, at: offset(of: "[", in: xml), saying: "internal subset")
        let pub = #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "x.dtd" [<!ENTITY a "b">]><plist><true/></plist>"#
        assertRefused(pub, at: offset(of: "[", in: pub), saying: "internal subset")
        let unterminated = "<?xml version=\"1.0\"?><!DOCTYPE plist PUBLIC \"x\""
        assertRefused(unterminated, at: offset(of: "<!DOCTYPE", in: unterminated), saying: "unterminated DOCTYPE")
    }

    func testUndefinedAndInvalidReferencesAreRefused() {
        for reference in ["&boom;", "&nbsp;", "&AMP;", "&;", "&#0;", "&#xD800;", "&#xDFFF;", "&#x110000;", "&#X41;", "&#;", "&#x;", "&#65a;", "&#-65;"] {
            let xml = plist("<array><string>ok</string><string>a \(reference) b</string></array>")
            assertRefused(xml, at: offset(of: reference, in: xml), saying: "entity")
        }
        // In a key, and in other elements' text.
        let inKey = plist("<dict><key>x&foo;</key><true/></dict>")
        assertRefused(inKey, at: offset(of: "&foo;", in: inKey), saying: "&foo;")
        let inInteger = plist("<integer>1&two;</integer>")
        assertRefused(inInteger, at: offset(of: "&two;", in: inInteger), saying: "&two;")
        // No ';' within the longest reference.
        for text in ["&amp and more", "&#x1F600 and more", "tail &lt"] {
            let xml = plist("<string>\(text)</string>")
            assertRefused(xml, at: offset(of: "&", in: xml), saying: "unterminated entity reference")
        }
    }

    func testMismatchedClosingTagsAreRefused() {
        let cases: [(String, String, Int, String)] = [
            ("<array><string>a</string></dict>", "</dict>", 1, "unexpected closing tag </dict>"),
            ("<dict><key>k</key><array></dict></array>", "</dict>", 1, "unexpected closing tag </dict>"),
            ("<dict><key>k</key><string>v</key></dict>", "</key>", 2, "expected </string>"),
            ("<integer>1</real>", "</real>", 1, "expected </integer>"),
            ("<true></false>", "</false>", 1, "expected </true>"),
            ("<array></array></array>", "</array>", 2, "expected </plist>")
        ]
        assertEachRefused(cases)
        assertRefused("<plist></plist>", at: 7, saying: "unexpected closing tag </plist>")
        assertRefused("</array>", at: 0, saying: "unexpected closing tag </array>")
    }

    /// Cut anywhere, a document is refused as malformed, never read as something else and never
    /// a crash, with an offset inside what was given (cuts inside é and 😀 included).
    func testEveryTruncationIsRefused() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <!-- a comment -->
            <dict>
            \t<key>$archiver</key>
            \t<string>NSKeyedArchiver &amp; é</string>
            \t<key>uid</key>
            \t<dict><key>CF$UID</key><integer>1</integer></dict>
            \t<key>list</key>
            \t<array><true/><false></false><real>-1.5e3</real><date>2020-11-01T17:44:28Z</date><data>AAEC
            \tAwQ=</data><string><![CDATA[<x>]]></string><string>&#x1F600;😀</string><array/><dict/></array>
            </dict>
            </plist>
            """
        let bytes = Array(xml.utf8)
        XCTAssertEqual(
            try read(xml),
            .dict([
                Entry("$archiver", .string("NSKeyedArchiver & é")),
                Entry("uid", .uid(1)),
                Entry(
                    "list",
                    .array([
                        .bool(true), .bool(false), .real(-1500), .date(625_945_468), .data([0, 1, 2, 3, 4]),
                        .string("<x>"), .string("😀😀"), .array([]), .dict([])
                    ]))
            ]))
        var messages = Set<String>()
        for length in 0..<bytes.count {
            guard let error = refusal(Array(bytes[..<length])) else {
                XCTFail("the first \(length) bytes were read")
                continue
            }
            XCTAssertEqual(error.kind, .malformedPlist, "\(length): \(error)")
            guard let offset = error.byteOffset else {
                XCTFail("\(length): \(error) has no offset")
                continue
            }
            XCTAssertTrue((0...length).contains(offset), "\(length): \(error)")
            messages.insert(String(error.message.prefix(14)))
        }
        // The cuts reach the reader's different checks, not one of them.
        XCTAssertGreaterThanOrEqual(messages.count, 10, "\(messages.sorted())")
    }

    func testKeysWithoutValuesAndValuesWithoutKeysAreRefused() {
        let cases: [(String, String, Int, String)] = [
            ("<dict><key>a</key></dict>", "</dict>", 1, "ends after a <key> without a value"),
            ("<dict><key>a</key><true/><key>b</key></dict>", "</dict>", 1, "ends after a <key> without a value"),
            ("<dict><key>a</key><key>b</key><true/></dict>", "<key>", 2, "has a <key> where a value belongs"),
            ("<dict><string>v</string></dict>", "<string>", 1, "has a value where a <key> belongs"),
            ("<dict><key>a</key><true/><false/></dict>", "<false/>", 1, "has a value where a <key> belongs"),
            ("<array><key>a</key></array>", "<key>", 1, "<key> inside an <array>"),
            ("<key>a</key>", "<key>", 1, "<key> outside a <dict>")
        ]
        assertEachRefused(cases)
    }

    func testInvalidBase64IsRefusedAtItsElement() {
        for text in ["!!!!", "AAE", "AAECA", "A===", "AA=A", "AA==AA==", "AAF=", "AB==", "AA-_"] {
            let xml = plist("<array><data>AAEC</data><data>\(text)</data></array>")
            assertRefused(xml, at: offset(of: "<data>", in: xml, occurrence: 2), saying: "invalid base64")
        }
    }

    func testInvalidIntegersAreRefusedAtTheirElement() {
        for text in ["", " ", "12a", "1.5", "1e3", "0x", "0xG", "1 2", "--1", "18446744073709551616", "-9223372036854775809", "٣"] {
            let xml = plist("<array><integer>1</integer><integer>\(text)</integer></array>")
            assertRefused(xml, at: offset(of: "<integer>", in: xml, occurrence: 2), saying: "invalid <integer>")
        }
        let selfClosing = plist("<array><integer/></array>")
        assertRefused(selfClosing, at: offset(of: "<integer/>", in: selfClosing), saying: "invalid <integer>")
    }

    func testInvalidRealsAndDatesAreRefusedAtTheirElement() {
        for text in ["", "abc", "1.5.5", "1e", "1,5", "infinite", "- 1"] {
            let xml = plist("<array><real>1</real><real>\(text)</real></array>")
            assertRefused(xml, at: offset(of: "<real>", in: xml, occurrence: 2), saying: "invalid <real>")
        }
        let dates = [
            "", "2020-11-01", "2020-11-01T17:44:28", "2020-11-01 17:44:28Z", "0000-01-01T00:00:00Z",
            "2020-13-01T00:00:00Z", "2001-02-29T00:00:00Z", "2020-11-01T24:00:00Z", "2020-11-01T17:60:00Z",
            "2020-11-01T17:44:28.Z", "2020-11-01T17:44:28.1234567890Z", "2020-11-01T17:44:28+00:00"
        ]
        for text in dates {
            let xml = plist("<array><date>2001-01-01T00:00:00Z</date><date>\(text)</date></array>")
            assertRefused(xml, at: offset(of: "<date>", in: xml, occurrence: 2), saying: "invalid <date>")
        }
    }

    func testContentAfterTheTopValueIsRefused() {
        let afterPlist = plist("<true/>") + "x"
        assertRefused(afterPlist, at: afterPlist.utf8.count - 1, saying: "unexpected content after the property list")
        let secondPlist = plist("<true/>") + "<plist><true/></plist>"
        assertRefused(secondPlist, at: offset(of: "<plist>", in: secondPlist), saying: "unexpected content after the property list")
        let twoValues = "<true/>\n<false/>"
        assertRefused(twoValues, at: offset(of: "<false/>", in: twoValues), saying: "unexpected content after the property list")
        let twoInPlist = plist("<true/><false/>")
        assertRefused(twoInPlist, at: offset(of: "<false/>", in: twoInPlist), saying: "expected </plist>")
        let text = "<string>s</string> trailing"
        assertRefused(text, at: offset(of: "trailing", in: text), saying: "unexpected content after the property list")
    }

    func testOtherMalformedDocumentsAreRefusedWhereTheyBreak() {
        // Not UTF-8: the first bad byte (a BOM counts in offsets).
        assertRefused(bytes: Array("<string>ab".utf8) + [0xC3, 0x28] + Array("</string>".utf8), at: 10, saying: "not valid UTF-8")
        assertRefused(bytes: Array("<string>".utf8) + [0xED, 0xA0, 0x80] + Array("</string>".utf8), at: 8, saying: "not valid UTF-8")
        assertRefused(bytes: [0xEF, 0xBB, 0xBF] + Array("<foo/>".utf8), at: 3, saying: "unknown element <foo>")
        let cases: [(String, String, String)] = [
            ("", "", "unexpected end of XML inside a value"),
            ("  \n\t", "", "unexpected end of XML inside a value"),
            ("<plist><array><foo>1</foo></array></plist>", "<foo>", "unknown element <foo>"),
            ("<plist><String>a</String></plist>", "<String>", "unknown element <String>"),
            ("<plist><array>junk<true/></array></plist>", "junk", "expected an element"),
            ("<plist><array>< true/></array></plist>", "< true", "malformed tag"),
            ("<plist><array><?pi?></array></plist>", "<?pi", "malformed tag"),
            ("<plist><true>x</true></plist>", "x</true>", "expected an element"),
            ("<plist><array", "<array", "unterminated tag <array"),
            ("<plist><array><!-- never closed", "<!--", "unterminated comment"),
            ("<?xml version=\"1.0\"", "<?xml", "unterminated processing instruction"),
            ("<plist><string><![CDATA[open", "<![CDATA[", "unterminated CDATA section")
        ]
        for (xml, needle, fragment) in cases {
            assertRefused(xml, at: needle.isEmpty ? xml.utf8.count : offset(of: needle, in: xml), saying: fragment)
        }
        // An empty <plist/> is reported just past the element.
        assertRefused("<plist version=\"1.0\"/>", at: 22, saying: "empty <plist/> element")
        // Text that runs to the end: refused at the end.
        for xml in ["<plist><string>abc", "<plist><key>k", "<plist><integer>1"] {
            assertRefused(xml, at: xml.utf8.count, saying: "unterminated <")
        }
    }

    // MARK: What a value sizes

    /// A `CF$UID` value indexes the tree's direct table of UIDs only while it is near the
    /// nodes read: 16,777,215 in a 70-byte document is hashed, not a 64 MiB table.
    func testALargeUIDInASmallDocumentKeepsNoTableOfItsSize() throws {
        let xml = "<plist><dict><key>CF$UID</key><integer>16777215</integer></dict></plist>"
        let before = residentBytes()
        let (tree, root) = try XMLPlistReader.read(Array(xml.utf8))
        let kept = residentBytes() - before
        withExtendedLifetime(tree) {}
        XCTAssertEqual(value(tree, root), .uid(16_777_215))
        XCTAssertLessThan(kept, 16 << 20, "bytes touched for one UID")
    }
}
