import TestSupport
import XCTest

@testable import ArchiveCodec

/// Payloads found in data values: counted by format, summed up with `nested`, held in the
/// caller's budget, and refused with it.
final class PayloadScanTests: XCTestCase {
    private func theme() throws -> Archive {
        try Archive(parsing: try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal"))
    }

    func testEveryPayloadIsHeldThenLetGo() throws {
        var held = 0
        var released = 0
        _ = try theme().summary(nested: true) { reading in
            if reading == nil { released += 1 } else { held += 1 }
            return true
        }
        XCTAssertEqual(held, 15)
        XCTAssertEqual(released, 15)
    }

    func testARefusedPayloadRefusesTheSummary() throws {
        XCTAssertThrowsError(try theme().summary(nested: false) { $0 == nil }) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .limitExceeded)
        }
    }

    /// A keyed archive in an NSData of a keyed archive: counted once, and its classes added with `nested`.
    func testPayloadInsideAKeyedArchive() throws {
        let inner = try buildArchive([.object("Inner", [("name", .string("deep"))])])
        let outer = try buildArchive([.object("Outer", [("blob", .data(inner))])])
        let plain = try Archive(parsing: outer).summary()
        XCTAssertEqual(plain.nestedPayloads, [ArchiveSummary.PayloadCount(format: .keyedArchive, count: 1)])
        XCTAssertEqual(plain.classes.map(\.name), ["Outer"])
        let nested = try Archive(parsing: outer).summary(nested: true)
        XCTAssertEqual(nested.classes.map(\.name), ["Inner", "Outer"])
        XCTAssertEqual(nested.objects, plain.objects + 2)
        // The builder writes the string inline: `{"$inline": "deep"}`.
        XCTAssertEqual(nested.largestStrings.first?.path, ".blob.$bytes.$keyedArchive.name.$inline")
    }

    /// Bytes that begin as a document but are not one stay data.
    func testBytesThatOnlyLookLikeADocument() throws {
        let outer = try buildArchive([.object("Outer", [("blob", .data(Array("bplist00 and then nothing".utf8)))])])
        XCTAssertEqual(try Archive(parsing: outer).summary(nested: true).nestedPayloads, [])
    }
}
