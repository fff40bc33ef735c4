import TestSupport
import XCTest

@testable import ArchiveCodec

/// The real typedstreams of `Tests/Fixtures/public/typedstream/`: each reads, writes back to
/// the same bytes, and reads as pytypedstream reads it.
final class TypedStreamFixtureTests: XCTestCase {
    func testEveryRealStreamWritesBackByteForByte() throws {
        for name in Fixtures.typedStreamNames() {
            let bytes = try Fixtures.typedStream(name)
            let stream = try TypedStreamReader.read(bytes)
            XCTAssertNotNil(stream.topLevelGroups.first { _ in true }, name)
            let written = try TypedStreamWriter.write(stream)
            XCTAssertEqual(written.count, bytes.count, name)
            if let first = zip(written, bytes).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
                XCTFail("\(name): first difference at byte \(first.offset)")
            }
        }
    }

    func testEveryRealStreamBuiltAgainByHandIsApplesBytes() throws {
        // No fixture spells a value otherwise than Apple's writer would, so the builder's
        // defaults alone must give every byte back.
        for name in Fixtures.typedStreamNames() {
            let bytes = try Fixtures.typedStream(name)
            let stream = try TypedStreamReader.read(bytes)
            XCTAssertTrue(stream.values.allSatisfy { $0.form == .canonical }, name)
            XCTAssertEqual(try TypedStreamWriter.write(TypedStreamReplay.rebuild(stream)), bytes, name)
        }
    }

    func testTheMalformedStreamIsRefusedWhereItsStringRunsPastTheEnd() throws {
        let bytes = try Fixtures.typedStream("imessage-exporter_attributedBody-ExtraData.bin")
        XCTAssertThrowsError(try TypedStreamReader.read(bytes)) { error in
            let error = error as! CodecError
            XCTAssertEqual(error.kind, .malformedTypedStream)
            XCTAssertTrue(error.message.contains("157 bytes"), error.message)
            XCTAssertEqual(error.byteOffset, 0x79, "where the string's length starts")
        }
    }

    func testBothByteOrdersAreRead() throws {
        let nib = try TypedStreamReader.read(Fixtures.typedStream("thecheat_NetTraffic.nib-objects.nib"))
        XCTAssertEqual(nib.byteOrder, .big)
        let colours = try TypedStreamReader.read(Fixtures.typedStream("python-typedstream_Emacs.clr"))
        XCTAssertEqual(colours.byteOrder, .little)
        XCTAssertEqual(colours.systemVersion, 1000)
        // A colour list: a count, then a colour and a name per entry.
        XCTAssertEqual(Array(colours.topLevelGroups).count, 754)
    }

    func testUnsignedValuesAreTheStoredSignedBitsAtTheirWidth() throws {
        let stream = try TypedStreamReader.read(Fixtures.typedStream("uetchy-typedstream_NSArchiver-NSNumberWithULongLong.bin"))
        let unsigned = stream.values.indices.compactMap { index -> UInt64? in
            if case .unsigned(let value) = stream.content(of: index), stream.code(of: index) == TypeCode.unsignedLongLong { return value }
            return nil
        }
        XCTAssertEqual(unsigned, [UInt64.max - 2])
    }

    func testWholeRealsStoredAsIntegersKeepTheirForm() throws {
        // nvALT's colour stores 1.0 as the integer 1 (Apple's choice), 0.8 as a real.
        let stream = try TypedStreamReader.read(Fixtures.typedStream("mac-setup_nvALT-SearchTermHighlightColor.bin"))
        let floats = stream.values.indices.compactMap { index -> Float? in
            if case .float(let bits) = stream.content(of: index) { return Float(bitPattern: bits) }
            return nil
        }
        XCTAssertEqual(floats, [0.8, 1, 0.8, 1])
        XCTAssertTrue(stream.values.allSatisfy { $0.form == .canonical }, "Apple's spellings need no record")
    }
}
