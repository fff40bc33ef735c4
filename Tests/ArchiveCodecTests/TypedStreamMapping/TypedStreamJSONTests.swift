import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// typedstream ⇄ JSON: every real stream comes back byte for byte through its JSON.
final class TypedStreamJSONTests: XCTestCase {
    private func json(_ bytes: [UInt8], pretty: Bool = false) throws -> [UInt8] { try TypedStreamJSONRoundTrip.json(bytes, pretty: pretty) }

    private func encode(_ text: [UInt8]) throws -> [UInt8] { try TypedStreamJSONRoundTrip.encode(text) }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func testEveryRealStreamComesBackByteForByte() throws {
        for name in Fixtures.typedStreamNames() {
            let bytes = try Fixtures.typedStream(name)
            guard try Archive(parsing: bytes).isTypedStream else { return XCTFail("\(name) not read as a typedstream") }
            let compact = try json(bytes)
            XCTAssertEqual(try encode(compact), bytes, name)
            XCTAssertEqual(try encode(json(bytes, pretty: true)), bytes, "\(name), indented")
            XCTAssertEqual(try Archive(parsing: bytes).depth(of: .readable), try JSONDocument(parsing: compact).depth, name)
            XCTAssertTrue(try JSONDocument(parsing: compact).isTypedStream, name)
        }
    }

    func testAMalformedStreamIsRefusedAtItsOffset() throws {
        for name in Fixtures.malformedTypedStreams {
            XCTAssertThrowsError(try Archive(parsing: Fixtures.typedStream(name))) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .malformedTypedStream)
                XCTAssertNotNil((error as? CodecError)?.byteOffset)
            }
        }
    }

    /// Big-endian streams (old nibs) say so, and shared objects carry `$id` with `$ref` after.
    func testByteOrderAndSharing() throws {
        let nib = text(try json(Fixtures.typedStream("thecheat_NetTraffic.nib-objects.nib")))
        XCTAssertTrue(nib.hasPrefix("{\"$byteOrder\":\"big\",\"$typedstream\":["), String(nib.prefix(60)))
        let multipart = text(try json(Fixtures.typedStream("imessage-exporter_attributedBody-MultiPart.bin")))
        XCTAssertTrue(multipart.contains("\"$id\":") && multipart.contains("{\"$ref\":"), multipart)
    }

    /// A stream built by hand with every kind of value, a cycle and nil values round-trips.
    func testEveryKindOfValueAndACycle() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let object = try builder.defineClass("NSObject")
        let node = try builder.defineClass("Node", version: 3, superclass: object)
        try builder.beginGroup("@")
        let first = try builder.beginObject(class: node)
        try builder.beginGroup("ciQfd*%:+#@!")
        try builder.integer(-5)
        try builder.integer(-70000)
        try builder.unsigned(.max)
        try builder.float(0.5)
        try builder.double(.infinity)
        try builder.cString(Array("c string".utf8))
        try builder.atom(Array("atom".utf8))
        try builder.selector(Array("doIt:".utf8))
        try builder.byteString([0xFF, 0x00])
        try builder.classReference(node)
        try builder.object(first)
        try builder.ignored()
        try builder.end()
        try builder.beginGroup("{_NSRange=QQ}[4c][2i]^i")
        try builder.beginComposite()
        try builder.unsigned(1)
        try builder.unsigned(2)
        try builder.end()
        try builder.byteArray([1, 2, 3, 4])
        try builder.beginComposite()
        try builder.integer(7)
        try builder.integer(8)
        try builder.end()
        try builder.beginComposite()
        try builder.integer(9)
        try builder.end()
        try builder.end()
        try builder.endObject()
        try builder.end()
        try builder.beginGroup("@*")
        try builder.object(nil)
        try builder.cString(nil)
        try builder.end()
        let bytes = try TypedStreamWriter.write(builder.finish())
        let document = try json(bytes)
        XCTAssertEqual(try encode(document), bytes, text(document))
        for fragment in [
            "\"$classes\":[[\"Node\",3],[\"NSObject\",0]]", "\"$id\":0", "{\"$ref\":0}", "18446744073709551615", "{\"$real\":\"Infinity\"}",
            "{\"$data\":\"/wA=\"}", "\"{_NSRange=QQ}[4c][2i]^i\":[[1,2],{\"$data\":\"AQIDBA==\"},[7,8],9]", "\"@*\":[null,null]"
        ] {
            XCTAssertTrue(text(document).contains(fragment), "\(fragment) in \(text(document))")
        }
    }

    /// Group keys come from the writer's key cache and a class's object head and chain from
    /// its prepared text once a type string or class returns: the compact text must say what
    /// the indented text (written afresh every time) says, for more type strings than the
    /// cache has slots, keys that need escaping, classes met once, twice and often, chains
    /// too long to keep, and class values after their class's head was kept.
    func testKeptKeysAndObjectHeadsSayWhatFreshTextSays() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let root = try builder.defineClass("NSObject")
        var classes = [try builder.defineClass("Once", superclass: root), try builder.defineClass("Twice", version: 2, superclass: root)]
        var long = root
        for link in 0..<12 { long = try builder.defineClass("Link\(link)With\"Quote", version: Int64(link), superclass: long) }
        classes.append(long)
        for index in 0..<20 { classes.append(try builder.defineClass("Often\(index)", version: Int64(index), superclass: root)) }
        let uses = [1, 2, 6] + Array(repeating: 5, count: 20)
        for round in 0..<6 {
            for (position, classIndex) in classes.enumerated() where round < uses[position] {
                try builder.beginGroup("@")
                _ = try builder.beginObject(class: classIndex)
                for type in 0..<40 {
                    let name = (round + type + position) % 300
                    try builder.beginGroup(name % 3 == 0 ? "{S\"\\\(name)=i}#" : "{Name\(name)=i}#")
                    try builder.beginComposite()
                    try builder.integer(Int64(name))
                    try builder.end()
                    try builder.classReference(classes[(position + type) % classes.count])
                    try builder.end()
                }
                try builder.endObject()
                try builder.end()
            }
        }
        let bytes = try TypedStreamWriter.write(builder.finish())
        let compact = try json(bytes)
        let indented = try json(bytes, pretty: true)
        let fromCompact = try JSONSerialization.jsonObject(with: Data(compact)) as? NSDictionary
        let fromIndented = try JSONSerialization.jsonObject(with: Data(indented)) as? NSDictionary
        XCTAssertNotNil(fromCompact)
        XCTAssertEqual(fromCompact, fromIndented)
        XCTAssertEqual(try encode(compact), bytes)
        XCTAssertTrue(text(compact).contains("\"{S\\\"\\\\3=i}#\":[[3],"), text(compact).prefix(400) + "…")
    }

    /// A float NaN keeps its bits through the JSON's double, a signalling one included (the
    /// processor's conversions would set its quiet bit; found by fuzzing), in a group and in a
    /// readable colour alike.
    func testFloatNaNsKeepTheirBits() throws {
        let nans: [UInt32] = [0x7F8D_38F6, 0xFFBE_BEBF, 0x7FC0_0000, 0xFFC0_0001, 0x7F80_0001]
        var builder = TypedStreamBuilder(byteOrder: .little)
        try builder.beginGroup(String(repeating: "f", count: nans.count))
        for bits in nans { try builder.float(Float(bitPattern: bits)) }
        try builder.end()
        let colour = try builder.defineClass("NSColor", superclass: try builder.defineClass("NSObject"))
        try builder.beginGroup("@")
        _ = try builder.beginObject(class: colour)
        try builder.beginGroup("c")
        try builder.integer(1)
        try builder.end()
        try builder.beginGroup("ffff")
        for bits in nans.prefix(4) { try builder.float(Float(bitPattern: bits)) }
        try builder.end()
        try builder.endObject()
        try builder.end()
        let bytes = try TypedStreamWriter.write(builder.finish())
        let document = try json(bytes)
        XCTAssertTrue(text(document).contains(#"{"$real":"NaN:7ff1a71ec0000000"}"#), text(document))
        XCTAssertTrue(text(document).contains(#""$space":"calibratedRGB""#), text(document))
        XCTAssertEqual(try encode(document), bytes, text(document))
        XCTAssertEqual(FloatWidening.float(Double(bitPattern: 0x7FF0_0000_0000_0001))?.isNaN, true, "a payload below a float's bits stays a NaN")
    }

    /// Objects nested 100,000 deep decode and encode without recursion.
    func testDeepNesting() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let node = try builder.defineClass("Node")
        let levels = 100_000
        for _ in 0..<levels {
            try builder.beginGroup("@")
            _ = try builder.beginObject(class: node)
        }
        for _ in 0..<levels {
            try builder.endObject()
            try builder.end()
        }
        let bytes = try TypedStreamWriter.write(builder.finish())
        let archive = try Archive(parsing: bytes)
        let document = try archive.json(view: .readable, pretty: false)
        XCTAssertEqual(archive.depth(of: .readable), try JSONDocument(parsing: document).depth)
        XCTAssertGreaterThan(archive.depth(of: .readable), 3 * levels)
        XCTAssertEqual(try encode(document), bytes)
    }

    /// A class name that is not UTF-8 cannot be JSON text: refused, not written as invalid JSON
    /// (found by fuzzing).
    func testAClassNameThatIsNotUTF8IsRefused() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let odd = try builder.defineClass(name: [0x4E, 0xFF])
        try builder.beginGroup("@")
        _ = try builder.beginObject(class: odd)
        try builder.endObject()
        try builder.end()
        let bytes = try TypedStreamWriter.write(builder.finish())
        XCTAssertThrowsError(try Archive(parsing: bytes)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .malformedTypedStream)
        }
    }

    /// A type string that is not UTF-8 (a struct's name may hold any bytes) is refused too,
    /// wherever its group stands among others, and named in the refusal; the same stream with
    /// the name in UTF-8 is read.
    func testATypeStringThatIsNotUTF8IsRefused() throws {
        for (name, readable) in [([UInt8]([0x50, 0xFF]), false), (Array("P\u{e9}".utf8), true)] {
            var builder = TypedStreamBuilder(byteOrder: .little)
            for _ in 0..<3 {
                try builder.beginGroup("i")
                try builder.integer(7)
                try builder.end()
            }
            try builder.beginGroup(encoding: [UInt8(ascii: "{")] + name + Array("=i}".utf8))
            try builder.beginComposite()
            try builder.integer(1)
            try builder.end()
            try builder.end()
            try builder.beginGroup("i")
            try builder.integer(8)
            try builder.end()
            let bytes = try TypedStreamWriter.write(builder.finish())
            guard !readable else {
                XCTAssertNoThrow(try Archive(parsing: bytes))
                continue
            }
            XCTAssertThrowsError(try Archive(parsing: bytes)) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .malformedTypedStream)
                XCTAssertTrue("\(error)".contains("not UTF-8 (6 bytes)"), "\(error)")
            }
        }
    }

    func testJSONThatIsNoStreamIsRefusedWithItsPath() throws {
        for (document, needle) in [
            (#"{"$typedstream":[{"i":"five"}]}"#, "integer"), (#"{"$typedstream":[{"@":{"$ref":4}}]}"#, "$ref"),
            (#"{"$typedstream":[{"ii":[1]}]}"#, "2 types"), (#"{"$typedstream":[{"@":{"$groups":[]}}]}"#, "$classes"),
            (#"{"$typedstream":[{"c":300}]}"#, ""), (#"{"$typedstream":[], "$byteOrder":"middle"}"#, "big"),
            (#"{"$typedstream":[{"@":{"$class":"A","$classes":[["B",0]],"$groups":[]}}]}"#, "$class")
        ] {
            XCTAssertThrowsError(try encode(Array(document.utf8)), document) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, document)
                XCTAssertNotNil((error as? CodecError)?.jsonPath, document)
                if !needle.isEmpty { XCTAssertTrue("\(error)".contains(needle), "\(document): \(error)") }
            }
        }
    }
}
