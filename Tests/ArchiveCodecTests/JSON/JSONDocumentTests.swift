import TestSupport
import XCTest

@testable import ArchiveCodec

/// `JSONDocument` keeps the source and reads scalars from it when reached: escapes, string
/// ends, number ends and error locations must come out the same wherever a value sits.
final class JSONDocumentTests: XCTestCase {
    private func archive(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
    }

    func testEscapedTextEncodesLikeItsPlainForm() throws {
        let pairs = [
            (
                #"{"$class":"Pl\u0061yer","n\u0061me":"Ann\n\"Q\" \\ \/","$id":"p\u00e9","me":{"$ref":"pé"}}"#,
                "{\"$class\":\"Player\",\"name\":\"Ann\\n\\\"Q\\\" \\\\ /\",\"$id\":\"pé\",\"me\":{\"$ref\":\"pé\"}}"
            ),
            // `$id` written with an escape is still found before encoding starts.
            (#"{"$class":"A","\u0024id":7,"self":{"$ref":7}}"#, #"{"$class":"A","$id":7,"self":{"$ref":7}}"#),
            (#"{"k\ud83d\ude00":["\u0000","\t\u001f",{"$string":"\ud834\udd1e"}]}"#, "{\"k😀\":[\"\\u0000\",\"\\t\\u001f\",{\"$string\":\"𝄞\"}]}"),
            (
                " \n{ \"a\" : [ 1 , -2.5e3 , 18446744073709551615 , true , null ] , \"b\" : { } , \"c\" : [ ] } \t",
                #"{"a":[1,-2500.0,18446744073709551615,true,null],"b":{},"c":[]}"#
            )
        ]
        for (escaped, plain) in pairs {
            XCTAssertEqual(try archive(escaped), try archive(plain), escaped)
        }
    }

    /// `meta(of:)` reads an object's members only up to its last `$` key, as the parser
    /// counted them (past 254 members it reads them all): a mapping key at any position,
    /// written with an escape or not, counts as if it came first, and one the mapping does
    /// not know, or a wrapper beside data keys, is refused wherever it sits.
    /// The text lent with a state to change (`withString(_:updating:_:)`) is the text
    /// `withString` lends, escapes undone, and the changes stay.
    func testTextLentWithAStateIsTheString() throws {
        let document = try JSONDocument(parsing: Array(#"["plain", "t\u00e9\n", ""]"#.utf8))
        var seen: [[UInt8]] = []
        for value in document.elements(of: document.root) {
            let count = document.withString(value, updating: &seen) { (text, seen) -> Int in
                seen.append(Array(text))
                return text.count
            }
            XCTAssertEqual(count, document.withString(value) { $0.count })
        }
        XCTAssertEqual(seen, [Array("plain".utf8), Array("t\u{e9}\n".utf8), []])
    }

    func testMappingKeysCountAtAnyPosition() throws {
        let data = (0..<400).map { "\"d\($0)\":\($0)" }
        func object(_ extra: String, at position: Int, count: Int = 400) -> String {
            var members = Array(data[0..<count])
            members.insert(extra, at: position)
            return "{\"$top\":{\"root\":{" + members.joined(separator: ",") + "}}}"
        }
        let expected = try archive(object(#""$class":"Team""#, at: 0))
        for position in [1, 2, 100, 253, 254, 255, 256, 399, 400] {
            XCTAssertEqual(try archive(object(#""$class":"Team""#, at: position)), expected, "$class at \(position)")
            XCTAssertEqual(try archive(object(#""\u0024class":"Team""#, at: position)), expected, "escaped $class at \(position)")
            XCTAssertThrowsError(try archive(object(#""$clas":"Team""#, at: position)), "$clas at \(position)") { error in
                XCTAssertTrue("\(error)".contains("unknown key $clas"), "\(error)")
            }
            XCTAssertThrowsError(try archive(object(#""$array":[]"#, at: position)), "$array at \(position)") { error in
                XCTAssertTrue("\(error)".contains("hold no data keys"), "\(error)")
            }
        }
    }

    /// `stringEquals` compares the text a string stands for, whether or not it is spelled
    /// with escapes, and is false for every value that is no string.
    func testStringEqualsComparesTheTextNotItsSpelling() throws {
        let document = try JSONDocument(parsing: Array(#"["$class", "$cl\u0061ss", "", "$clas", "$classes", "$clasS", 6, null, {"$class": 1}, ["$class"], "\u0024class"]"#.utf8))
        let elements = document.elements(of: document.root)
        XCTAssertEqual(elements.map { document.stringEquals($0, "$class") }, [true, true, false, false, false, false, false, false, false, false, true])
        XCTAssertEqual(elements.map { document.stringEquals($0, "") }, [false, false, true, false, false, false, false, false, false, false, false])
    }

    /// Decimals of up to 15 digits without exponent are read by one division; every real
    /// must read as `Double(String)` reads it, bit for bit: each digit count and point
    /// position, signs, zeros, the 15/16-digit boundary, exponents (the other path).
    func testRealsReadAsDoubleParsesThem() throws {
        var texts = [
            "0.0", "-0.0", "0.1", "0.3", "1.5", "-2.25", "50.1", "9007199254740.993", "0.000000000000001",
            "999999999999999.9", "123456789012345.6", "1234567890123456.7", "0.1e1", "1.5E-3", "-7.0e+2",
            "0.30000000000000004", "100.000000000000"
        ]
        var generator = TestRandom(for: self)
        for _ in 0..<50_000 {
            let digits = Int.random(in: 1...17, using: &generator)
            let point = Int.random(in: 1..<max(digits, 2), using: &generator)
            var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            if text.count > 1, text.first == "0", point > 1 {
                text.removeFirst()
                text = "1" + text
            }
            let index = text.index(text.startIndex, offsetBy: min(point, text.count))
            text.insert(".", at: index)
            if text.last == "." { text += "5" }
            texts.append(Bool.random(using: &generator) ? "-" + text : text)
        }
        for text in texts {
            let bytes = Array(text.utf8)
            let (number, end) = try bytes.withUnsafeBufferPointer { try JSONNumber.read($0, at: 0) }
            XCTAssertEqual(end, bytes.count, text)
            guard case .real(let value) = number else { return XCTFail("\(text) did not read as a real") }
            XCTAssertEqual(value.bitPattern, Double(text)!.bitPattern, text)
        }
    }

    /// Integers are read while their digits are scanned: every digit count up to past
    /// UInt64's, both signs, the range bounds, and what follows (end, a point, an exponent,
    /// a separator) must read as Swift's integer parsing says, or be refused past the range.
    func testIntegersReadAsSwiftParsesThem() throws {
        var texts = [
            "0", "-0", "9", "-9", "999999999999999999", "-999999999999999999", "1000000000000000000",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "12,", "12]", "12.5", "12e3", "12E-1"
        ]
        var generator = TestRandom(for: self)
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...21, using: &generator)
            var text = String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<count { text += String(Int.random(in: 0...9, using: &generator)) }
            texts.append(Bool.random(using: &generator) ? "-" + text : text)
        }
        for text in texts {
            let bytes = Array(text.utf8)
            let digits = text.prefix { $0 == "-" || $0.isNumber }
            let read: (number: JSONNumber, end: Int)?
            do {
                read = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) in try JSONNumber.read(buffer, at: 0) }
            } catch {
                read = nil
            }
            if text.dropFirst(digits.count).first.map({ ".eE".contains($0) }) == true {
                let real = Double(String(text.prefix { !",]".contains($0) }))!
                XCTAssertEqual(read?.number, .real(real), text)
            } else if let value = Int64(digits) {
                XCTAssertEqual(read?.number, .signed(value), text)
                XCTAssertEqual(read?.end, digits.utf8.count, text)
            } else if let value = UInt64(digits) {
                XCTAssertEqual(read?.number, .unsigned(value), text)
                XCTAssertEqual(read?.end, digits.utf8.count, text)
            } else {
                XCTAssertNil(read, "\(text) should be refused")
            }
        }
    }

    /// Malformed numbers are refused with the same message, at the number's first byte, in
    /// any position (the common integers are read by a shorter path that leaves every other
    /// text to the full one); a leading zero ends an integer where the next byte then fails.
    func testMalformedNumbersAreRefusedAtTheirStart() {
        let cases: [(String, String)] = [
            ("-", "invalid number"), ("-a", "invalid number"), ("--1", "invalid number"), ("1.", "digits must follow '.'"),
            ("-1.x", "digits must follow '.'"), ("1e", "digits must follow the exponent"), ("12E+", "digits must follow the exponent"),
            ("0.e1", "digits must follow '.'"), ("1e400", "outside the range of a double"),
            ("-9223372036854775809", "outside −2^63 … 2^64−1"), ("18446744073709551616", "outside −2^63 … 2^64−1")
        ]
        for (number, message) in cases {
            for json in [number, "[" + number + "]", "{\"k\":  " + number + "}"] {
                let offset = json.utf8.count - number.utf8.count - (json.hasPrefix("[") || json.hasPrefix("{") ? 1 : 0)
                XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)), json) { error in
                    let error = error as! CodecError
                    XCTAssertTrue(error.message.contains(message), "\(json): \(error)")
                    XCTAssertEqual(error.byteOffset, offset, "\(json): \(error)")
                }
            }
        }
        for (json, offset) in [("[01]", 2), ("[-01]", 3), ("[00]", 2), ("[-0 1]", 4), ("[123456789012345678 9]", 20)] {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)), json) { error in
                let error = error as! CodecError
                XCTAssertTrue(error.message.contains("expected ',' or ']'"), "\(json): \(error)")
                XCTAssertEqual(error.byteOffset, offset, "\(json): \(error)")
            }
        }
        for (text, value) in [("0", Int64(0)), ("-0", 0), ("7", 7), ("-123456789012345678", -123_456_789_012_345_678)] {
            let bytes = Array((text + ",").utf8)
            let read = try? bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) in try JSONNumber.read(buffer, at: 0) }
            XCTAssertEqual(read?.number, .signed(value), text)
            XCTAssertEqual(read?.end, text.utf8.count, text)
        }
    }

    /// Walking a document finds where each scalar ends from the bits the parser set
    /// (`scalarEnds`): scalars of every length starting at every byte of a 64-bit word, and
    /// strings with escapes whose opening quote is a word's last byte, read back as written.
    func testScalarsEndWhereTheyEndAtEveryOffset() throws {
        let long = String(repeating: "w", count: 70)
        // Each scalar's JSON text and, for strings, its text once unescaped.
        let scalars: [(json: String, text: String?)] = [
            ("1", nil), ("-7", nil), ("12.5", nil), ("true", nil), ("false", nil), ("null", nil), ("12345678901234567890", nil),
            (#""""#, ""), (#""a""#, "a"), (#""\n""#, "\n"), (#""a\"b""#, "a\"b"), (#""\u00e9x""#, "éx"), ("\"" + long + "\"", long),
            ("\"" + String(repeating: #"\t"#, count: 40) + "\"", String(repeating: "\t", count: 40))
        ]
        for padding in 0..<66 {
            let memberTexts = scalars.enumerated().map { "\"k\($0.offset)\":" + $0.element.json }
            let json = String(repeating: " ", count: padding) + "[" + scalars.map(\.json).joined(separator: ",") + ",{" + memberTexts.joined(separator: ", ") + "}]"
            let bytes = Array(json.utf8)
            let document = try JSONDocument(parsing: bytes)
            let elements = document.elements(of: document.root)
            XCTAssertEqual(elements.count, scalars.count + 1)
            let members = document.members(of: elements[scalars.count])
            for (position, scalar) in scalars.enumerated() {
                for value in [elements[position], members[position].value] {
                    XCTAssertEqual(String(decoding: bytes[document.sourceRange(of: value)], as: UTF8.self), scalar.json, "padding \(padding)")
                    if let text = scalar.text { XCTAssertEqual(document.stringValue(value), text, "padding \(padding)") }
                }
                XCTAssertEqual(document.stringValue(members[position].key), "k\(position)", "padding \(padding)")
            }
        }
    }

    /// `withBase64Bytes` reads into a buffer what `base64Bytes` reads into an array, and
    /// refuses what it refuses with the same error: data on the stack and on the heap (around
    /// a kilobyte), escaped text, bad characters and padding, values that are no string.
    func testBase64BytesReadInPlaceAsInAnArray() throws {
        var generator = TestRandom(for: self)
        var values = [#""""#, #""AA==""#, #""YWJ""#, #""YW!j""#, #""SGVsbG==""#, #""YW\/j""#, #""YW\u004aj""#, "5", "{}"]
        for count in [1, 2, 3, 700, 1022, 1023, 1024, 1025, 1026, 3000] {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var text: [UInt8] = []
            bytes.withUnsafeBufferPointer { Base64.encode($0, into: &text) }
            values.append("\"" + String(decoding: text, as: UTF8.self) + "\"")
            let escaped = text.flatMap { $0 == UInt8(ascii: "/") ? [UInt8(ascii: "\\"), $0] : [$0] }
            values.append("\"" + String(decoding: escaped, as: UTF8.self) + "\"")
            values.append("\"" + String(decoding: text.dropLast(), as: UTF8.self) + "\"")
        }
        for value in values {
            let document = try JSONDocument(parsing: Array(("[" + value + "]").utf8))
            let element = document.elements(of: document.root)[0]
            let inArray: Result<[UInt8], CodecError> = Result { () throws(CodecError) in try document.base64Bytes(element) }
            let inPlace: Result<[UInt8], CodecError> = Result { () throws(CodecError) in try document.withBase64Bytes(element) { Array($0) } }
            switch (inArray, inPlace) {
            case (.success(let expected), .success(let read)): XCTAssertEqual(read, expected, value)
            case (.failure(let expected), .failure(let error)):
                XCTAssertEqual(error.message, expected.message, value)
                XCTAssertEqual(error.byteOffset, expected.byteOffset, value)
            default: XCTFail("\(value): \(inArray) against \(inPlace)")
            }
        }
    }

    func testScalarDocuments() throws {
        for json in ["5", " -12 ", "\"text\"", "\"t\\u00e9xt\"", "true", "false", "1.5", "18446744073709551615"] {
            let archive = try KeyedArchive(parsing: archive(json))
            let back = try archive.json(view: .readable, pretty: false)
            XCTAssertEqual(try archive.difference(from: KeyedArchive(parsing: JSONDocument(parsing: back).archive(format: .binary))), nil, json)
        }
    }

    func testErrorsPointAtTheValueAfterTrickyStrings() throws {
        let json = #"{"a\"]},[":["x\\",{"\\":"}"},{"$class":5}]}"#
        let bytes = Array(json.utf8)
        XCTAssertThrowsError(try JSONDocument(parsing: bytes).archive(format: .binary)) { error in
            let error = error as! CodecError
            XCTAssertEqual(error.byteOffset, bytes.firstIndex(of: UInt8(ascii: "5")), "\(error)")
            XCTAssertEqual(error.jsonPath, #"$["a"]},["][2].$class"#, "\(error)")
        }
    }

    func testRepeatedKeysFoundInEveryObjectSize() {
        let wide = (0..<40).map { "\"k\($0)\":0" }
        for json in [
            "{\"a\":1,\"\\u0061\":2}", "[{\"x\":{}},{\"b\":1,\"c\":{\"b\":2},\"b\":3}]",
            "{" + (wide + ["\"k\\u0031\":1"]).joined(separator: ",") + "}"
        ] {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)), json) { error in
                XCTAssertTrue("\(error)".contains("repeats the key"), "\(error)")
            }
        }
        // Distinct keys written with escapes are distinct, at every object size.
        XCTAssertNoThrow(try JSONDocument(parsing: Array(#"{"\u006b0":0,"\u006b1":1,"k\u0032":2,"k":3}"#.utf8)))
        XCTAssertNoThrow(try JSONDocument(parsing: Array(("{" + (0..<40).map { "\"\\u006b\($0)\":0" }.joined(separator: ",") + "}").utf8)))
        // The same key in sibling and nested objects is fine.
        XCTAssertNoThrow(try JSONDocument(parsing: Array(("{" + wide.joined(separator: ",") + ",\"n\":{" + wide.joined(separator: ",") + "}}").utf8)))
    }

    func testMalformedStringsAreRefusedWhereTheyBreak() {
        let cases: [(String, String, Int)] = [
            ("[\"abcdefghij\u{01}\"]", "control character", 12),
            ("[\"abcdefgh\\x\"]", "invalid escape", 10),
            ("[\"abcdefghijklmnop", "unterminated string", 1),
            ("[\"\\ud800\"]", "unpaired high surrogate", 2),
            ("[\"\\udc00\"]", "unpaired low surrogate", 2)
        ]
        for (json, message, offset) in cases {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)), json) { error in
                let error = error as! CodecError
                XCTAssertTrue(error.message.contains(message), "\(json): \(error)")
                XCTAssertEqual(error.byteOffset, offset, "\(json): \(error)")
            }
        }
        var invalidUTF8 = Array("[\"abcdefghijk".utf8)
        invalidUTF8 += [0xC3, 0x28, 0x22, 0x5D]
        XCTAssertThrowsError(try JSONDocument(parsing: invalidUTF8)) { error in
            XCTAssertEqual((error as! CodecError).byteOffset, 13)
        }
    }
}
