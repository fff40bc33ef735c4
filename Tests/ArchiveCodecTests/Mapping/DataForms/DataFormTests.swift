import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Data values in every format's readable view (`DataForm`, `JSONOutput.dataMembers`) and
/// back through every encoder (`JSONDocument+DataForms`): accounts beside real bookmarks and
/// alias records, text, the depth counted, the bound's fallback, the refusals.
final class DataFormTests: XCTestCase {
    private func decode(_ bytes: [UInt8], maxDepth: Int? = nil, numbers: NumberWrapping = .nonFinite, nested: Bool = false) throws -> (json: [UInt8], depth: Int) {
        let archive = try Archive(parsing: bytes)
        let policy = nested ? DecodePolicy(stackSize: 64 << 20) : nil
        let plan = try archive.plan(view: .readable, pretty: false, maxDepth: maxDepth, numbers: numbers, nested: policy)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
        return (text, plan.depth)
    }

    private func encode(_ json: [UInt8]) throws -> [UInt8] { try JSONDocument(parsing: json).archive(format: .binary) }

    private func object(_ json: [UInt8]) throws -> Any { try JSONSerialization.jsonObject(with: Data(json)) }

    private func assertSame(_ original: [UInt8], _ json: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
        let again = try Archive(parsing: encode(json))
        XCTAssertNil(try Archive(parsing: original).difference(from: again), file: file, line: line)
    }

    private static let withAccounts = [
        "keyed-archive/fq_recentapps.sfl2", "keyed-archive/fq_recentdocs.sfl2", "plain-plist/plaso_Safari-Downloads.plist", "plain-plist/plaso_com.apple.loginitems.plist",
        "plain-plist/plaso_com.apple.TimeMachine.plist"
    ]

    /// The accounts of real files say what each points to.
    func testRealFilesReadWithTheirAccounts() throws {
        let apps = try object(decode(Fixtures.publicFile("keyed-archive/fq_recentapps.sfl2")).json) as! [String: Any]
        let items = apps["items"] as! [[String: Any]]
        XCTAssertEqual(items.count, 10)
        let terminal = (items[0]["Bookmark"] as! [String: Any])["$bookmark"] as! [String: Any]
        XCTAssertEqual(terminal["path"] as? [String], ["System", "Applications", "Utilities", "Terminal.app"])
        XCTAssertEqual(terminal["displayName"] as? String, "Terminal")
        XCTAssertEqual(terminal["created"] as? String, "2020-06-06T06:44:56Z")
        let volume = terminal["volume"] as! [String: Any]
        XCTAssertEqual(volume["name"] as? String, "Macintosh HD")
        XCTAssertEqual(volume["uuid"] as? String, "0A81F3B1-51D9-3335-B3E3-169C3640360D")

        let docs = try object(decode(Fixtures.publicFile("keyed-archive/fq_recentdocs.sfl2")).json) as! [String: Any]
        let book = (((docs["items"] as! [[String: Any]])[0]["Bookmark"] as! [String: Any])["$bookmark"] as! [String: Any])
        XCTAssertEqual(book["path"] as? [String], ["Users", "davidvandriessen", "Desktop", "bin", "book.pdf"])

        let downloads = try object(decode(Fixtures.publicFile("plain-plist/plaso_Safari-Downloads.plist")).json) as! [String: Any]
        let entry = ((downloads["$propertyList"] as! [String: Any])["DownloadHistory"] as! [[String: Any]])[0]
        let blob = (entry["DownloadEntryBookmarkBlob"] as! [String: Any])["$bookmark"] as! [String: Any]
        let downloadPath = (entry["DownloadEntryPath"] as! String).split(separator: "/").map(String.init)
        XCTAssertEqual((blob["path"] as? [String])?.suffix(downloadPath.count - 1), downloadPath.dropFirst(), "the path Safari wrote beside it")

        let login = try object(decode(Fixtures.publicFile("plain-plist/plaso_com.apple.loginitems.plist")).json) as! [String: Any]
        let item = (((login["$propertyList"] as! [String: Any])["SessionItems"] as! [String: Any])["CustomListItems"] as! [[String: Any]])[0]
        let alias = (item["Alias"] as! [String: Any])["$alias"] as! [String: Any]
        XCTAssertEqual(alias["name"] as? String, item["Name"].map { "\($0).app" })
        XCTAssertEqual((alias["volume"] as! [String: Any])["name"] as? String, "Macintosh HD")

        let timeMachine = try object(decode(Fixtures.publicFile("plain-plist/plaso_com.apple.TimeMachine.plist")).json) as! [String: Any]
        let backup = ((timeMachine["$propertyList"] as! [String: Any])["BackupAlias"] as! [String: Any])["$alias"] as! [String: Any]
        XCTAssertEqual(backup["version"] as? Int, 2)
        XCTAssertEqual(backup["name"] as? String, "BackUpFast")
        XCTAssertEqual(backup["carbonPath"] as? String, "BackUpFast:BackUpFast")
        XCTAssertEqual((backup["volume"] as! [String: Any])["path"] as? String, "/Volumes/BackUpFast")
        XCTAssertEqual((backup["volume"] as! [String: Any])["fileSystem"] as? String, "H+")
    }

    /// The depth planned is the nesting written, with exact integers or not, and the files
    /// come back value for value, the accounts read back and checked.
    func testDepthCountsTheAccountsAndTheFilesComeBack() throws {
        for name in Self.withAccounts {
            let bytes = try Fixtures.publicFile(name)
            for numbers in [NumberWrapping.nonFinite, .integers, .all] {
                let (json, depth) = try decode(bytes, numbers: numbers)
                XCTAssertEqual(jsonNesting(json), depth, name)
                XCTAssertTrue(String(decoding: json, as: UTF8.self).contains("\"$bookmark\"") || String(decoding: json, as: UTF8.self).contains("\"$alias\""), name)
                try assertSame(bytes, json)
            }
        }
    }

    /// Under a bound the document with its accounts does not fit, the accounts are left out
    /// (bytes alone) before anything moves to a `$table`; a bound it fits changes nothing.
    func testABoundTooSmallForTheAccountsLeavesThemOut() throws {
        for name in Self.withAccounts {
            let bytes = try Fixtures.publicFile(name)
            let (full, depth) = try decode(bytes)
            XCTAssertEqual(try decode(bytes, maxDepth: depth).json, full, name)
            for bound in [4, 5, depth - 1] {
                guard let (json, planned) = try? decode(bytes, maxDepth: bound) else { continue }
                let text = String(decoding: json, as: UTF8.self)
                XCTAssertFalse(text.contains("\"$bookmark\"") || text.contains("\"$alias\""), "\(name) at \(bound)")
                XCTAssertEqual(jsonNesting(json), planned, "\(name) at \(bound)")
                XCTAssertLessThanOrEqual(planned, bound)
                try assertSame(bytes, json)
            }
        }
    }

    /// An account edited so that it disagrees with the bytes is refused at the member that
    /// differs; reordered or alone it is accepted; the bytes alone always are.
    func testAnEditedAccountIsRefusedWhereItDiffers() throws {
        let bytes = try Fixtures.publicFile("keyed-archive/fq_recentapps.sfl2")
        let text = String(decoding: try decode(bytes).json, as: UTF8.self)
        let edited = text.replacingFirst(#""name":"Macintosh HD""#, with: #""name":"Other HD""#)
        XCTAssertThrowsError(try encode(Array(edited.utf8))) { error in
            let error = error as! CodecError
            XCTAssertEqual(error.kind, .invalidDocument)
            XCTAssertEqual(error.jsonPath, "$.items[0].Bookmark.$bookmark.volume.name")
            XCTAssertTrue(error.message.contains("$bookmark disagrees"), error.message)
            XCTAssertTrue(error.message.contains("\"Macintosh HD\""), error.message)
        }
        let path = text.replacingFirst(#""Terminal.app"]"#, with: #""Terminal.app","x"]"#)
        XCTAssertThrowsError(try encode(Array(path.utf8))) { error in
            XCTAssertEqual((error as! CodecError).jsonPath, "$.items[0].Bookmark.$bookmark.path")
        }
        // The bytes alone: every account removed.
        let alone = text.removingMembers(#","$bookmark":"#)
        XCTAssertFalse(alone.contains("$bookmark"))
        try assertSame(bytes, Array(alone.utf8))
        // Numbers in the other spellings (`$integer`, `$real`), a member moved: still the same account.
        let exact = try decode(bytes, numbers: .all).json
        XCTAssertTrue(String(decoding: exact, as: UTF8.self).contains("$integer"))
        try assertSame(bytes, exact)
        let moved = text.replacingFirst(#""displayName":"Terminal","#, with: "").replacingFirst(#""$bookmark":{"#, with: #""$bookmark":{"displayName":"Terminal","#)
        XCTAssertNotEqual(moved, text)
        try assertSame(bytes, Array(moved.utf8))

        let login = String(decoding: try decode(Fixtures.publicFile("plain-plist/plaso_com.apple.loginitems.plist")).json, as: UTF8.self)
        XCTAssertThrowsError(try encode(Array(login.replacingOccurrences(of: #""fileID":3203385"#, with: #""fileID":3203386"#).utf8))) { error in
            XCTAssertEqual((error as! CodecError).jsonPath, "$.$propertyList.SessionItems.CustomListItems[0].Alias.$alias.fileID")
        }
    }

    func testAccountsStandOnlyBesideTheirBytes() throws {
        let refused: [(String, String)] = [
            (#"{"$propertyList":{"a":{"$data":"AAEC","$bookmark":{}}}}"#, "not a bookmark"),
            (#"{"$propertyList":{"a":{"$data":"AAEC","$alias":{}}}}"#, "not a alias record"),
            (#"{"x":{"$string":"s","$bookmark":{}}}"#, "stands beside $data or $bytes"),
            (#"{"$class":"A","x":{"$bytes":"AAEC","$alias":{}}}"#, "not a alias record"),
            (#"{"x":{"$text":5}}"#, "$text and $bytesText take a string"),
            (#"{"$propertyList":{"a":{"$text":"x","$bookmark":{}}}}"#, "starts with $")
        ]
        for (text, words) in refused {
            XCTAssertThrowsError(try encode(Array(text.utf8)), text) { error in
                XCTAssertTrue((error as! CodecError).message.contains(words), "\(text): \((error as! CodecError).message)")
            }
        }
    }

    /// An NSData equal to another carries `$id` beside its account, an NSMutableData its
    /// `$class`, inline bytes take `$bytes`: the depth counts each, and each reads back.
    func testAccountsBesideIDsClassesAndInlineBytes() throws {
        let first = try Fixtures.publicFile("bookmark/fq_sample1.book")
        let second = try Fixtures.publicFile("bookmark/fq_sample2.book")
        let bytes = try buildArchive([
            .object("Box", [("a", .uid(2)), ("b", .uid(4)), ("m", .uid(3)), ("inline", .data(second))]),
            .data(first),
            .object("NSMutableData", [("NS.data", .data(second))]),
            .data(first)
        ])
        for numbers in [NumberWrapping.nonFinite, .integers, .all] {
            let (json, depth) = try decode(bytes, numbers: numbers)
            let text = String(decoding: json, as: UTF8.self)
            XCTAssertNotNil(text.range(of: #"\{"\$id":[0-9]+,"\$data":"Ym9va[^"]*","\$bookmark":\{"path":\["Applications""#, options: .regularExpression))
            XCTAssertNotNil(text.range(of: #""inline":\{"\$bytes":"Ym9va[^"]*","\$bookmark":\{"path":\["Users""#, options: .regularExpression))
            XCTAssertNotNil(text.range(of: #""m":\{"\$class":"NSMutableData",[^{]*"\$data":"Ym9va[^"]*","\$bookmark""#, options: .regularExpression))
            XCTAssertEqual(text.components(separatedBy: "\"$bookmark\"").count, 5)
            XCTAssertEqual(jsonNesting(json), depth)
            try assertSame(bytes, json)
            XCTAssertLessThanOrEqual(try decode(bytes, maxDepth: 3, numbers: numbers).depth, 3)
        }
    }

    /// Text in data reads as `$text` (inline bytes `$bytesText`) in keyed archives, plain
    /// property lists and typedstreams, and comes back as the same bytes.
    func testTextReadsAsTextAndComesBackAsTheSameBytes() throws {
        let keyed = try buildArchive([
            .object("Note", [("title", .uid(2)), ("inline", .data(Array("line one\nline two".utf8))), ("binary", .data([0, 1, 2])), ("empty", .data([]))]),
            .data(Array("héllo".utf8))
        ])
        let (json, depth) = try decode(keyed)
        let text = String(decoding: json, as: UTF8.self)
        XCTAssertEqual(
            text, #"{"$class":"Note","title":{"$text":"héllo"},"inline":{"$bytesText":"line one\nline two"},"binary":{"$bytes":"AAEC"},"empty":{"$bytes":""}}"#)
        XCTAssertEqual(jsonNesting(json), depth)
        try assertSame(keyed, json)

        let plain = try encode(Array(#"{"$propertyList":{"t":{"$text":"tab\there"},"d":{"$data":"aGk="}}}"#.utf8))
        XCTAssertEqual(String(decoding: try decode(plain).json, as: UTF8.self), #"{"$propertyList":{"t":{"$text":"tab\there"},"d":{"$text":"hi"}}}"#)

        let stream = try encode(Array(#"{"$typedstream":[{"@":{"$text":"hello"}},{"@":{"$class":"NSMutableData","$data":"aGk="}}]}"#.utf8))
        XCTAssertEqual(stream, try encode(Array(#"{"$typedstream":[{"@":{"$data":"aGVsbG8="}},{"@":{"$class":"NSMutableData","$text":"hi"}}]}"#.utf8)))
        XCTAssertEqual(
            String(decoding: try decode(stream).json, as: UTF8.self), #"{"$typedstream":[{"@":{"$text":"hello"}},{"@":{"$class":"NSMutableData","$text":"hi"}}]}"#)
    }

    /// A property list in XML is text, but a nested payload: it stays `$data`, and `--nested`
    /// decodes it.
    func testNestedPayloadsStayDataForTheNestedView() throws {
        let inner = Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>k</key><string>v</string></dict></plist>"#.utf8)
        let outer = try encode(Array(#"{"$propertyList":{"x":{"$data":"\#(Data(inner).base64EncodedString())"}}}"#.utf8))
        XCTAssertTrue(String(decoding: try decode(outer).json, as: UTF8.self).contains(#"{"$data":"PD94"#))
        let nested = String(decoding: try decode(outer, nested: true).json, as: UTF8.self)
        XCTAssertTrue(nested.contains(#"{"$data":{"$propertyList":{"k":"v"},"$format":"xml"}}"#), nested)
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }

    /// The text without each member that begins with `prefix` (a comma, the key, the colon) and
    /// the object after it (brackets in strings aside).
    fileprivate func removingMembers(_ prefix: String) -> String {
        var text = Array(utf8)
        let marker = Array(prefix.utf8)
        var index = 0
        while index + marker.count <= text.count {
            guard Array(text[index..<index + marker.count]) == marker else {
                index += 1
                continue
            }
            var end = index + marker.count
            var depth = 0
            var inString = false
            repeat {
                let byte = text[end]
                if inString {
                    if byte == UInt8(ascii: "\\") { end += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                }
                end += 1
            } while depth > 0
            text.removeSubrange(index..<end)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
