import HTTPCore
import TestSupport
import XCTest

final class MultipartFormTests: XCTestCase {
    private let boundary = Array("XyZ".utf8)

    /// A body as curl sends it: each part a boundary line, a Content-Disposition (and a
    /// Content-Type for a file), a blank line and the content.
    private func body(_ parts: [(disposition: String, content: String)], preamble: String = "", epilogue: String = "") -> [UInt8] {
        var text = preamble
        for part in parts {
            text += "--XyZ\r\nContent-Disposition: \(part.disposition)\r\nContent-Type: application/octet-stream\r\n\r\n\(part.content)\r\n"
        }
        text += "--XyZ--\r\n" + epilogue
        return Array(text.utf8)
    }

    private func parts(_ body: [UInt8], maximumParts: Int = 1_000_000) throws(MultipartFailure) -> [MultipartPart] {
        try MultipartForm.parts(of: body, boundary: boundary, maximumParts: maximumParts)
    }

    private func failure(_ body: [UInt8], maximumParts: Int = 1_000_000, file: StaticString = #filePath, line: UInt = #line) -> MultipartFailure? {
        do {
            let parts = try parts(body, maximumParts: maximumParts)
            XCTFail("read \(parts.count) parts", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func content(_ part: MultipartPart, of body: [UInt8]) -> String {
        String(decoding: body[part.content], as: UTF8.self)
    }

    // MARK: Boundary

    func testBoundaryFromTheContentType() throws {
        XCTAssertEqual(try MultipartForm.boundary(contentType: "multipart/form-data; boundary=----X1"), Array("----X1".utf8))
        XCTAssertEqual(try MultipartForm.boundary(contentType: "Multipart/Form-Data; charset=utf-8; BOUNDARY=\"a b:c\""), Array("a b:c".utf8))
    }

    func testBoundaryRefusals() {
        for contentType in [
            "multipart/form-data", "multipart/mixed; boundary=x", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"ends \"",
            "multipart/form-data; boundary=" + String(repeating: "b", count: 71), "multipart/form-data; boundary=\"a\\\"b\"",
            "multipart/form-data; boundary=\"open"
        ] {
            XCTAssertThrowsError(try MultipartForm.boundary(contentType: contentType), contentType) { error in
                XCTAssertEqual((error as? MultipartFailure)?.part, 0, contentType)
            }
        }
        XCTAssertNoThrow(try MultipartForm.boundary(contentType: "multipart/form-data; boundary=" + String(repeating: "b", count: 70)))
    }

    // MARK: Parts

    func testPartsWithNamesAndFilenames() throws {
        let body = body([
            ("form-data; name=\"file\"; filename=\"a.plist\"", "first\r\ncontent"),
            ("form-data; name=note", "plain field"),
            ("form-data; name=file; filename=\"\"", "")
        ])
        let parts = try parts(body)
        XCTAssertEqual(parts.map(\.number), [1, 2, 3])
        XCTAssertEqual(parts.map(\.name), ["file", "note", "file"])
        XCTAssertEqual(parts.map(\.filename), ["a.plist", nil, ""])
        XCTAssertEqual(parts.map(\.label), ["a.plist", "note", "file"])
        XCTAssertEqual(parts.map { content($0, of: body) }, ["first\r\ncontent", "plain field", ""])
    }

    func testExtendedFilenameWinsWhenItIsUTF8() throws {
        let body = body([
            ("form-data; name=f; filename=\"plain.plist\"; filename*=UTF-8''caf%C3%A9.plist", "x"),
            ("form-data; name=f; filename=\"kept.plist\"; filename*=ISO-8859-1''caf%E9.plist", "x"),
            ("form-data; name=f; filename=\"kept.plist\"; filename*=UTF-8''bad%C3", "x")
        ])
        XCTAssertEqual(try parts(body).map(\.filename), ["café.plist", "kept.plist", "kept.plist"])
    }

    func testPreambleEpilogueAndPaddingAreIgnored() throws {
        var text = "a preamble\r\n--XyZ-not-this\r\n"
        text += "--XyZ \t\r\nContent-Disposition: form-data; name=a\r\n\r\none\r\n"
        text += "--XyZ\t\r\ncontent-disposition: FORM-DATA; Name=b\r\n\r\ntwo\r\n--XyZ--trailing\r\nepilogue --XyZ\r\n"
        let body = Array(text.utf8)
        let parts = try parts(body)
        XCTAssertEqual(parts.map(\.name), ["a", "b"])
        XCTAssertEqual(parts.map { content($0, of: body) }, ["one", "two"])
    }

    func testABoundaryLikeLineInsideAPartIsContent() throws {
        let inner = "line\r\n--XyZ-lookalike\r\n--XyZx\r\n--Xy\r\n-- XyZ\r\nend"
        let body = body([("form-data; name=a; filename=a.bin", inner), ("form-data; name=b", "b")])
        let parts = try parts(body)
        XCTAssertEqual(parts.map { content($0, of: body) }, [inner, "b"])
    }

    func testBinaryContentIsKeptByteForByte() throws {
        let binary: [UInt8] = Array(0...255) + [0x0D, 0x0A, 0x2D, 0x2D, 0x0D, 0x0D, 0x0A]
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=b\r\n\r\n".utf8) + binary + Array("\r\n--XyZ--".utf8)
        let parts = try parts(body)
        XCTAssertEqual(Array(body[parts[0].content]), binary)
    }

    func testTheFirstBoundaryMayFollowAPreambleOnlyAfterCRLF() {
        XCTAssertEqual(failure(Array("preamble\n--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZ--".utf8))?.part, 1)
    }

    // MARK: Malformed bodies

    func testABoundaryNeverClosedNamesThePartAndItsFile() {
        let text = "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\none\r\n--XyZ\r\nContent-Disposition: form-data; name=f; filename=\"b.plist\"\r\n\r\nno end"
        let failure = failure(Array(text.utf8))
        XCTAssertEqual(failure?.part, 2)
        XCTAssertEqual(failure?.filename, "b.plist")
        XCTAssertEqual(failure?.description.hasPrefix("part 2 (b.plist): it is not closed"), true, failure?.description ?? "")
    }

    func testAContentNotFollowedByCRLFBeforeTheBoundaryIsNotClosed() {
        // The CRLF before a boundary is the delimiter's: "\r\n\r\n--XyZ--" after the headers is required.
        XCTAssertEqual(failure(Array("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\n--XyZ--".utf8))?.part, 1)
    }

    func testMissingCRLFs() {
        let cases = [
            "--XyZContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZ--",
            "--XyZ\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--XyZ--",
            "--XyZ\r\nContent-Disposition: form-data; name=a\n\nx\r\n--XyZ--",
            "--XyZ\r\nContent-Disposition: form-data; name=a\r\nx\r\n--XyZ--",
            "--XyZ\r\nContent-Disposition: form-data; name=a\rx\r\n\r\nx\r\n--XyZ--",
            "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\nx\n--XyZ--"
        ]
        for text in cases {
            XCTAssertEqual(failure(Array(text.utf8))?.part, 1, text.debugDescription)
        }
    }

    func testHeaderRefusalsNameThePart() {
        let cases: [(String, String)] = [
            ("Content-Type: text/plain", "no Content-Disposition"),
            ("Content-Disposition: attachment; name=a", "not form-data"),
            ("Content-Disposition: form-data; filename=a.plist", "has no name"),
            ("Content-Disposition: form-data; name=\"open", "cannot be read"),
            ("Content-Disposition: form-data; name=a\r\nContent-Disposition: form-data; name=b", "two Content-Disposition"),
            ("Content-Disposition: form-data; name=a\r\n folded", "folded"),
            ("Content-Disposition: form-data; name=a\r\nno colon", "no colon")
        ]
        for (headers, reason) in cases {
            let text = "--XyZ\r\nContent-Disposition: form-data; name=ok\r\n\r\n1\r\n--XyZ\r\n\(headers)\r\n\r\n2\r\n--XyZ--"
            let failure = failure(Array(text.utf8))
            XCTAssertEqual(failure?.part, 2, headers)
            XCTAssertEqual(failure?.reason.contains(reason), true, "\(headers): \(failure?.reason ?? "")")
        }
    }

    func testAHugeHeaderLineIsRefusedWithoutReadingItWhole() {
        let huge = String(repeating: "h", count: 1 << 20)
        let text = "--XyZ\r\nContent-Disposition: form-data; name=a; filename=\"\(huge)\"\r\n\r\nx\r\n--XyZ--"
        let failure = failure(Array(text.utf8))
        XCTAssertEqual(failure?.part, 1)
        XCTAssertEqual(failure?.reason.contains("longer than \(MultipartForm.maximumHeaderBytes) bytes"), true, failure?.reason ?? "")
    }

    func testABodyWithoutTheBoundary() {
        XCTAssertEqual(failure(Array("just a plist".utf8))?.part, 1)
        XCTAssertEqual(failure([])?.part, 1)
        XCTAssertEqual(failure(Array("--XyZ--\r\n".utf8))?.reason, "the form closes before its first part")
    }

    // MARK: Counts

    func testTheMostPartsAreCheckedBeforeThePartPastThem() throws {
        let body = body(Array(repeating: ("form-data; name=a", "x"), count: 5))
        XCTAssertEqual(try parts(body, maximumParts: 5).count, 5)
        let failure = failure(body, maximumParts: 4)
        XCTAssertEqual(failure?.part, 5)
        XCTAssertEqual(failure?.reason.contains("more than 4 parts"), true)
        XCTAssertEqual(failure?.kind, .tooManyParts)
        XCTAssertEqual(self.failure(Array("--XyZ--".utf8))?.kind, .malformed)
    }

    func testAHundredThousandEmptyParts() throws {
        let body = body(Array(repeating: ("form-data; name=a", ""), count: 100_000))
        let parts = try parts(body)
        XCTAssertEqual(parts.count, 100_000)
        XCTAssertTrue(parts.allSatisfy { $0.content.isEmpty })
        XCTAssertEqual(failure(body, maximumParts: 1_000)?.part, 1_001)
    }

    // MARK: Linear time

    private func assertLinear(_ result: ScalingCheck.Result, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(result.ratio, ScalingCheck.allowedRatio, result.description, file: file, line: line)
    }

    func testManyPartsReadInLinearTime() {
        assertLinear(
            ScalingCheck.measure(startingAt: 2_000, maximumSize: 256_000, make: { self.body(Array(repeating: ("form-data; name=a", "xy"), count: $0)) }) {
                XCTAssertNotNil(try? self.parts($0))
            })
    }

    func testBoundaryLookalikesReadInLinearTime() {
        // Every line starts as the boundary does and differs only at its last byte.
        let lookalike = "\r\n--" + String(repeating: "b", count: 69) + "c"
        let boundary = Array(String(repeating: "b", count: 70).utf8)
        let make = { (count: Int) -> [UInt8] in
            Array(("--" + String(repeating: "b", count: 70) + "\r\nContent-Disposition: form-data; name=a\r\n\r\n").utf8)
                + Array(String(repeating: lookalike, count: count).utf8) + Array(("\r\n--" + String(repeating: "b", count: 70) + "--").utf8)
        }
        assertLinear(
            ScalingCheck.measure(startingAt: 1_000, maximumSize: 64_000, make: make) {
                XCTAssertEqual((try? MultipartForm.parts(of: $0, boundary: boundary, maximumParts: 1))?.count, 1)
            })
    }

    func testAnUnclosedFormFailsInLinearTime() {
        let make = { (count: Int) -> [UInt8] in
            Array("--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\n".utf8) + Array(String(repeating: "\r\n--XyZ-\r\n--Xy", count: count).utf8)
        }
        assertLinear(
            ScalingCheck.measure(startingAt: 2_000, maximumSize: 256_000, make: make) {
                XCTAssertNil(try? self.parts($0))
            })
    }
}
