import TestSupport
import XCTest

@testable import ArchiveServer

/// The mistakes people make first with curl each get an answer whose `detail` names the fix.
final class CommonMistakeTests: ServerTestCase {
    let archive: [UInt8] = {
        // It has LF and CR bytes in it, as curl --data would strip.
        (try? Fixtures.bytes("goios_nsuuid.bin")) ?? []
    }()

    override func setUpWithError() throws {
        XCTAssertTrue(archive.contains(0x0A))
        try super.setUpWithError()
    }

    private func detail(_ reply: HTTPReply, status: Int, slug: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(reply.status, status, reply.text, file: file, line: line)
        XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:\(slug)", reply.text, file: file, line: line)
        return reply.jsonObject?["detail"] as? String ?? ""
    }

    private func multipart(_ content: [UInt8], name: String) -> (body: [UInt8], contentType: String) {
        let boundary = "------------------------4de4888474972631"
        let head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        return (Array(head.utf8) + content + Array("\r\n--\(boundary)--\r\n".utf8), "multipart/form-data; boundary=\(boundary)")
    }

    func testMultipartUploadWithoutItsContentTypeNamesBothWays() throws {
        let form = multipart(archive, name: "save.plist")
        // With its Content-Type, a decode reads the form (FormDecodeEndpointTests).
        XCTAssertEqual(try server.post("/v1/decode", form.body, contentType: form.contentType).status, 200)
        // The same body without it is recognised.
        let bare = detail(try server.post("/v1/decode", form.body), status: 400, slug: "malformed-plist")
        XCTAssertTrue(bare.contains("--data-binary") && bare.contains("multipart/form-data Content-Type"), bare)
        let json = multipart(Array(#"{"a":1}"#.utf8), name: "team.json")
        let encode = detail(try server.post("/v1/encode", json.body, contentType: json.contentType), status: 415, slug: "unsupported-media-type")
        XCTAssertTrue(encode.contains("--data-binary") && encode.contains("Content-Type: application/json"), encode)
    }

    func testNewlinesStrippedByCurlDataNamesDataBinary() throws {
        let stripped = archive.filter { $0 != 0x0A && $0 != 0x0D }
        let text = detail(try server.post("/v1/decode", stripped, contentType: "application/x-www-form-urlencoded"), status: 400, slug: "malformed-plist")
        XCTAssertTrue(text.contains("--data-binary") && text.contains("newline"), text)
    }

    /// curl's default Content-Type is the same for --data-binary: a plist that is not an
    /// archive, or broken some other way, is not told to stop using --data.
    func testNewlinesStrippedIsNotClaimedForOtherFailures() throws {
        // A plist that is not a whole archive, with a sound trailer whatever its bytes.
        let half = TestArchives.halfArchive()
        let text = detail(try server.post("/v1/decode", half, contentType: "application/x-www-form-urlencoded"), status: 422, slug: "not-keyed-archive")
        XCTAssertFalse(text.contains("--data"), text)
        XCTAssertTrue(text.contains("not a whole keyed archive") && text.contains("($top, name)"), text)
        // A broken archive with its newline bytes intact.
        let corrupt = try Fixtures.corrupt("corrupt-ComplexTest-147.plist")
        let broken = try server.post("/v1/decode", corrupt, contentType: "application/x-www-form-urlencoded")
        XCTAssertGreaterThanOrEqual(broken.status, 400, broken.text)
        XCTAssertFalse(broken.text.contains("curl --data removes"), broken.text)
        XCTAssertFalse(CommonMistake.showsNewlinesStripped(corrupt))
        XCTAssertFalse(CommonMistake.showsNewlinesStripped(half))
        XCTAssertFalse(CommonMistake.showsNewlinesStripped(TestArchives.plainPlist()))
        XCTAssertTrue(CommonMistake.showsNewlinesStripped(archive.filter { $0 != 0x0A && $0 != 0x0D }))
    }

    func testJSONWithoutContentTypeNamesTheHeader() throws {
        let text = detail(
            try server.post("/v1/encode", Array(#"{"team":"Bears"}"#.utf8), contentType: "application/x-www-form-urlencoded"),
            status: 415, slug: "unsupported-media-type")
        XCTAssertTrue(text.contains("-H 'Content-Type: application/json'"), text)
    }

    func testArchiveSentToEncodeNamesDecode() throws {
        for contentType in ["application/json", "application/x-www-form-urlencoded"] {
            let reply = try server.post("/v1/encode", archive, contentType: contentType)
            let text = reply.jsonObject?["detail"] as? String ?? ""
            XCTAssertTrue([400, 415].contains(reply.status), reply.text)
            XCTAssertTrue(text.contains("POST it to /v1/decode"), text)
        }
        let xml = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
        XCTAssertTrue(
            detail(try server.post("/v1/encode", xml, contentType: "application/json"), status: 400, slug: "malformed-json")
                .contains("/v1/decode"))
    }

    func testTypedStreamSentToEncodeSaysWhatItIs() throws {
        let stream = try Fixtures.typedStream("imessage-exporter_attributedBody-MultiPart.bin")
        let text = detail(try server.post("/v1/encode", stream, contentType: "application/json"), status: 400, slug: "malformed-json")
        XCTAssertTrue(text.contains("typedstream") && text.contains("/v1/decode"), text)
    }

    func testJSONSentToDecodeNamesEncode() throws {
        for json in [#"{"team":"Bears"}"#, "  [1,2]", "\u{FEFF}{\"a\":1}"] {
            let text = detail(try server.post("/v1/decode", Array(json.utf8)), status: 400, slug: "malformed-plist")
            XCTAssertTrue(text.contains("/v1/encode") && text.contains("Content-Type: application/json"), text)
        }
    }

    func testRawViewSentToEncodeNamesTheReadableView() throws {
        let raw = try server.post("/v1/decode?view=raw", archive)
        XCTAssertEqual(raw.status, 200)
        let text = detail(try server.post("/v1/encode", raw.body, contentType: "application/json"), status: 422, slug: "invalid-document")
        XCTAssertTrue(text.contains("raw view") && text.contains("without view=raw"), text)
    }

    func testByteOrderMarkIsNamed() throws {
        let text = detail(
            try server.post("/v1/encode", [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8), contentType: "application/json"),
            status: 400, slug: "malformed-json")
        XCTAssertTrue(text.contains("byte order mark") && text.contains("Remove it"), text)
    }

    func testCompressedBodyWithoutContentEncodingIsNamed() throws {
        // A gzip member and a zlib stream (what `deflate` means in HTTP), here of a few stored bytes.
        let gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]
        let zlib: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        for (body, coding) in [(gzip, "gzip"), (zlib, "deflate")] {
            let text = detail(try server.post("/v1/decode", body), status: 400, slug: "malformed-plist")
            XCTAssertTrue(text.contains("Content-Encoding: \(coding)"), text)
            let encode = detail(try server.post("/v1/encode", body, contentType: "application/json"), status: 400, slug: "malformed-json")
            XCTAssertTrue(encode.contains("Content-Encoding: \(coding)"), encode)
        }
    }

    func testUnknownQueryParameterIsRefusedWithTheKnownOnes() throws {
        let text = detail(try server.post("/v1/decode?format=xml", archive), status: 400, slug: "invalid-query")
        XCTAssertTrue(text.contains("format") && text.contains("/v1/encode") && text.contains("view, pretty, maxDepth, exactIntegers"), text)
        let typo = detail(try server.post("/v1/encode?fromat=xml", Array("{}".utf8), contentType: "application/json"), status: 400, slug: "invalid-query")
        XCTAssertTrue(typo.contains("fromat") && typo.contains("takes format"), typo)
        XCTAssertEqual(try server.post("/v1/decode?pretty=1&view=readable&exactIntegers=0&maxDepth=9", archive).status, 200)
    }

    /// A request that succeeds is never second-guessed: JSON-looking strings inside a valid
    /// archive, or a valid document that mentions the raw view's keys, convert as usual.
    func testValidInputIsNotTakenForAMistake() throws {
        let document = Array(#"{"note":"\"$archiver\": and \"$objects\":[ in a string","list":[1]}"#.utf8)
        let encoded = try server.post("/v1/encode", document, contentType: "application/json")
        XCTAssertEqual(encoded.status, 200, encoded.text)
        XCTAssertEqual(try server.post("/v1/decode", encoded.body).text, String(decoding: document, as: UTF8.self) + "\n")
    }

    func testRecognitionReadsOnlyWhatItNeeds() {
        XCTAssertNil(CommonMistake.find(route: .decode, contentType: nil, body: []))
        XCTAssertNil(CommonMistake.find(route: .decode, contentType: "application/octet-stream", body: Array("bplist00".utf8)))
        // A bare magic is not evidence of curl --data; a plist with its newlines gone is.
        XCTAssertNil(CommonMistake.find(route: .decode, contentType: "application/x-www-form-urlencoded", body: Array("bplist00".utf8)))
        XCTAssertEqual(
            CommonMistake.find(
                route: .decode, contentType: "application/x-www-form-urlencoded",
                body: archive.filter { $0 != 0x0A && $0 != 0x0D }), .newlinesStripped)
        XCTAssertEqual(CommonMistake.find(route: .encode, contentType: "application/json", body: Array(#"{"$archiver":"NSKeyedArchiver","$objects":["$null"]}"#.utf8)), .rawViewToEncode)
        XCTAssertNil(CommonMistake.find(route: .encode, contentType: "application/json", body: Array(#"{"a":1}"#.utf8)))
    }
}
