import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

/// Binary plists may spell a short string's length out (marker 0x_F and an integer) where
/// Apple's writer puts it in the marker; readers must treat both alike.
final class LengthFormTests: XCTestCase {
    /// A one-instance archive ({"$class":"Thing","name":"x"}) whose mapping keys use the
    /// spelled-out length form.
    private func archiveWithSpelledOutLengths() -> [UInt8] {
        func string(_ text: String, spelledOut: Bool = true) -> [UInt8] {
            let bytes = Array(text.utf8)
            return (spelledOut ? [0x5F, 0x10, UInt8(bytes.count)] : [0x50 | UInt8(bytes.count)]) + bytes
        }
        let objects: [[UInt8]] = [
            string("$archiver"), string("NSKeyedArchiver"), string("$version"), [0x12, 0x00, 0x01, 0x86, 0xA0],
            string("$top"), [0xD1, 6, 7], string("root"), [0x80, 1], string("$objects"),
            [0xA3, 10, 11, 15], string("$null", spelledOut: false), [0xD2, 12, 13, 16, 14], string("$class"),
            string("name", spelledOut: false), string("x", spelledOut: false), [0xD2, 17, 18, 19, 20], [0x80, 2],
            string("$classname"), string("$classes"), string("Thing", spelledOut: false), [0xA2, 19, 21],
            string("NSObject", spelledOut: false), [0xD4, 0, 2, 4, 8, 1, 3, 5, 9]
        ]
        var file = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(file.count))
            file += object
        }
        let table = file.count
        file += offsets
        file += [0, 0, 0, 0, 0, 0, 1, 1]
        for field in [objects.count, objects.count - 1, table] {
            file += withUnsafeBytes(of: UInt64(field).bigEndian, Array.init)
        }
        return file
    }

    func testSpelledOutLengthsReadLikeShortOnes() throws {
        let archive = try KeyedArchive(parsing: archiveWithSpelledOutLengths())
        let json = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertEqual(json, #"{"$class":"Thing","name":{"$inline":"x"}}"#)
        let copy = try KeyedArchive(parsing: JSONDocument(parsing: Array(json.utf8)).archive(format: .binary))
        XCTAssertNil(archive.difference(from: copy))
    }
}
