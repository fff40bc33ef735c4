import XCTest

@testable import ArchiveCodec

/// `ScalarIdentity`'s value hash: one text hashes alike however the file stores it.
final class ScalarIdentityTests: XCTestCase {
    /// A binary plist whose top object is an array of `strings` (each its object's bytes, after
    /// the array), with two-byte offsets and one-byte references.
    private func plist(_ strings: [[UInt8]]) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets = [bytes.count]
        bytes += [0xA0 | UInt8(strings.count)] + (1...strings.count).map { UInt8($0) }
        for string in strings {
            offsets.append(bytes.count)
            bytes += string
        }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        func word(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1] + word(offsets.count) + word(0) + word(table)
        return bytes
    }

    private func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }

    private func utf16(_ text: String) -> [UInt8] {
        [0x60 | UInt8(text.utf16.count)] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }

    func testTextHashesAlikeStoredASCIIOrUTF16() throws {
        let strings = [ascii("name"), utf16("name"), utf16("nämé"), utf16("nämé"), utf16("東京😀"), utf16("東京😀"), utf16(""), ascii("")]
        let file = try BinaryPlist(bytes: plist(strings))
        let hashes = file.withView { view in (1...strings.count).map { ScalarIdentity.valueHash(view, $0, .string) } }
        XCTAssertEqual(hashes[0], hashes[1], "ASCII text stored as UTF-16")
        XCTAssertEqual(hashes[2], hashes[3])
        XCTAssertEqual(hashes[4], hashes[5], "a surrogate pair")
        XCTAssertEqual(hashes[6], hashes[7], "empty text")
        XCTAssertEqual(Set([hashes[0], hashes[2], hashes[4], hashes[6]]).count, 4)
        XCTAssertTrue(file.withView { view in ScalarIdentity.equal(view, 1, 2, .string) && ScalarIdentity.equal(view, 5, 6, .string) })
    }
}
