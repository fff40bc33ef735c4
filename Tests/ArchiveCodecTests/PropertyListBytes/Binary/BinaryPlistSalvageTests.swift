import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Salvage of binary property lists (docs/mapping.md, "Salvage"): real files damaged at every
/// offset table entry, container reference and ASCII string; each damaged object marked where
/// it stood, every other value as the whole file has it.
final class BinaryPlistSalvageTests: XCTestCase {
    /// Plain binary property lists, read in the readable view.
    private static let plainLists = [
        "plain-plist/imessage-exporter_message_summary_info-Deleted.plist", "plain-plist/plaso_com.apple.HIToolbox.plist",
        "plain-plist/plaso_com.apple.loginitems.plist", "plain-plist/plaso_com.apple.TimeMachine.plist"
    ]

    /// Keyed archives, whose plists salvage in the raw view here (the readable view:
    /// `KeyedArchiveSalvageTests`).
    private static let archives = ["goios_onevalue.bin", "goios_nsuuid.bin", "goios_arrays.bin", "goios_dict.bin"]

    private func files() throws -> [(name: String, bytes: [UInt8], view: ArchiveView)] {
        var files: [(name: String, bytes: [UInt8], view: ArchiveView)] = try Self.plainLists.map { ($0, try Fixtures.publicFile($0), ArchiveView.readable) }
        files += try Self.archives.map { ($0, try Fixtures.bytes($0), ArchiveView.raw) }
        for file in files { XCTAssertTrue(file.bytes.starts(with: "bplist".utf8), file.name) }
        return files
    }

    /// Every offset table entry set past the object area: the object is marked at its entry.
    func testEveryOffsetEntryOutOfRangeIsMarkedAtTheEntry() throws {
        for (name, bytes, view) in try files() {
            let whole = try Archive(parsing: bytes, view: view).json(view: view, pretty: false)
            let trailer = try BinaryPlist.readTrailer(bytes)
            var salvaged = 0
            for ref in 0..<trailer.objectCount {
                var damaged = bytes
                let entry = trailer.offsetTableStart + ref * trailer.offsetSize
                for index in 0..<trailer.offsetSize { damaged[entry + index] = 0xFF }
                // Refused as without salvage: the top marked in the readable view (itself, or
                // through one of its keys), an object nothing refers to (nothing to mark).
                if (try? Archive(parsing: damaged, view: view, salvaging: true)) == nil {
                    try checkRefusedAsWithoutSalvage(damaged, view: view, "\(name) entry \(ref)")
                    continue
                }
                try checkSalvage(damaged, whole: whole, view: view, expectedOffsets: [entry], "\(name) entry \(ref)")
                salvaged += 1
            }
            XCTAssertGreaterThan(salvaged, 0, name)
        }
    }

    /// Every array element and dictionary value set past the object count: the reference is
    /// marked at its bytes, its container reads on.
    func testEveryReferencePastTheCountIsMarkedAtTheReference() throws {
        for (name, bytes, view) in try files() {
            let whole = try Archive(parsing: bytes, view: view).json(view: view, pretty: false)
            for position in try referencePositions(bytes) {
                var damaged = bytes
                let refSize = try BinaryPlist.readTrailer(bytes).refSize
                for index in 0..<refSize { damaged[position + index] = 0xFF }
                guard (try? Archive(parsing: damaged, view: view)) == nil else { continue }
                try checkSalvage(damaged, whole: whole, view: view, expectedOffsets: [position], "\(name) reference at \(position)")
            }
        }
    }

    /// Every ASCII string given a byte of 0x80 or above: the string is marked (its bytes kept),
    /// or its dictionary where it is a key.
    func testEveryASCIIStringWithANonASCIIByteIsMarked() throws {
        for (name, bytes, view) in try files() {
            let whole = try Archive(parsing: bytes, view: view).json(view: view, pretty: false)
            let plist = try BinaryPlist(bytes: bytes)
            let strings: [(offset: Int, start: Int, count: Int)] = plist.withView { plistView in
                (0..<plist.objectCount).compactMap { ref in
                    let header = plistView.header(of: ref)
                    return header.kind == .asciiString && header.count > 0 ? (plistView.offset(of: ref), header.start, header.count) : nil
                }
            }
            for string in strings {
                var damaged = bytes
                damaged[string.start] = 0xC3
                guard let archive = try? Archive(parsing: damaged, view: view, salvaging: true) else {
                    // The top's key marks the top: refused in the readable view.
                    try checkRefusedAsWithoutSalvage(damaged, view: view, "\(name) string at \(string.offset)")
                    XCTAssertEqual(view, .readable)
                    continue
                }
                XCTAssertGreaterThan(archive.breaks, 0, "\(name) string at \(string.offset)")
                let json = try archive.json(view: view, pretty: false)
                let marks = try BrokenMarks.find(in: json)
                XCTAssertEqual(Set(marks.map(\.offset)).count, archive.breaks, "\(name) string at \(string.offset)")
                if let mark = marks.first(where: { $0.offset == string.offset }), mark.reason.hasPrefix("ASCII") {
                    // The string's bytes are kept, from its marker on.
                    XCTAssertEqual(Array(mark.rest.prefix(string.start + string.count - string.offset)), Array(damaged[string.offset..<(string.start + string.count)]), "\(name)")
                }
                try checkSameOutsideMarks(json, whole, "\(name) string at \(string.offset)")
                try checkEncode(json, view: view, "\(name) string at \(string.offset)")
            }
        }
    }

    /// Every string given a length that runs past its bytes (its marker made a data object's
    /// with an 8-byte count, the count read from what follows): the object is marked at its
    /// offset, or its dictionary where it is a key.
    func testEveryObjectWhoseLengthRunsPastItsBytesIsMarked() throws {
        for (name, bytes, view) in try files() {
            let whole = try Archive(parsing: bytes, view: view).json(view: view, pretty: false)
            let plist = try BinaryPlist(bytes: bytes)
            let offsets: [Int] = plist.withView { plistView in
                (0..<plist.objectCount).compactMap { ref in
                    let header = plistView.header(of: ref)
                    return header.kind == .asciiString && header.count > 0 ? plistView.offset(of: ref) : nil
                }
            }
            var salvaged = 0
            for offset in offsets {
                var damaged = bytes
                damaged[offset] = 0x4F
                damaged[offset + 1] = 0x13
                guard (try? Archive(parsing: damaged, view: view)) == nil else { continue }
                if (try? Archive(parsing: damaged, view: view, salvaging: true)) == nil {
                    try checkRefusedAsWithoutSalvage(damaged, view: view, "\(name) object at \(offset)")
                    continue
                }
                try checkSalvage(damaged, whole: whole, view: view, expectedOffsets: [offset], "\(name) object at \(offset)")
                salvaged += 1
            }
            XCTAssertGreaterThan(salvaged, 0, name)
        }
    }

    /// A keyed archive whose plist's top (the archive's root dictionary) is damaged is refused
    /// in the readable view, salvage or not: nothing tells an archive from a plain list (the
    /// raw view shows the mark). Damage elsewhere is marked in the archive's graph
    /// (`KeyedArchiveSalvageTests`).
    func testAKeyedArchiveWithItsTopDamagedIsRefusedInTheReadableView() throws {
        var damaged = try Fixtures.bytes("goios_onevalue.bin")
        let trailer = try BinaryPlist.readTrailer(damaged)
        damaged[trailer.offsetTableStart] = 0xFF
        var strict: CodecError?
        var salvaged: CodecError?
        do { _ = try Archive(parsing: damaged) } catch { strict = error }
        do { _ = try Archive(parsing: damaged, salvaging: true) } catch { salvaged = error }
        XCTAssertNotNil(strict)
        XCTAssertEqual(salvaged?.message, strict?.message)
        let raw = try Archive(parsing: damaged, view: .raw, salvaging: true)
        XCTAssertGreaterThan(raw.breaks, 0)
    }

    /// Without a trailer nothing can be located: a cut file is refused, salvage or not.
    func testATruncatedFileIsRefusedEvenWithSalvage() throws {
        let bytes = try Fixtures.publicFile(Self.plainLists[1])
        for length in [bytes.count - 1, bytes.count - 20, bytes.count / 2] {
            let cut = Array(bytes[..<length])
            XCTAssertThrowsError(try Archive(parsing: cut, salvaging: true))
        }
    }

    /// A container that contains itself stays refused: the repaired file is validated whole.
    func testACycleStaysRefused() throws {
        // ["a", <self>] with one bad entry besides: a string object out of range.
        var writer: [UInt8] = Array("bplist00".utf8)
        let arrayAt = writer.count
        writer += [0xA2, 0, 1]
        let stringAt = writer.count
        writer += [0x51, 0x61]
        let table = writer.count
        writer += [UInt8(arrayAt), UInt8(stringAt), 0xF0]
        writer += [0, 0, 0, 0, 0, 0, 1, 1]
        writer += [0, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        XCTAssertThrowsError(try Archive(parsing: writer, salvaging: true)) { error in
            XCTAssertTrue((error as! CodecError).message.contains("contains itself"), "\(error)")
        }
    }

    // MARK: Checks

    private func checkRefusedAsWithoutSalvage(_ damaged: [UInt8], view: ArchiveView, _ label: String) throws {
        var strict: CodecError?
        var salvaged: CodecError?
        do { _ = try Archive(parsing: damaged, view: view) } catch { strict = error }
        do { _ = try Archive(parsing: damaged, view: view, salvaging: true) } catch { salvaged = error }
        XCTAssertNotNil(strict, label)
        XCTAssertEqual(salvaged?.message, strict?.message, label)
    }

    /// The salvaged decode of `damaged`: valid JSON, one mark per counted break, the expected
    /// offsets among them (where the damage reaches the top), every other value as `whole`
    /// has it; encode refuses it, and leaving the marks out writes a file that reads whole.
    private func checkSalvage(_ damaged: [UInt8], whole: [UInt8], view: ArchiveView, expectedOffsets: [Int], _ label: String) throws {
        XCTAssertThrowsError(try Archive(parsing: damaged, view: view), label)
        let archive = try Archive(parsing: damaged, view: view, salvaging: true)
        XCTAssertGreaterThan(archive.breaks, 0, label)
        let json = try archive.json(view: view, pretty: false)
        let marks = try BrokenMarks.find(in: json)
        // A shared object is counted once and marked at each of its places.
        XCTAssertEqual(Set(marks.map(\.offset)).count, archive.breaks, label)
        for offset in expectedOffsets where !marks.contains(where: { $0.offset == offset }) {
            // A damaged dictionary key marks its dictionary instead.
            XCTAssertTrue(marks.contains { $0.reason.contains("has a key") }, "\(label): no mark at \(offset) in \(marks)")
        }
        try checkSameOutsideMarks(json, whole, label)
        try checkEncode(json, view: view, label)
    }

    private func checkEncode(_ json: [UInt8], view: ArchiveView, _ label: String) throws {
        guard view == .readable else { return }
        let document = try JSONDocument(parsing: json)
        XCTAssertThrowsError(try document.archive(format: .binary), label) { error in
            XCTAssertEqual((error as? CodecError)?.remedy, .dropBroken, label)
        }
        let dropped = try document.droppingBroken()
        XCTAssertFalse(String(decoding: dropped.source, as: UTF8.self).contains("$broken"), label)
        // The top itself marked leaves nothing to write.
        guard let written = try? dropped.archive(format: .binary) else { return }
        let again = try Archive(parsing: written)
        XCTAssertEqual(again.breaks, 0, label)
        XCTAssertFalse(String(decoding: try again.json(view: .readable, pretty: false), as: UTF8.self).contains("$broken"), label)
    }

    /// Every value of `salvaged` that is not a mark is the value `whole` has at its place.
    private func checkSameOutsideMarks(_ salvaged: [UInt8], _ whole: [UInt8], _ label: String) throws {
        func same(_ left: Any, _ right: Any, _ path: String) {
            if let object = left as? [String: Any], object["$broken"] != nil { return }
            switch (left, right) {
            case (let left as [String: Any], let right as [String: Any]):
                XCTAssertEqual(Set(left.keys), Set(right.keys), "\(label) at \(path)")
                for (key, value) in left { if let other = right[key] { same(value, other, path + "." + key) } }
            case (let left as [Any], let right as [Any]):
                XCTAssertEqual(left.count, right.count, "\(label) at \(path)")
                for (index, (value, other)) in zip(left, right).enumerated() { same(value, other, "\(path)[\(index)]") }
            default:
                XCTAssertEqual(left as? NSObject, right as? NSObject, "\(label) at \(path)")
            }
        }
        let options: JSONSerialization.ReadingOptions = [.fragmentsAllowed]
        same(try JSONSerialization.jsonObject(with: Data(salvaged), options: options), try JSONSerialization.jsonObject(with: Data(whole), options: options), "$")
    }

    /// The byte offsets of every array element and dictionary value reference of `bytes`.
    private func referencePositions(_ bytes: [UInt8]) throws -> [Int] {
        let plist = try BinaryPlist(bytes: bytes)
        return plist.withView { view in
            (0..<plist.objectCount).flatMap { ref -> [Int] in
                let header = view.header(of: ref)
                switch header.kind {
                case .array: return (0..<header.count).map { header.start + $0 * view.refSize }
                case .dict: return (header.count..<(2 * header.count)).map { header.start + $0 * view.refSize }
                default: return []
                }
            }
        }
    }
}
