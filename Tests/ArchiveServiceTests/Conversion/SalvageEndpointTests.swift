import ArchiveCodec
import ArchiveServer
import TestSupport
import XCTest

/// `POST /v1/decode?salvage=1` and `POST /v1/encode?dropBroken=1` over real HTTP: a damaged
/// typedstream's JSON with its break marked, said in `Archive-Salvaged` and counted in the
/// metrics; the mark refused on the way back unless dropped.
final class SalvageEndpointTests: ServerTestCase {
    private var damaged: [UInt8] { get throws { try Fixtures.typedStream("imessage-exporter_attributedBody-ExtraData.bin") } }

    func testADamagedStreamIsRefusedWithoutSalvageAndMarkedWithIt() throws {
        let refused = try server.post("/v1/decode", try damaged)
        XCTAssertEqual(refused.status, 400, refused.text)
        XCTAssertEqual(refused.jsonObject?["type"] as? String, "urn:archive-service:problem:malformed-typedstream")
        XCTAssertNil(refused.header("Archive-Salvaged"))
        let reply = try server.post("/v1/decode?salvage=1", try damaged)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Archive-Salvaged"), "1")
        XCTAssertEqual(reply.body, try Archive(parsing: try damaged, salvaging: true).json(view: .readable, pretty: false) + [UInt8(ascii: "\n")])
        XCTAssertTrue(reply.text.contains(#"{"$broken":{"offset":121,"#), reply.text)
        XCTAssertTrue(try server.waitForMetric("archive_salvaged_decodes_total", 1))
        XCTAssertTrue(try server.waitForMetric("archive_salvaged_breaks_total", 1))
    }

    /// A salvage reserves a decode's working memory twice (the repaired copy's read) and the
    /// most its marks can hold (`SalvageLimit`) before it reads: under a budget that holds a
    /// decode of a megabyte of damaged references but not that, the decode is admitted (and
    /// refused as malformed) and the salvage refused for memory (413); with room, the file,
    /// damaged throughout, is refused as over the marks' limit, not held mark by mark.
    func testASalvageReservesWhatItsMarksCanHold() throws {
        var throughout = Array("bplist00".utf8) + [0x10, 7, 0xAF, 0x12, 0x00, 0x05, 0x57, 0xE4]
        for index in 0..<350_180 {
            throughout += [UInt8(truncatingIfNeeded: (index + 2) >> 16), UInt8(truncatingIfNeeded: (index + 2) >> 8), UInt8(truncatingIfNeeded: index + 2)]
        }
        let table = throughout.count
        throughout += [0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 10]
        throughout += [0, 0, 0, 0, 0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]
        throughout += (0..<8).map { UInt8(truncatingIfNeeded: table >> (8 * (7 - $0))) }
        let small = try server(budget: 16 << 20)
        defer { small.stop() }
        let strict = try small.post("/v1/decode", throughout)
        XCTAssertEqual(strict.status, 400, strict.text)
        let refused = try small.post("/v1/decode?salvage=1", throughout)
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertTrue(refused.text.contains("too-large-for-memory"), refused.text)
        XCTAssertEqual(try small.post("/v1/decode?salvage=1", try damaged).status, 200)
        XCTAssertTrue(try small.waitForMetric("archive_memory_reserved_bytes", 0))
        let large = try server(budget: 64 << 20)
        defer { large.stop() }
        let limit = try large.post("/v1/decode?salvage=1", throughout)
        XCTAssertEqual(limit.status, 413, limit.text)
        XCTAssertTrue(limit.text.contains("limit-exceeded"), limit.text)
        XCTAssertTrue(limit.text.contains("more than \(SalvageLimit.marks) places could not be read"), limit.text)
    }

    private func server(budget: Int) throws -> TestServer { try TestServer { $0.memoryBudget = budget } }

    func testAWholeDocumentCarriesNoHeader() throws {
        let whole = try server.post("/v1/decode?salvage=1", try Fixtures.typedStream("imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin"))
        XCTAssertEqual(whole.status, 200, whole.text)
        XCTAssertNil(whole.header("Archive-Salvaged"))
        let plist = try server.post("/v1/decode?salvage=1", try Fixtures.bytes("goios_dict.bin"))
        XCTAssertEqual(plist.status, 200, plist.text)
        XCTAssertNil(plist.header("Archive-Salvaged"))
    }

    /// A damaged binary property list: each damaged object marked, their count in the header;
    /// dropping the marks writes a list that reads whole.
    func testADamagedPropertyListIsSalvagedWithEachMarkCounted() throws {
        var bytes = try Fixtures.publicFile("plain-plist/plaso_com.apple.HIToolbox.plist")
        bytes[252] = 0xFF  // object 11's offset table entry, past the file
        bytes[201] = 0xC3  // a byte of the ASCII string object 9
        let refused = try server.post("/v1/decode", bytes)
        XCTAssertEqual(refused.status, 400, refused.text)
        let reply = try server.post("/v1/decode?salvage=1", bytes)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Archive-Salvaged"), "2")
        let dropped = try server.post("/v1/encode?dropBroken=1", reply.body, contentType: "application/json")
        XCTAssertEqual(dropped.status, 200, dropped.text)
        XCTAssertEqual(try Archive(parsing: dropped.body).breaks, 0)
    }

    /// A cut XML property list: refused as before without salvage; with it, read up to the cut,
    /// the dictionary's own `$broken` member where a key belonged, counted once; dropping the
    /// mark writes the entries read.
    func testACutXMLPropertyListIsSalvaged() throws {
        let whole = try Fixtures.publicFile("plain-plist-with-nested-archive/dracula-terminal-app_Dracula.terminal")
        let text = String(decoding: whole, as: UTF8.self)
        // Cut inside the third <key> of the top dictionary.
        var keys = text.ranges(of: "<key>").makeIterator()
        _ = keys.next()
        _ = keys.next()
        let cut = Array(whole[..<(text.utf8.distance(from: text.startIndex, to: keys.next()!.lowerBound) + 3)])
        let refused = try server.post("/v1/decode", cut)
        XCTAssertEqual(refused.status, 400, refused.text)
        let reply = try server.post("/v1/decode?salvage=1", cut)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Archive-Salvaged"), "1")
        let document = (reply.jsonObject?["$propertyList"] as? [String: Any]) ?? [:]
        XCTAssertEqual(document.count, 3, reply.text)
        XCTAssertNotNil(document["$broken"], reply.text)
        let dropped = try server.post("/v1/encode?dropBroken=1", reply.body, contentType: "application/json")
        XCTAssertEqual(dropped.status, 200, dropped.text)
        let back = try Archive(parsing: dropped.body)
        XCTAssertEqual(back.breaks, 0)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(try back.json(view: .readable, pretty: false))) as? [String: [String: Any]])?["$propertyList"]?.count, 2)
    }

    /// A keyed archive whose graph is broken: refused as before without salvage; with it, the
    /// readable view with the place marked, counted in the header and the metrics; dropping
    /// the mark writes an archive that reads whole.
    func testAKeyedArchiveWithABrokenGraphIsSalvaged() throws {
        var bytes = try Fixtures.bytes("goios_arrays.bin")
        bytes[187] = 0xFF  // the UID object at byte 186 (two elements of one array) names entry 255 of 21
        let refused = try server.post("/v1/decode", bytes)
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertNil(refused.header("Archive-Salvaged"))
        let reply = try server.post("/v1/decode?salvage=1", bytes)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.header("Archive-Salvaged"), "1")
        XCTAssertEqual(reply.body, try Archive(parsing: bytes, salvaging: true).json(view: .readable, pretty: false) + [UInt8(ascii: "\n")])
        XCTAssertTrue(reply.text.contains(#"{"$broken":{"offset":186,"reason":"UID 255 is out of range: $objects has 21 entries","#), reply.text)
        XCTAssertTrue(try server.waitForMetric("archive_salvaged_decodes_total", 1))
        let kept = try server.post("/v1/encode", reply.body, contentType: "application/json")
        XCTAssertEqual(kept.status, 422, kept.text)
        let dropped = try server.post("/v1/encode?dropBroken=1", reply.body, contentType: "application/json")
        XCTAssertEqual(dropped.status, 200, dropped.text)
        XCTAssertEqual(try Archive(parsing: dropped.body).breaks, 0)
    }

    func testEncodeRefusesTheMarkUnlessToldToDropIt() throws {
        let json = try server.post("/v1/decode?salvage=1", try damaged).body
        let refused = try server.post("/v1/encode", json, contentType: "application/json")
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(refused.jsonObject?["type"] as? String, "urn:archive-service:problem:invalid-document")
        XCTAssertTrue((refused.jsonObject?["detail"] as? String)?.contains("dropBroken=1") == true, refused.text)
        let dropped = try server.post("/v1/encode?dropBroken=1", json, contentType: "application/json")
        XCTAssertEqual(dropped.status, 200, dropped.text)
        XCTAssertEqual(try Archive(parsing: dropped.body).breaks, 0)
        // Leaving data out takes an explicit 1, as openapi.yaml says: the other flags' spellings
        // are refused, not read as on or off.
        for spelling in ["true", "yes", "", "TRUE", "2"] {
            let reply = try server.post("/v1/encode?dropBroken=" + spelling, json, contentType: "application/json")
            XCTAssertEqual(reply.status, 400, "dropBroken=\(spelling): \(reply.text)")
        }
        XCTAssertEqual(try server.post("/v1/encode?dropBroken=0", json, contentType: "application/json").status, 422)
    }

    func testSalvageIsRefusedWithNestedAndItsValuesChecked() throws {
        for query in ["salvage=1&nested=1", "salvage=maybe", "dropBroken=1", "salvage=1&view=summary", "salvage=1&view=plain"] {
            let reply = try server.post("/v1/decode?" + query, try damaged)
            XCTAssertEqual(reply.status, 400, query)
        }
    }
}
