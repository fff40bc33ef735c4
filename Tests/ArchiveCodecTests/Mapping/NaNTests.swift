import TestSupport
import XCTest

@testable import ArchiveCodec

final class NaNTests: XCTestCase {
    /// Two NaNs with different bits are two values: they stay distinct objects with their bits.
    func testNaNPayloadsSurviveARoundTrip() throws {
        var bytes = try buildArchive([.object("NSArray", [("NS.objects", .array([.uid(2), .uid(3)]))]), .real(1.25), .real(2.5)])
        func patch(_ from: Double, _ to: UInt64) {
            let needle = withUnsafeBytes(of: from.bitPattern.bigEndian, Array.init)
            for start in 0...(bytes.count - 8) where Array(bytes[start..<(start + 8)]) == needle {
                bytes.replaceSubrange(start..<(start + 8), with: withUnsafeBytes(of: to.bigEndian, Array.init))
            }
        }
        patch(1.25, 0x7FF8_0000_0000_0000)
        patch(2.5, 0xFFF8_0000_0000_0001)
        let archive = try KeyedArchive(parsing: bytes)
        let json = try archive.json(view: .readable, pretty: false)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"[{"$real":"NaN"},{"$real":"NaN:fff8000000000001"}]"#)
        let document = try JSONDocument(parsing: json)
        XCTAssertNil(try KeyedArchive(parsing: document.archive(format: .binary)).difference(from: archive))
        XCTAssertThrowsError(try document.archive(format: .xml))
        XCTAssertThrowsError(try JSONDocument(parsing: Array(#"{"$real":"NaN:3ff0000000000000"}"#.utf8)).archive(format: .binary))
    }
}
