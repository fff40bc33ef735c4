import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Salvage of XML property lists (docs/mapping.md, "Salvage"): real files cut at every byte,
/// each read up to its break with the break marked where it stands (a container's element or a
/// dictionary's value, or the dictionary's own `$broken` member where a key belongs), every
/// value before it as the whole file has it, and nothing refused that salvage can read.
final class XMLPlistSalvageTests: XCTestCase {
    /// Real XML property lists, and real binary ones written as XML by the codec (Apple's layout).
    private func files() throws -> [(name: String, bytes: [UInt8])] {
        var files: [(name: String, bytes: [UInt8])] = try [
            "plain-plist-with-nested-archive/dracula-terminal-app_Dracula.terminal", "plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal"
        ].map { ($0, try Fixtures.publicFile($0)) }
        for name in ["plain-plist/plaso_com.apple.loginitems.plist", "plain-plist/imessage-exporter_message_summary_info-Deleted.plist"] {
            let document = try JSONDocument(parsing: try Archive(parsing: try Fixtures.publicFile(name)).json(view: .readable, pretty: false))
            files.append((name + " as XML", try document.archive(format: .xml)))
        }
        for file in files { XCTAssertTrue(KeyedArchive.looksLikeXML(file.bytes), file.name) }
        return files
    }

    func testEveryCutIsReadUpToItsBreak() throws {
        for (name, bytes) in try files() {
            let whole = try jsonObject(try Archive(parsing: bytes).json(view: .readable, pretty: false))
            let wholeLeaves = leaves(whole)
            // Salvaged: every cut from the end of the top container's opening tag to the end
            // of its closing tag; refused as without salvage: the cuts before and after.
            let text = String(decoding: bytes, as: UTF8.self)
            // A top dictionary holds the mark once it holds an entry's key: broken before it,
            // it would be the mark itself, and nothing would hold that.
            let plistTag = text.range(of: "<plist")!.upperBound
            let opening = text[plistTag...].range(of: "</key>") ?? text[plistTag...].range(of: "<array>")!
            let closing = text.range(of: "</dict>", options: .backwards) ?? text.range(of: "</array>", options: .backwards)!
            let salvageable = text.utf8.distance(from: text.startIndex, to: opening.upperBound)..<text.utf8.distance(from: text.startIndex, to: closing.upperBound)
            var (salvaged, refused, previousLeaves) = (0, 0, 0)
            for length in 0..<bytes.count {
                let cut = Array(bytes[..<length])
                let label = "\(name) cut at \(length)"
                let archive: Archive
                do {
                    archive = try Archive(parsing: cut, salvaging: true)
                } catch {
                    // Refused as without salvage: nothing opened yet, or the top value closed.
                    XCTAssertThrowsError(try Archive(parsing: cut), label) { strict in XCTAssertEqual("\(error)", "\(strict)", label) }
                    XCTAssertFalse(salvageable.contains(length), label)
                    refused += 1
                    continue
                }
                // Whole: only whitespace after </plist> was cut.
                if archive.breaks == 0, !salvageable.contains(length) { continue }
                XCTAssertTrue(salvageable.contains(length), label)
                salvaged += 1
                XCTAssertEqual(archive.breaks, 1, label)
                let text = try archive.json(view: .readable, pretty: false)
                let salvagedJSON = try jsonObject(text)
                let marks = try BrokenMarks.find(in: text)
                XCTAssertEqual(marks.count, 1, label)
                if let mark = marks.first {
                    XCTAssertLessThanOrEqual(mark.offset, length, label)
                    XCTAssertEqual(mark.rest, Data(cut[mark.offset...]), label)
                }
                // What salvage read is what the whole file holds there, and never less than
                // a shorter cut read.
                let kept = try JSONDocument(parsing: text).droppingBroken()
                let keptJSON = try jsonObject(kept.source)
                XCTAssertTrue(isPart(keptJSON, of: whole), label)
                let count = leaves(keptJSON)
                XCTAssertGreaterThanOrEqual(count, previousLeaves, label)
                previousLeaves = count
                // The pretty text holds the same document (every 17th cut: the check is slow).
                if length % 17 == 0 {
                    XCTAssertEqual(try jsonObject(try archive.json(view: .readable, pretty: true)) as? NSObject, salvagedJSON as? NSObject, label)
                }
            }
            XCTAssertEqual(salvaged, salvageable.count, name)
            XCTAssertGreaterThan(refused, 0, name)
            // The longest cut salvaged holds every value: only closing tags were missing.
            XCTAssertEqual(previousLeaves, wholeLeaves, name)
        }
    }

    /// A break where a dictionary's key belongs is the dictionary's `$broken` member, after its
    /// whole entries; one where a value belongs is that value; `encode` refuses either and,
    /// told to drop what is broken, drops the member or the entry alone.
    func testWhereTheBreakIsMarked() throws {
        let head = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><integer>1</integer><key>list</key><array><string>x</string>"#
        let atKey = Array((head + "</array><ke").utf8)
        let atValue = Array((head + "</array><key>b</key><str").utf8)
        let inArray = Array((head + "<date>2001").utf8)

        let keyed = try jsonObject(try Archive(parsing: atKey, salvaging: true).json(view: .readable, pretty: false)) as? [String: Any]
        let keyedDictionary = keyed?["$propertyList"] as? [String: Any]
        XCTAssertEqual(keyedDictionary?["a"] as? Int, 1)
        XCTAssertEqual(keyedDictionary?["list"] as? [String], ["x"])
        let member = keyedDictionary?["$broken"] as? [String: Any]
        XCTAssertEqual(member?["offset"] as? Int, head.utf8.count + 8)
        XCTAssertNotNil(member?["reason"] as? String)

        let valued = try jsonObject(try Archive(parsing: atValue, salvaging: true).json(view: .readable, pretty: false)) as? [String: Any]
        let valueMark = (valued?["$propertyList"] as? [String: Any])?["b"] as? [String: Any]
        XCTAssertNotNil(valueMark?["$broken"], "\(String(describing: valued))")

        let listed = try jsonObject(try Archive(parsing: inArray, salvaging: true).json(view: .readable, pretty: false)) as? [String: Any]
        let list = (listed?["$propertyList"] as? [String: Any])?["list"] as? [Any]
        XCTAssertEqual(list?.count, 2)
        XCTAssertEqual(list?.first as? String, "x")

        for (damaged, expected) in [(atKey, #"{"a":1,"list":["x"]}"#), (atValue, #"{"a":1,"list":["x"]}"#), (inArray, #"{"a":1,"list":["x"]}"#)] {
            let document = try JSONDocument(parsing: try Archive(parsing: damaged, salvaging: true).json(view: .readable, pretty: false))
            XCTAssertThrowsError(try document.archive(format: .xml)) { error in
                XCTAssertTrue("\(error)".contains("$broken"), "\(error)")
            }
            let dropped = try document.droppingBroken()
            let back = try Archive(parsing: try dropped.archive(format: .xml)).json(view: .readable, pretty: false)
            XCTAssertEqual(try jsonObject(back) as? NSObject, try jsonObject(Array(#"{"$propertyList":\#(expected)}"#.utf8)) as? NSObject)
        }
    }

    /// A container opened where a dictionary's key belongs and broken inside: the break is
    /// where the container begins (the strict read refuses it there once it closes), the
    /// dictionary's `$broken` member after its whole entries, the container's text the rest.
    func testAContainerWhereAKeyBelongsIsTheBreak() throws {
        let head = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><dict><key>CF$UID</key><integer>3</integer>"#
        let damaged = Array((head + "<array><string>x</string><").utf8)
        let archive = try Archive(parsing: damaged, salvaging: true)
        XCTAssertEqual(archive.breaks, 1)
        let json = try archive.json(view: .readable, pretty: false)
        let inner = ((try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])?["$propertyList"] as? [String: Any])?["a"] as? [String: Any]
        XCTAssertEqual(inner?["CF$UID"] as? Int, 3, String(decoding: json, as: UTF8.self))
        let marks = try BrokenMarks.find(in: json)
        XCTAssertEqual(marks.map(\.offset), [head.utf8.count])
        XCTAssertEqual(marks.first?.rest, Data(damaged[head.utf8.count...]))
        XCTAssertEqual(marks.first?.reason, "<dict> has a value where a <key> belongs")
    }

    /// The mark begins where the value that could not be read begins, so that its text is the
    /// rest: a value cut or broken inside its element, a container closed where a key belongs.
    /// A dictionary broken before its first entry is the mark itself, left out whole by
    /// `--drop-broken` as any marked value. In the raw view, beside a key `$broken` of the
    /// file's own, the member keeps a key of its own.
    func testTheMarkBeginsWhereItsValueBegins() throws {
        let head = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array>"#
        for (tail, restStart) in [
            ("<string>hello world", "<string>"), ("<true><false/></array></plist>", "<true>"), ("<integer>5</intger></array></plist>", "<integer>"),
            ("<dict><key>a</key><integer>0</integer><array><integer>1</integer></array></dict></array></plist>", "<array><integer>1")
        ] {
            let damaged = Array((head + tail).utf8)
            let json = try Archive(parsing: damaged, salvaging: true).json(view: .readable, pretty: false)
            let marks = try BrokenMarks.find(in: json)
            XCTAssertEqual(marks.count, 1, tail)
            XCTAssertEqual(marks.first.map { String(decoding: $0.rest, as: UTF8.self) }?.hasPrefix(restStart), true, "\(tail): \(String(decoding: json, as: UTF8.self))")
        }
        // Broken before its first entry: `b` is the mark, left out whole.
        let empty = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><integer>1</integer><key>b</key><dict><bogus/>"#.utf8)
        let document = try JSONDocument(parsing: try Archive(parsing: empty, salvaging: true).json(view: .readable, pretty: false))
        let b = ((try JSONSerialization.jsonObject(with: Data(document.source)) as? [String: Any])?["$propertyList"] as? [String: Any])?["b"] as? [String: Any]
        XCTAssertEqual(b?.keys.sorted(), ["$broken"])
        XCTAssertEqual(
            try JSONSerialization.jsonObject(with: Data(try Archive(parsing: try document.droppingBroken().archive(format: .binary)).json(view: .readable, pretty: false))) as? NSDictionary,
            ["$propertyList": ["a": 1]] as NSDictionary)
        // The raw view with a key `$broken` of the file's.
        let keyed = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>$broken</key><integer>1</integer><key>y</key><string>s</string><bogus/>"#.utf8)
        let raw = try Archive(parsing: keyed, view: .raw, salvaging: true).json(view: .raw, pretty: false)
        let object = try JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any]
        XCTAssertEqual(object?["$broken"] as? Int, 1, String(decoding: raw, as: UTF8.self))
        XCTAssertNotNil(object?["\u{0}$broken"], String(decoding: raw, as: UTF8.self))
        // A tag with markup inside it is refused, not read as an empty key.
        XCTAssertThrowsError(try Archive(parsing: Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key<zz/><integer>1</integer></dict></plist>"#.utf8)))
    }

    /// Refused as without salvage: a break before the top container opens, a lost
    /// `</plist>`, text that is not UTF-8; and an archive in XML in the readable view (its
    /// raw view is salvaged).
    func testWhatStaysRefused() throws {
        let whole = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>"#
        for damaged in [String(whole.prefix(30)), String(whole.prefix(58)), whole.replacingOccurrences(of: "</plist>", with: "</pli")] {
            var strict = ""
            do { _ = try Archive(parsing: Array(damaged.utf8)) } catch { strict = "\(error)" }
            XCTAssertFalse(strict.isEmpty, damaged)
            XCTAssertThrowsError(try Archive(parsing: Array(damaged.utf8), salvaging: true), damaged) { error in
                XCTAssertEqual("\(error)", strict, damaged)
            }
        }
        let archive = try Fixtures.bytes("goios_dict.xml")
        let cut = Array(archive[..<(archive.count * 2 / 3)])
        XCTAssertThrowsError(try Archive(parsing: cut, salvaging: true))
        let raw = try Archive(parsing: cut, view: .raw, salvaging: true)
        XCTAssertEqual(raw.breaks, 1)
        XCTAssertEqual(try BrokenMarks.find(in: try raw.json(view: .raw, pretty: false)).count, 1)
    }

    /// A UID (`<dict><key>CF$UID</key><integer>…`) broken before its value is the mark itself,
    /// where the UID stands: every cut of an archive in XML inside one reads (raw view) without
    /// a `CF$UID` dictionary, which dropping the mark would leave empty where a UID was.
    func testABrokenUIDIsTheMark() throws {
        let archive = try Fixtures.bytes("goios_dict.xml")
        let text = String(decoding: archive, as: UTF8.self)
        var checked = 0
        var searched = text.startIndex
        while let key = text[searched...].range(of: "<key>CF$UID</key>") {
            let start = text.utf8.distance(from: text.startIndex, to: key.upperBound)
            let end = text.utf8.distance(from: text.startIndex, to: text[key.upperBound...].range(of: "</integer>")!.lowerBound)
            let dictionary = text.utf8.distance(from: text.startIndex, to: text[..<key.lowerBound].range(of: "<dict>", options: .backwards)!.lowerBound)
            for length in start..<end {
                let raw = try Archive(parsing: Array(archive[..<length]), view: .raw, salvaging: true)
                let json = String(decoding: try raw.json(view: .raw, pretty: false), as: UTF8.self)
                XCTAssertFalse(json.contains("CF$UID"), "cut at \(length): \(json)")
                XCTAssertEqual(try BrokenMarks.find(in: Array(json.utf8)).first?.offset, dictionary, "cut at \(length)")
                checked += 1
            }
            searched = key.upperBound
        }
        XCTAssertGreaterThan(checked, 20)
    }

    // MARK: Checks

    private func jsonObject(_ bytes: [UInt8]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// The scalars of `value`, counted.
    private func leaves(_ value: Any) -> Int {
        switch value {
        case let dictionary as [String: Any]: dictionary.values.reduce(0) { $0 + leaves($1) }
        case let array as [Any]: array.reduce(0) { $0 + leaves($1) }
        default: 1
        }
    }

    /// Whether `part` is `whole` with some trailing values left out: a dictionary's keys its
    /// own, each value a part of the whole's; an array's elements a prefix of the whole's,
    /// the last a part of its counterpart; a data value's `$data` and its readable members
    /// equal; a scalar equal.
    private func isPart(_ part: Any, of whole: Any) -> Bool {
        switch (part, whole) {
        case (let part as [String: Any], let whole as [String: Any]):
            if part["$data"] != nil || part["$date"] != nil || part["$text"] != nil { return (part as NSDictionary) == (whole as NSDictionary) }
            return part.allSatisfy { key, value in whole[key].map { isPart(value, of: $0) } ?? false }
        case (let part as [Any], let whole as [Any]):
            guard part.count <= whole.count else { return false }
            for (index, element) in part.enumerated() where index < part.count - 1 {
                guard (element as? NSObject) == (whole[index] as? NSObject) else { return false }
            }
            return part.last.map { isPart($0, of: whole[part.count - 1]) } ?? true
        default:
            return (part as? NSObject) == (whole as? NSObject)
        }
    }
}
