import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// `InputKind` against the table of first bytes it shares with the page's `sniffFormat`
/// (`Tests/Fixtures/sniffing/cases.json`): this test checks each case's `inputKind`,
/// `Tests/page/sniffing.test.mjs` its `page`, so the service's hints and the page's choice of
/// request are checked against the same inputs.
final class InputKindTests: XCTestCase {
    private struct Table: Decodable {
        var cases: [Case]
    }

    private struct Case: Decodable {
        var name: String
        var hex: String
        var inputKind: String
        var page: String
        var fixture: String?
        var pageDiffers: String?
    }

    /// Each kind's name in the table.
    private static func name(of kind: InputKind) -> String {
        switch kind {
        case .binaryPropertyList: "binaryPropertyList"
        case .xmlPropertyList: "xmlPropertyList"
        case .typedStream: "typedStream"
        case .json: "json"
        case .jsonWithByteOrderMark: "jsonWithByteOrderMark"
        case .gzip: "gzip"
        case .zlib: "zlib"
        case .unknown: "unknown"
        }
    }

    /// Every kind, each named by `name(of:)`, whose switch a new kind cannot pass unnoticed.
    private static let allKinds: [InputKind] = [.binaryPropertyList, .xmlPropertyList, .typedStream, .json, .jsonWithByteOrderMark, .gzip, .zlib, .unknown]

    /// The page's class for each kind, where it does not differ on purpose.
    private static func pageClass(of kind: InputKind) -> String {
        switch kind {
        case .xmlPropertyList: "xml"
        case .typedStream: "typedstream"
        case .json, .jsonWithByteOrderMark: "json"
        case .binaryPropertyList, .gzip, .zlib, .unknown: "binary"
        }
    }

    private func table() throws -> [Case] {
        try JSONDecoder().decode(Table.self, from: Data(Fixtures.sniffing("cases.json"))).cases
    }

    private func bytes(_ hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw CocoaError(.coderReadCorrupt) }
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { throw CocoaError(.coderReadCorrupt) }
            return byte
        }
    }

    func testEveryCaseOfTheSharedTable() throws {
        let cases = try table()
        XCTAssertGreaterThanOrEqual(cases.count, 40)
        for entry in cases {
            let head = try bytes(entry.hex)
            XCTAssertEqual(Self.name(of: InputKind(of: head)), entry.inputKind, entry.name)
        }
    }

    func testTheTableCoversEveryKindAndNamesOnlyKinds() throws {
        let names = Set(try table().map(\.inputKind))
        XCTAssertEqual(names, Set(Self.allKinds.map(Self.name(of:))))
    }

    /// The page's column is the codec's kind in the page's classes, but where a case says why not.
    func testThePageColumnFollowsTheCodecOrSaysWhyNot() throws {
        for entry in try table() {
            guard let kind = Self.allKinds.first(where: { Self.name(of: $0) == entry.inputKind }) else { continue }
            if let why = entry.pageDiffers {
                XCTAssertNotEqual(entry.page, Self.pageClass(of: kind), "\(entry.name): pageDiffers, yet the page agrees (\(why))")
            } else {
                XCTAssertEqual(entry.page, Self.pageClass(of: kind), entry.name)
            }
        }
    }

    /// A case taken from a fixture holds that file's first 64 bytes.
    func testFixtureCasesHoldTheFixturesFirstBytes() throws {
        let fixtures = try table().filter { $0.fixture != nil }
        XCTAssertGreaterThanOrEqual(fixtures.count, 6)
        for entry in fixtures {
            let file = Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent(entry.fixture!)))
            XCTAssertEqual(try bytes(entry.hex), Array(file.prefix(64)), entry.name)
        }
    }

    func testOnlyTheFirst64BytesAreRead() {
        XCTAssertEqual(InputKind(of: [UInt8](repeating: 0x20, count: 63) + Array("{}".utf8)), .json)
        XCTAssertEqual(InputKind(of: [UInt8](repeating: 0x20, count: 64) + Array("{}".utf8)), .unknown)
        XCTAssertEqual(InputKind(of: [UInt8](repeating: 0x20, count: 1 << 20) + Array("{}".utf8)), .unknown)
    }
}
