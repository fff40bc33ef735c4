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

    /// Every data value is counted by its kind (its signature), in every format, each value once
    /// however many places refer to it; a payload's own data with `nested`; merged over files.
    func testDataValuesAreCountedByKind() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 24)
        let gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0]
        let inner = try buildArchive([.object("Inner", [("icon", .data(png))])])
        let outer = try buildArchive([
            .object("Outer", [("a", .data(png)), ("b", .data(png + [1])), ("c", .data(gzip)), ("d", .data([1, 2, 3])), ("blob", .data(inner))])
        ])
        let plain = try Archive(parsing: outer).summary()
        XCTAssertEqual(
            plain.dataKinds,
            [
                .init(kind: "png", count: 2, bytes: 2 * png.count + 1), .init(kind: "bplist", count: 1, bytes: inner.count),
                .init(kind: "gzip", count: 1, bytes: gzip.count)
            ])
        let nested = try Archive(parsing: outer).summary(nested: true)
        XCTAssertEqual(nested.dataKinds.first, .init(kind: "png", count: 3, bytes: 3 * png.count + 1))
        // A typedstream's byte arrays: a message body whose link is a binary plist.
        let message = try Archive(parsing: try Fixtures.typedStream("imessage-exporter_attributedBody-URL.bin")).summary()
        XCTAssertEqual(message.dataKinds.map(\.kind), ["bplist"])
        // A plain list's data (a Terminal theme's colours are archives).
        let theme = try Archive(parsing: try Fixtures.publicFile("plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")).summary()
        XCTAssertEqual(theme.dataKinds, [.init(kind: "bplist", count: 15, bytes: theme.dataKinds.first?.bytes ?? -1)])
        let merged = plain.merged(with: nested)
        XCTAssertEqual(merged.dataKinds.map(\.kind), ["png", "bplist", "gzip"])
        XCTAssertEqual(merged.dataKinds.map(\.count), [5, 2, 2])
        let text = String(decoding: plain.json(pretty: false), as: UTF8.self)
        XCTAssertTrue(text.contains(#""dataKinds":[{"kind":"png","count":2,"bytes":65},{"kind":"bplist","count":1,"#), text)
    }

    /// Bytes that begin as a document but are not one stay data.
    func testBytesThatOnlyLookLikeADocument() throws {
        let outer = try buildArchive([.object("Outer", [("blob", .data(Array("bplist00 and then nothing".utf8)))])])
        XCTAssertEqual(try Archive(parsing: outer).summary(nested: true).nestedPayloads, [])
    }
}
