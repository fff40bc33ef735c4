import XCTest

@testable import ArchiveCodec

/// Streams built by hand, checked against bytes worked out from the format (not from the
/// reader): every type code, both byte orders, shared strings and back-references, a cycle,
/// nil values; then read back to the same model and written again to the same bytes.
final class TypedStreamBuilderTests: XCTestCase {
    /// One stream holding every type code, with the numbering of both tables in play:
    /// shared strings 0 "cCsSiIlLqQB", 1 "ffdd", 2 "+*%:", 3 "x", 4 "@", 5 "Foo", 6 "NSObject",
    /// 7 "#@", 8 "[3c]{P=ii}^i[2s]!"; object table 0 C string "x", 1 object, 2 class Foo,
    /// 3 class NSObject.
    func buildEveryType(_ order: TypedStream.ByteOrder) throws -> TypedStream {
        var builder = TypedStreamBuilder(byteOrder: order)
        try builder.beginGroup("cCsSiIlLqQB")
        try builder.integer(-1)
        try builder.unsigned(255)
        try builder.integer(-32768)
        try builder.unsigned(65535)
        try builder.integer(100_000)
        try builder.unsigned(4_294_967_295)
        try builder.integer(-111)
        try builder.unsigned(127)
        try builder.integer(1 << 40)
        try builder.unsigned(UInt64.max - 2)
        try builder.unsigned(1)
        try builder.end()

        try builder.beginGroup("ffdd")
        try builder.float(1.5)
        try builder.float(2)
        try builder.double(-0.0)
        try builder.double(1e10)
        try builder.end()

        try builder.beginGroup("+*%:")
        try builder.byteString(Array("ab".utf8))
        try builder.cString(Array("x".utf8))
        try builder.atom(nil)
        try builder.selector(Array("x".utf8))
        try builder.end()

        let root = try builder.defineClass("NSObject")
        let foo = try builder.defineClass("Foo", version: 1, superclass: root)
        try builder.beginGroup("@")
        let object = try builder.beginObject(class: foo)
        try builder.beginGroup("@")
        try builder.object(object)  // itself: a cycle
        try builder.end()
        try builder.endObject()
        try builder.end()

        try builder.beginGroup("#@")
        try builder.classReference(root)
        try builder.object(nil)
        try builder.end()

        try builder.beginGroup("[3c]{P=ii}^i[2s]!")
        try builder.byteArray(Array("abc".utf8))
        try builder.beginComposite()
        try builder.integer(1)
        try builder.integer(2)
        try builder.end()
        try builder.beginComposite()
        try builder.integer(7)
        try builder.end()
        try builder.beginComposite()
        try builder.integer(1)
        try builder.integer(2)
        try builder.end()
        try builder.ignored()
        try builder.end()

        try builder.beginGroup("@")
        try builder.object(object)  // a back-reference from the top level
        try builder.end()
        return try builder.finish()
    }

    func everyTypeBytes(_ order: TypedStream.ByteOrder) -> [UInt8] {
        let little = order == .little
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        var bytes: [UInt8] = [4, 11] + ascii(little ? "streamtyped" : "typedstream") + (little ? [0x81, 0xE8, 0x03] : [0x81, 0x03, 0xE8])
        bytes += [0x84, 11] + ascii("cCsSiIlLqQB")
        bytes += [0xFF, 0xFF]  // c -1, C 255 (raw bytes)
        bytes += little ? [0x81, 0x00, 0x80] : [0x81, 0x80, 0x00]  // s -32768: two bytes in a short
        bytes += [0xFF]  // S 65535 is the short -1
        bytes += little ? [0x82, 0xA0, 0x86, 0x01, 0x00] : [0x82, 0x00, 0x01, 0x86, 0xA0]  // i 100000
        bytes += [0xFF]  // I 2^32 - 1 is the int -1
        bytes += little ? [0x81, 0x91, 0xFF] : [0x81, 0xFF, 0x91]  // l -111, just below one byte's reach
        bytes += [0x7F]  // L 127
        bytes += little ? [0x87, 0, 0, 0, 0, 0x00, 0x01, 0, 0] : [0x87, 0, 0, 0x01, 0x00, 0, 0, 0, 0]  // q 2^40
        bytes += [0xFD, 0x01]  // Q 2^64 - 3 is the long long -3; B 1
        bytes += [0x84, 4] + ascii("ffdd")
        bytes += [0x83] + (little ? [0x00, 0x00, 0xC0, 0x3F] : [0x3F, 0xC0, 0x00, 0x00])  // 1.5
        bytes += [0x02]  // 2.0, whole: an integer
        bytes += [0x83] + (little ? [0, 0, 0, 0, 0, 0, 0, 0x80] : [0x80, 0, 0, 0, 0, 0, 0, 0])  // -0.0 keeps its sign
        bytes += [0x83] + (little ? [0x00, 0x00, 0x00, 0x20, 0x5F, 0xA0, 0x02, 0x42] : [0x42, 0x02, 0xA0, 0x5F, 0x20, 0x00, 0x00, 0x00])  // 1e10, past 32 bits
        bytes += [0x84, 4] + ascii("+*%:")
        bytes += [0x02] + ascii("ab")  // + counted bytes
        bytes += [0x84, 0x84, 1] + ascii("x")  // * new C string, new shared string 3
        bytes += [0x85]  // % nil
        bytes += [0x95]  // : shared string 3 again
        bytes += [0x84, 1] + ascii("@")
        bytes += [0x84]  // a new object (object table 1)
        bytes += [0x84, 0x84, 3] + ascii("Foo") + [0x01]  // new class Foo v1 (2)
        bytes += [0x84, 0x84, 8] + ascii("NSObject") + [0x00, 0x85]  // new class NSObject v0 (3), no superclass
        bytes += [0x96, 0x93, 0x86]  // group "@" (string 4) holding object 1, itself; end of object
        bytes += [0x84, 2] + ascii("#@") + [0x95, 0x85]  // class 3; nil object
        bytes += [0x84, 17] + ascii("[3c]{P=ii}^i[2s]!")
        bytes += ascii("abc") + [0x01, 0x02, 0x07, 0x01, 0x02]  // bytes, struct, pointee, shorts; ! takes none
        bytes += [0x96, 0x93]  // group "@" holding object 1
        return bytes
    }

    func testEveryTypeCodeInBothByteOrders() throws {
        for order in [TypedStream.ByteOrder.little, .big] {
            let built = try buildEveryType(order)
            let bytes = try TypedStreamWriter.write(built)
            XCTAssertEqual(bytes, everyTypeBytes(order), "\(order)")
            let read = try TypedStreamReader.read(bytes)
            XCTAssertEqual(TypedStreamEventText.lines(read), TypedStreamEventText.lines(built), "\(order)")
            XCTAssertEqual(try TypedStreamWriter.write(read), bytes, "\(order)")
        }
    }

    func testTheModelSaysWhatEachValueIs() throws {
        let stream = try TypedStreamReader.read(everyTypeBytes(.big))
        let contents = stream.values.indices.map { stream.content(of: $0) }
        XCTAssertEqual(
            contents.prefix(11),
            [
                .signed(-1), .unsigned(255), .signed(-32768), .unsigned(65535), .signed(100_000), .unsigned(4_294_967_295), .signed(-111), .unsigned(127), .signed(1 << 40), .unsigned(UInt64.max - 2),
                .unsigned(1)
            ])
        XCTAssertEqual(contents[11], .float(bits: Float(1.5).bitPattern))
        XCTAssertEqual(contents[13], .double(bits: (-0.0 as Double).bitPattern))
        XCTAssertEqual(stream.values[12].form, .canonical, "2.0 as an integer is Apple's spelling")
        XCTAssertEqual(contents[17], .atom(nil))
        guard case .cString(let cString?) = contents[16], case .selector(let selector?) = contents[18] else { return XCTFail("\(contents[16...18])") }
        XCTAssertEqual(Int(stream.cStrings[cString]), selector, "the C string's text is the shared string the selector refers back to")
        XCTAssertEqual(stream.classes.indices.map { String(decoding: stream.name(ofClass: $0), as: UTF8.self) }, ["Foo", "NSObject"])
        XCTAssertEqual(Array(stream.classLinks(0)), [0, 1])
        XCTAssertEqual(stream.classes[0].version, 1)
        let object = stream.objects[0]
        let inside = Int(object.firstValue)
        XCTAssertEqual(stream.content(of: inside), .object(0), "the object holds itself")
        XCTAssertTrue(stream.isBackReference(inside))
        let occurrences = stream.values.indices.filter { stream.values[$0].isFirstOccurrence }
        XCTAssertEqual(occurrences.map { stream.content(of: $0) }, [.object(0)], "one value spells the object: its first occurrence")
        XCTAssertFalse(stream.isBackReference(occurrences[0]))
        XCTAssertLessThan(occurrences[0], inside, "the object's first occurrence comes before the value inside it")
        XCTAssertTrue(stream.isBackReference(stream.values.count - 1), "the last top-level group refers back")
        let composite = stream.values(ofGroup: Array(stream.topLevelGroups).dropLast().last!)
        XCTAssertEqual(String(decoding: stream.encoding(of: composite.lowerBound + 1), as: UTF8.self), "{P=ii}")
        XCTAssertEqual(stream.structName(of: composite.lowerBound + 1).map { String(decoding: $0, as: UTF8.self) }, "P")
        guard case .pointer(let pointee) = stream.content(of: composite.lowerBound + 2) else { return XCTFail("not a pointer") }
        XCTAssertEqual(stream.content(of: pointee), .signed(7))
        XCTAssertEqual(stream.content(of: composite.lowerBound + 4), .ignored)
    }

    func testArraysOfCharsHoldBytesAndArraysOfBoolsHoldValues() throws {
        var builder = TypedStreamBuilder(byteOrder: .big)
        try builder.beginGroup("[2C][2B]")
        try builder.byteArray([0xFE, 0x01])
        try builder.beginComposite()
        try builder.unsigned(1)
        try builder.unsigned(0)
        try builder.end()
        try builder.end()
        let bytes = try TypedStreamWriter.write(try builder.finish())
        XCTAssertEqual(Array(bytes.dropFirst(16)), [0x84, 8] + Array("[2C][2B]".utf8) + [0xFE, 0x01, 0x01, 0x00])
        let stream = try TypedStreamReader.read(bytes)
        guard case .byteArray(let span) = stream.content(of: 0), case .array(let bools) = stream.content(of: 1) else { return XCTFail("\(stream.values)") }
        XCTAssertEqual(Array(stream.bytes(span)), [0xFE, 0x01])
        XCTAssertEqual(bools.map { stream.content(of: $0) }, [.unsigned(1), .unsigned(0)])
    }

    func testSpellingsOtherThanApplesAreKeptAndWrittenBack() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        try builder.beginGroup("iqfd")
        try builder.integer(5, form: .int32)  // Apple: one byte
        try builder.integer(-32768, form: .int16)  // Apple (NeXT's rule): four bytes in an int
        try builder.float(1, form: .real)  // Apple: the integer 1
        try builder.double(3, form: .int16)  // Apple: one byte
        try builder.end()
        let bytes = try TypedStreamWriter.write(try builder.finish())
        let values: [UInt8] = [0x82, 5, 0, 0, 0, 0x81, 0x00, 0x80, 0x83, 0x00, 0x00, 0x80, 0x3F, 0x81, 0x03, 0x00]
        XCTAssertEqual(Array(bytes.suffix(values.count)), values)
        let read = try TypedStreamReader.read(bytes)
        XCTAssertEqual(read.values.map(\.form), [.int32, .int16, .real, .int16])
        XCTAssertEqual(try TypedStreamWriter.write(read), bytes)
    }

    /// A `q`, `d` and `+` value is its spelling in the storage (`TypedStream.Value.word`): a
    /// stream read points into its input, a builder writes the spelling there; both give the
    /// same contents back, in either byte order.
    func testWideValuesAreTheirSpellingsInTheStorage() throws {
        for order in [TypedStream.ByteOrder.little, .big] {
            var builder = TypedStreamBuilder(byteOrder: order)
            try builder.beginGroup("qQdd+q+")
            try builder.integer(-(1 << 40))
            try builder.unsigned(.max)
            try builder.double(0.1)
            try builder.double(-7)  // Apple: the integer -7, one byte
            try builder.byteString(Array(repeating: 0x61, count: 300))  // a two-byte length
            try builder.integer(3)
            try builder.byteString([])
            try builder.end()
            let built = try builder.finish()
            let bytes = try TypedStreamWriter.write(built)
            let read = try TypedStreamReader.read(bytes)
            for stream in [built, read] {
                let contents = (0..<7).map { stream.content(of: $0) }
                XCTAssertEqual(contents[0], .signed(-(1 << 40)), "\(order)")
                XCTAssertEqual(contents[1], .unsigned(.max))
                XCTAssertEqual(contents[2], .double(bits: (0.1).bitPattern))
                XCTAssertEqual(contents[3], .double(bits: (-7.0).bitPattern))
                XCTAssertEqual(contents[5], .signed(3))
                guard case .byteString(let long?) = contents[4], case .byteString(let empty?) = contents[6] else { return XCTFail("\(contents)") }
                XCTAssertEqual(Array(stream.bytes(long)), Array(repeating: 0x61, count: 300))
                XCTAssertEqual(empty.count, 0)
            }
            // The read stream's words are offsets of the values' first bytes in its input.
            let firstValue = bytes.count - (9 + 1 + 9 + 1 + 303 + 1 + 1)  // Q.max is -1: one byte
            XCTAssertEqual(read.values[0].word, UInt32(firstValue))
            XCTAssertEqual(bytes[Int(read.values[4].word)], 0x81, "a '+' value's word is its length's tag")
            XCTAssertEqual(try TypedStreamWriter.write(read), bytes)
        }
    }

    func testEqualStringsAreSharedAndEqualObjectsAreNot() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let root = try builder.defineClass("NSObject")
        for _ in 0..<2 {
            try builder.beginGroup("@")
            _ = try builder.beginObject(class: root)
            try builder.beginGroup("*")
            try builder.cString(Array("q".utf8))  // a new C string each time, its text shared
            try builder.end()
            try builder.endObject()
            try builder.end()
        }
        let bytes = try TypedStreamWriter.write(try builder.finish())
        let body = Array(bytes.dropFirst(16))
        // "@", object, NSObject, "*", C string "q"; then "@" again (0x92), a second object
        // whose class is a reference (object table 1: 0x93), "*" again (0x94) and a new C
        // string whose text refers back (shared string 3: 0x95).
        XCTAssertEqual(body, [0x84, 1, 0x40, 0x84, 0x84, 0x84, 8] + Array("NSObject".utf8) + [0, 0x85, 0x84, 1, 0x2A, 0x84, 0x84, 1, 0x71, 0x86] + [0x92, 0x84, 0x93, 0x94, 0x84, 0x95, 0x86])
    }

    func testMisuseIsRefusedWhereItHappens() throws {
        /// `build` must be refused after a group of `encoding` (if any) begins.
        func refuses(_ what: String, in encoding: String? = nil, _ build: (inout TypedStreamBuilder) throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
            var builder = TypedStreamBuilder(byteOrder: .little)
            XCTAssertThrowsError(
                try {
                    if let encoding { try builder.beginGroup(encoding) }
                    try build(&builder)
                }(), what, file: file, line: line
            ) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, "\(what): \(error)", file: file, line: line)
            }
        }
        refuses("a value at the top level") { try $0.integer(1) }
        refuses("a value of another type", in: "i") { try $0.float(1) }
        refuses("a group left short", in: "ii") {
            try $0.integer(1)
            try $0.end()
        }
        refuses("a value past a group's types", in: "i") {
            try $0.integer(1)
            try $0.integer(2)
        }
        refuses("an integer past its width", in: "s") { try $0.integer(40_000) }
        refuses("an unsigned integer past its width", in: "C") { try $0.unsigned(256) }
        refuses("a spelling that cannot hold the value", in: "i") { try $0.integer(1000, form: .byte) }
        refuses("a fraction spelled as an integer", in: "d") { try $0.double(0.5, form: .int32) }
        refuses("an object of an undefined class", in: "@") { _ = try $0.beginObject(class: 0) }
        refuses("a reference to an object not made", in: "@") { try $0.object(3) }
        refuses("a byte array of another length", in: "[4c]") { try $0.byteArray([1, 2]) }
        refuses("an unfinished stream", in: "@") { _ = try $0.finish() }
        refuses("a superclass not defined") { _ = try $0.defineClass("A", superclass: 0) }
        var builder = TypedStreamBuilder(byteOrder: .little)
        XCTAssertThrowsError(try builder.beginGroup("i(x)")) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .malformedTypedStream, "a union is no type a typedstream holds")
        }
    }
}
