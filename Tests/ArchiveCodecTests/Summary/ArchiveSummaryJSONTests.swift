import XCTest

@testable import ArchiveCodec

/// The summary's JSON: its members in their order, the optional ones only when they say
/// something, escaping, and the indented form.
final class ArchiveSummaryJSONTests: XCTestCase {
    private func sample() -> ArchiveSummary {
        var summary = ArchiveSummary(format: .keyedArchive)
        summary.bytes = 120
        summary.objects = 7
        summary.shared = 1
        summary.cyclic = 2
        summary.classes = [
            ArchiveSummary.ClassUse(
                name: "Team", chain: ["Team", "NSObject"], count: 2, shared: 1, cyclic: 2,
                keys: [ArchiveSummary.KeyUse(key: "na\"me", count: 2, kinds: [.init(kind: "string", count: 2)], kindsNotListed: 0)], keysNotListed: 3)
        ]
        summary.readableNesting = 4
        summary.rawNesting = 3
        summary.nestedPayloads = [ArchiveSummary.PayloadCount(format: .propertyList, count: 1)]
        summary.noteDataKind("png", bytes: 40)
        summary.largestStrings = [ArchiveSummary.LargeValue(length: 5, preview: "Bears", path: "$id 1 .name")]
        summary.largestData = [ArchiveSummary.LargeValue(length: 3, preview: "AAEC", file: "a.plist")]
        return summary
    }

    func testCompactText() {
        let text = String(decoding: sample().json(pretty: false), as: UTF8.self)
        XCTAssertEqual(
            text,
            #"{"format":"keyedArchive","files":1,"bytes":120,"objects":7,"shared":1,"cyclic":2,"#
                + #""classes":[{"class":"Team","chain":["Team","NSObject"],"count":2,"shared":1,"cyclic":2,"keys":[{"key":"na\"me","count":2,"kinds":{"string":2}}],"keysNotListed":3}],"#
                + #""nesting":{"readable":4,"raw":3},"nestedPayloads":[{"format":"propertyList","count":1}],"dataKinds":[{"kind":"png","count":1,"bytes":40}],"#
                + #""largestStrings":[{"length":5,"preview":"Bears","path":"$id 1 .name"}],"largestData":[{"length":3,"preview":"AAEC","file":"a.plist"}]}"#)
    }

    func testPropertyListMembersAndIndentation() {
        var summary = ArchiveSummary(format: .propertyList)
        summary.dictionaries = 1
        summary.dictionaryKeys = [ArchiveSummary.KeyUse(key: "k", count: 1, kinds: [.init(kind: "integer", count: 1)], kindsNotListed: 2)]
        summary.dictionaryKeysNotListed = 4
        summary.classesNotListed = 5
        let text = String(decoding: summary.json(pretty: false), as: UTF8.self)
        XCTAssertTrue(text.contains(#""classes":[],"classesNotListed":5,"#), text)
        XCTAssertTrue(
            text.hasSuffix(#""containers":{"arrays":0,"dictionaries":1},"dictionaryKeys":[{"key":"k","count":1,"kinds":{"integer":1},"kindsNotListed":2}],"dictionaryKeysNotListed":4}"#), text)
        let pretty = String(decoding: summary.json(pretty: true), as: UTF8.self)
        XCTAssertTrue(pretty.hasPrefix("{\n  \"format\": \"propertyList\",\n"), pretty)
        XCTAssertTrue(pretty.hasSuffix("}\n"), pretty)
    }
}
