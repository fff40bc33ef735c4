import TestSupport
import XCTest

@testable import ArchiveCodec

/// Broken and hostile streams: each is refused with a `CodecError` at an offset inside the
/// stream, never a trap; and whatever is accepted writes back to the very bytes read.
final class TypedStreamHostileInputTests: XCTestCase {
    /// Reads `bytes`: accepted, it must write back the same; refused, the error must be the
    /// reader's kind with an offset within the input.
    func check(_ bytes: [UInt8], _ label: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        do throws(CodecError) {
            let written = try TypedStreamWriter.write(try TypedStreamReader.read(bytes))
            XCTAssertEqual(written, bytes, "\(label()): accepted but not written back", file: file, line: line)
        } catch {
            XCTAssertTrue([.malformedTypedStream, .limitExceeded].contains(error.kind), "\(label()): \(error)", file: file, line: line)
            guard let offset = error.byteOffset else { return XCTFail("\(label()): no offset in \(error)", file: file, line: line) }
            XCTAssertTrue((0...bytes.count).contains(offset), "\(label()): offset \(offset) of \(bytes.count)", file: file, line: line)
        }
    }

    /// Fixtures of every shape: objects, strings, C strings, classes, structs, byte arrays,
    /// both byte orders, many top-level groups.
    static let samples = [
        "imessage-exporter_attributedBody-URL.bin", "mac-setup_nvALT-NoteBodyFont.bin", "uetchy-typedstream_NSArchiver-NSArrayWithMixedType.bin",
        "plaso_imessage_chat.db-msg2-attributedBody-calendar-event.bin", "thecheat_NetTraffic.nib-objects.nib", "ColorPaletteCodable_apple-ii.clr",
        "python-typedstream_Grapher-Empty2D-macOS13.gcx"
    ]

    /// Cuts each sample at every offset (the largest at every 97th: each cut reads the stream
    /// up to it, and the test build is slow).
    func testTruncationAtEveryOffset() throws {
        for name in Self.samples {
            let bytes = try Fixtures.typedStream(name)
            let stride = bytes.count > 20_000 ? 97 : 1
            for length in Swift.stride(from: 0, to: bytes.count, by: stride) { check(Array(bytes[..<length]), "\(name) cut at \(length)") }
        }
    }

    func testRandomByteFlips() throws {
        var random = SplitMix64(seed: 0x7970_6564_7374_7265)
        for name in Self.samples {
            let bytes = try Fixtures.typedStream(name)
            // About the same number of bytes read per sample.
            for round in 0..<min(1500, 2_000_000 / bytes.count) {
                var broken = bytes
                for _ in 0...(round % 3) {
                    let at = Int(random.next() % UInt64(bytes.count))
                    broken[at] = round % 2 == 0 ? UInt8(truncatingIfNeeded: random.next()) : broken[at] ^ (1 << UInt8(random.next() % 8))
                }
                check(broken, "\(name) flipped in round \(round)")
            }
        }
    }

    static let header: [UInt8] = [4, 11] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]

    /// `body` after a little-endian header must be refused with `kind`, at `offset` (counted
    /// from the start of the body), with `words` in the message.
    func refuses(
        _ body: [UInt8], _ words: String, at offset: Int, kind: CodecError.Kind = .malformedTypedStream, header: [UInt8] = header,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try TypedStreamReader.read(header + body), words, file: file, line: line) { error in
            guard let error = error as? CodecError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.kind, kind, error.description, file: file, line: line)
            XCTAssertTrue(error.message.contains(words), "\(error.message) lacks \(words)", file: file, line: line)
            XCTAssertEqual(error.byteOffset, header.count + offset, error.description, file: file, line: line)
        }
    }

    func testHeadersApplesWritersNeverWrote() {
        let signature = Array("streamtyped".utf8)
        refuses([3, 11] + signature + [0x81, 0xE8, 0x03], "streamer version 3", at: 0, header: [])
        refuses([5, 11] + signature + [0x81, 0xE8, 0x03], "streamer version 5", at: 0, header: [])
        refuses([4, 11] + Array("streamtypes".utf8) + [0x81, 0xE8, 0x03], "signature", at: 1, header: [])
        refuses([4, 11] + signature + [0x81, 0xE7, 0x03], "system version 999", at: 13, header: [])
        refuses([4, 11] + signature + [0x82, 0xE8, 0x03, 0, 0], "1000 is spelled as int32, not as int16", at: 13, header: [])
        refuses([], "the stream ends where the streamer version", at: 0, header: [])
        // A header alone is an empty stream.
        XCTAssertEqual(try Array(TypedStreamReader.read(Self.header).topLevelGroups), [])
    }

    func testTagsAndTypesNoWriterUses() {
        refuses([0x84, 1, 0x69, 0x84], "tag 0x84 where an integer", at: 3)
        refuses([0x84, 1, 0x69, 0x88], "tag 0x88", at: 3)
        refuses([0x84, 2, 0x69, 0x76], "type code 'v'", at: 0)
        refuses([0x84, 3, 0x28, 0x69, 0x29], "type code '('", at: 0)
        refuses([0x84, 3, 0x7B, 0x69, 0x69], "ends inside '{'", at: 0)
        refuses([0x84, 3, 0x5B, 0x69, 0x5D], "array without a count", at: 0)
        refuses([0x84, 4, 0x5B, 0x35, 0x21, 0x5D], "take no bytes", at: 0)
        refuses([0x84, 0], "empty", at: 0)
        refuses([0x85], "nil where a type string", at: 0)
        refuses([0x84, 0x85], "a new shared string that is nil", at: 1)
        refuses([0x84, 1, 0x73, 0x82, 0x70, 0x11, 0x01, 0x00], "does not fit the 16-bit type 's'", at: 3)
        refuses([0x84, 1, 0x66, 0x82, 0x01, 0x00, 0x00, 0x01], "not exactly a float", at: 3)
    }

    func testReferencesToNothingOrToTheWrongKind() {
        refuses([0x92], "reference -110 to entry 0 of the shared strings", at: 0)
        refuses([0x84, 1, 0x40, 0x92], "reference -110 to entry 0 of the object table", at: 3)
        // An object of class A; then "#" referring to the object (entry 0) as a class.
        let object: [UInt8] = [0x84, 1, 0x40, 0x84, 0x84, 0x84, 1, 0x41, 0x00, 0x85, 0x86]
        refuses(object + [0x84, 1, 0x23, 0x92], "a reference to an object (entry 0) where a class", at: 14)
        refuses(object + [0x92, 0x93], "a reference to a class (entry 1) where an object", at: 12)
        // A class chain whose end refers back to its own first class.
        refuses([0x84, 1, 0x23, 0x84, 0x84, 1, 0x41, 0x00, 0x92], "refers back into the chain", at: 8)
        refuses([0x84, 1, 0x40, 0x84, 0x85], "an object whose class is nil", at: 4)
        refuses([0x84, 1, 0x40, 0x84, 0x84, 0x84, 1, 0x41, 0x00, 0x85], "the end of an object (0x86)", at: 10)
    }

    func testCountsPastTheInputAreRefusedBeforeAnythingIsReserved() {
        // A string of 2^31 - 1 bytes, and arrays of 4,000,000,000 structs and of bytes: refused
        // at their group, whose values need more than is left (the least a value takes,
        // saturating at 2^32 - 1).
        refuses([0x84, 1, 0x2B, 0x82, 0xFF, 0xFF, 0xFF, 0x7F], "a '+' string of 2147483647 bytes", at: 3)
        let huge = Array("[4000000000{a=ii}]".utf8)
        refuses([0x84, UInt8(huge.count)] + huge, "a group whose values need at least 4294967295 bytes, 0 left", at: 0)
        let bytes = Array("[4000000000c]".utf8)
        refuses([0x84, UInt8(bytes.count)] + bytes, "a group whose values need at least 4000000000 bytes, 0 left", at: 0)
        refuses([0x84, 3, 0x5B, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x39, 0x63, 0x5D], "ends inside", at: 0)
        // Behind a pointer, inside arrays of arrays, in a struct after a value that fits: the
        // group's least size counts them all.
        for type in ["^[4000000000i]", "[2[2000000000i]]", "{?=c[100000{?=ii}]}", "[3000000000C]"] {
            let text = Array(type.utf8)
            refuses([0x84, UInt8(text.count)] + text + [1, 2, 3], "a group whose values need at least", at: 0)
        }
        // Elements that take no bytes are refused as the type string is parsed.
        for type in ["[5{}]", "[7[0i]]", "[9{?=!}]"] {
            let text = Array(type.utf8)
            refuses([0x84, UInt8(text.count)] + text, "values that take no bytes", at: 0)
        }
    }

    func testZeroByteValuesRepeatedPastTheLimitAreRefused() {
        // A type string of 4,000 ignored fields, then the same string by reference: each group
        // takes one byte and asks for 4,000 values.
        let encoding = [UInt8](repeating: 0x21, count: 4000)
        let body = [0x84, 0x81, 0xA0, 0x0F] + encoding + [UInt8](repeating: 0x92, count: 200)
        XCTAssertThrowsError(try TypedStreamReader.read(Self.header + body)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded, "\(error)")
            XCTAssertEqual((error as? CodecError)?.limit, TypedStreamReader.valueLimit(forSize: Self.header.count + body.count))
        }
    }
}
