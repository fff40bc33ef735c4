import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Salvage (docs/mapping.md, "Salvage"): a damaged typedstream read as far as it goes, the
/// break marked where the value would have been, everything before it as the whole stream has it.
final class TypedStreamSalvageTests: XCTestCase {
    /// The real streams cut at every length: each whole stream's header and more is read up to
    /// the cut, its events a prefix of the whole stream's, the break where the refusal is.
    func testEveryTruncationOfTheRealStreamsReadsUpToTheCut() throws {
        for name in Fixtures.typedStreamNames() {
            let bytes = try Fixtures.typedStream(name)
            guard bytes.count <= 3000 else { continue }
            let whole = TypedStreamEventText.lines(try TypedStreamReader.read(bytes))
            for length in 0..<bytes.count {
                let cut = Array(bytes[..<length])
                let refusal: CodecError
                do {
                    // A cut between two top-level groups (or right after the header) is a
                    // whole stream of the groups before it: nothing says where a stream ends.
                    let shorter = TypedStreamEventText.lines(try TypedStreamReader.read(cut))
                    XCTAssertEqual(shorter, Array(whole.prefix(shorter.count)), "\(name) cut at \(length)")
                    XCTAssertEqual(try TypedStreamReader.read(cut, salvaging: true).broken == nil, true)
                    continue
                } catch {
                    refusal = error
                }
                let stream: TypedStream
                do {
                    stream = try TypedStreamReader.read(cut, salvaging: true)
                } catch {
                    // Nothing can be read before the header.
                    XCTAssertLessThan(length, 16, "\(name) cut at \(length): \(error)")
                    continue
                }
                let broken = try XCTUnwrap(stream.broken, "\(name) cut at \(length)")
                XCTAssertEqual(broken.offset, refusal.byteOffset, "\(name) cut at \(length)")
                XCTAssertEqual(broken.reason, refusal.message, "\(name) cut at \(length)")
                XCTAssertEqual(Array(stream.bytes(broken.rest)), Array(cut[broken.offset...]), "\(name) cut at \(length)")
                let lines = TypedStreamEventText.lines(stream)
                XCTAssertEqual(lines.last, "broken", "\(name) cut at \(length)")
                XCTAssertEqual(Array(lines.dropLast()), Array(whole.prefix(lines.count - 1)), "\(name) cut at \(length)")
            }
        }
    }

    /// The JSON of every truncation of a few streams holds one mark where the stream broke; an
    /// encode refuses it, and with the mark's group left out writes a stream that reads whole.
    func testEveryTruncationDecodesToOneMarkAndEncodesWithoutIt() throws {
        let names = [
            "imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin", "imessage-exporter_attributedBody-MultiPart.bin",
            "uetchy-typedstream_NSArchiver-NSArrayWithNestedArray.bin", "mac-setup_nvALT-NoteBodyFont.bin", "ColorPaletteCodable_apple-ii.clr"
        ]
        for name in names {
            let bytes = try Fixtures.typedStream(name)
            for length in 16..<bytes.count {
                let cut = Array(bytes[..<length])
                // A cut between top-level groups reads whole (above).
                guard (try? Archive(parsing: cut)) == nil else { continue }
                let archive = try Archive(parsing: cut, salvaging: true)
                XCTAssertEqual(archive.breaks, 1)
                let json = try archive.json(view: .readable, pretty: false)
                let object = try JSONSerialization.jsonObject(with: Data(json)) as AnyObject
                XCTAssertNotNil(object)
                let text = String(decoding: json, as: UTF8.self)
                XCTAssertEqual(text.components(separatedBy: "\"$broken\"").count, 2, "\(name) cut at \(length): \(text)")
                let document = try JSONDocument(parsing: json)
                XCTAssertThrowsError(try document.archive(format: .binary), "\(name) cut at \(length)") { error in
                    let error = error as! CodecError
                    XCTAssertEqual(error.kind, .invalidDocument)
                    XCTAssertEqual(error.remedy, .dropBroken)
                    XCTAssertTrue(error.jsonPath?.hasPrefix("$.$typedstream") ?? false, "\(error)")
                }
                // Written in pieces, the document given up before the stream is written: the
                // same refusal, made while the document was still held.
                XCTAssertThrowsError(try document.writeArchive { _ in }, "\(name) cut at \(length)") { error in
                    let error = error as! CodecError
                    XCTAssertEqual(error.kind, .invalidDocument)
                    XCTAssertEqual(error.remedy, .dropBroken)
                    XCTAssertTrue(error.jsonPath?.hasPrefix("$.$typedstream") ?? false, "\(error)")
                }
                let dropped = try document.droppingBroken()
                XCTAssertFalse(String(decoding: dropped.source, as: UTF8.self).contains("$broken"))
                let written = try dropped.archive(format: .binary)
                var pieces: [UInt8] = []
                try dropped.writeArchive { pieces += $0 }
                XCTAssertEqual(pieces, written, "\(name) cut at \(length)")
                let again = try Archive(parsing: written)
                XCTAssertEqual(again.breaks, 0)
                // What was left out stays out: decoding the written stream and encoding it again gives the same bytes.
                XCTAssertEqual(try JSONDocument(parsing: again.json(view: .readable, pretty: false)).archive(format: .binary), written, "\(name) cut at \(length)")
            }
        }
    }

    /// Every single byte of a stream's body changed to each of a few values: read whole, refused
    /// for what no damage explains, or read up to the break with the refusal's words, and its
    /// JSON is JSON. Among the breaks: an unknown type code, a reference to an object not yet read.
    func testCorruptedBytesAreMarkedWithTheRefusalsWords() throws {
        var reasons: [String] = []
        for name in ["imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin", "uetchy-typedstream_NSArchiver-NSDictionary.bin", "mac-setup_nvALT-NoteBodyFont.bin"] {
            let bytes = try Fixtures.typedStream(name)
            for position in 16..<bytes.count {
                for replacement: UInt8 in [0x00, 0x7F, 0x81, 0x84, 0x85, 0x86, 0x93, 0x9F, 0xFF] where bytes[position] != replacement {
                    var changed = bytes
                    changed[position] = replacement
                    let refusal: CodecError
                    do {
                        let whole = try Archive(parsing: changed)
                        XCTAssertEqual(try Archive(parsing: changed, salvaging: true).json(view: .readable, pretty: false), try whole.json(view: .readable, pretty: false))
                        continue
                    } catch {
                        refusal = error
                    }
                    let archive: Archive
                    do {
                        archive = try Archive(parsing: changed, salvaging: true)
                    } catch {
                        // What salvage still refuses: a limit, or a class name or type string
                        // read (perhaps past the break's place) that is not UTF-8.
                        XCTAssertTrue(error.kind == .limitExceeded || error.message.contains("not UTF-8"), "\(name) [\(position)] = \(replacement): \(error)")
                        continue
                    }
                    XCTAssertEqual(archive.breaks, 1)
                    let json = try archive.json(view: .readable, pretty: false)
                    XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json)))
                    let stream = (archive.document as! TypedStreamDocument).stream
                    XCTAssertEqual(stream.broken?.offset, refusal.byteOffset, "\(name) [\(position)] = \(replacement)")
                    XCTAssertEqual(stream.broken?.reason, refusal.message)
                    reasons.append(refusal.message)
                }
            }
        }
        XCTAssertTrue(reasons.contains { $0.contains("type code") }, "an unknown type code")
        XCTAssertTrue(reasons.contains { $0.contains("object table") }, "a reference to nothing read yet")
    }

    /// iMessage's damaged `attributedBody` (its last string claims 157 bytes where 120 remain):
    /// refused whole, salvaged with its text up to there.
    /// A slot a break leaves absent is nil whatever its type: a byte array there holds no
    /// bytes (its value's word is no offset into the storage).
    func testAnAbsentByteArrayHoldsNoBytes() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        try builder.beginGroup("i[4c][4c]")
        try builder.integer(1)
        try builder.byteArray([1, 2, 3, 4])
        try builder.byteArray([5, 6, 7, 8])
        try builder.end()
        var bytes = try TypedStreamWriter.write(try builder.finish())
        bytes[bytes.count - 9] = 0x8A  // a reserved tag where the 'i' is
        let stream = try TypedStreamReader.read(bytes, salvaging: true)
        let broken = try XCTUnwrap(stream.broken)
        XCTAssertEqual(broken.place, .value(0))
        XCTAssertEqual(broken.absentValues, [1, 2])
        for index in 1...2 {
            XCTAssertTrue(stream.values[index].isNil)
            XCTAssertEqual(stream.content(of: index), .byteArray(TypedStream.Span(start: 0, count: 0)))
        }
    }

    func testTheDamagedMessageKeepsWhatItHolds() throws {
        let bytes = try Fixtures.typedStream("imessage-exporter_attributedBody-ExtraData.bin")
        XCTAssertThrowsError(try Archive(parsing: bytes))
        let archive = try Archive(parsing: bytes, salvaging: true)
        XCTAssertEqual(archive.breaks, 1)
        let text = String(decoding: try archive.json(view: .readable, pretty: false), as: UTF8.self)
        XCTAssertTrue(text.contains(#""$broken":{"offset":121,"reason":"a '+' string of 157 bytes, 120 left""#), text)
    }

    /// Salvage changes nothing for a stream read whole, nor for a header that cannot be read.
    func testAWholeStreamAndAnUnreadableHeaderAreAsWithoutSalvage() throws {
        for name in Fixtures.typedStreamNames() {
            let bytes = try Fixtures.typedStream(name)
            XCTAssertEqual(try Archive(parsing: bytes, salvaging: true).json(view: .readable, pretty: false), try Archive(parsing: bytes).json(view: .readable, pretty: false))
        }
        var header = try Fixtures.typedStream("uetchy-typedstream_NSArchiver-NSStringNil.bin")
        header[0] = 3
        XCTAssertThrowsError(try Archive(parsing: header, salvaging: true))
    }
}
