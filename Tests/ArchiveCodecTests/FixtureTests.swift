import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

final class FixtureTests: XCTestCase {
    func testEveryFixtureRoundTripsEquivalently() throws {
        let names = Fixtures.names()
        XCTAssertGreaterThanOrEqual(names.count, 40)
        for name in names {
            let original = try Fixtures.bytes(name)
            try assertEquivalent(original, roundTrip(original, format: .binary))
            try assertEquivalent(original, roundTrip(original, format: .xml))
        }
    }

    func testProtocolFramesGetAClearError() throws {
        for name in ["goios_dtx_nsmutablestring.bin", "goios_dtx_nsnull.bin"] {
            XCTAssertThrowsError(try KeyedArchive(parsing: Fixtures.bytes("not-archives/" + name))) { error in
                let error = error as! CodecError
                XCTAssertEqual(error.kind, .malformedPlist)
                XCTAssertTrue(error.message.contains("frame"), error.message)
            }
        }
    }

    func testReadableFormsOfRealArchives() throws {
        func decode(_ name: String) throws -> String {
            String(decoding: try KeyedArchive(parsing: Fixtures.bytes(name)).json(view: .readable, pretty: false), as: UTF8.self)
        }
        XCTAssertEqual(try decode("goios_nsuuid.bin"), #"{"$uuid":"54CD5574-E957-4499-8A09-DAB688C0B586"}"#)
        XCTAssertEqual(try decode("scl-NSKeyedUnarchiver-ArrayTest.plist"), #"["baa","baa","black","sheep"]"#)
        XCTAssertTrue(try decode("goios_XCActivityRecord.bin").contains(#""start":{"$date":"2020-11-01T17:44:28.427940Z"}"#))
        // Inline integers stay bare; referenced NSNumbers in an instance's keys are wrapped.
        XCTAssertTrue(try decode("scl-NSKeyedUnarchiver-RangeTest.plist").contains(#""NS.rangeval.length":{"$number":98345}"#))
        XCTAssertTrue(try decode("scl-NSKeyedUnarchiver-RangeTest.plist").contains(#""NS.special":4"#))
        // Distinct equal strings keep their identity.
        XCTAssertTrue(try decode("goios_primitives.bin").contains(#""$string":"Hello, World!""#))
    }
}
