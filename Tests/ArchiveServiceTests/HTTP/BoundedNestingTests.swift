import ArchiveCodec
import ArchiveServer
import Foundation
import TestSupport
import XCTest

/// `?maxDepth=N` and `?exactIntegers=1` on `/v1/decode`: a million-node chain decodes on the
/// default stack under a bound, the refusals say what to ask for, and the parameters are checked.
final class BoundedNestingTests: XCTestCase {
    /// Nesting of a parsed JSON value (arrays and objects open at once).
    private func nesting(_ value: Any) -> Int {
        if let list = value as? [Any] { return 1 + (list.map(nesting).max() ?? 0) }
        if let object = value as? [String: Any] { return 1 + (object.values.map(nesting).max() ?? 0) }
        return 0
    }

    func testMillionNodeChainDecodesUnderABoundOnTheDefaultStack() throws {
        let server = try TestServer { $0.workers = 1 }
        defer { server.stop() }
        let chain = TestArchives.linkedList(count: 1_000_000, tail: .cycle)

        let refused = try server.post("/v1/decode", chain)
        XCTAssertEqual(refused.status, 413, refused.text.prefix(300) + "")
        let problem = try XCTUnwrap(refused.jsonObject)
        XCTAssertEqual(problem["type"] as? String, "urn:archive-service:problem:too-deep")
        XCTAssertEqual(problem["depth"] as? Int, 1_000_001)
        let detail = try XCTUnwrap(problem["detail"] as? String)
        XCTAssertTrue(detail.contains("maxDepth=64"), detail)

        let reply = try server.post("/v1/decode?maxDepth=64", chain)
        XCTAssertEqual(reply.status, 200, reply.text.prefix(300) + "")
        let json = try JSONSerialization.jsonObject(with: Data(reply.body))
        XCTAssertLessThanOrEqual(nesting(json), 64)
        let back = try server.post("/v1/encode", reply.body, contentType: "application/json")
        XCTAssertEqual(back.status, 200, back.text.prefix(300) + "")
        XCTAssertNil(try KeyedArchive(parsing: chain).difference(from: KeyedArchive(parsing: back.body)))
        XCTAssertEqual(try server.get("/healthz").status, 200)
    }

    func testBoundTooSmallForTheArchiveNamesOneThatFits() throws {
        let server = try TestServer()
        defer { server.stop() }
        let archive = try Fixtures.bytes("scl-NSKeyedUnarchiver-ComplexTest.plist")
        let refused = try server.post("/v1/decode?maxDepth=2", archive)
        XCTAssertEqual(refused.status, 422, refused.text)
        let problem = try XCTUnwrap(refused.jsonObject)
        XCTAssertEqual(problem["type"] as? String, "urn:archive-service:problem:max-depth-too-small")
        let fits = try XCTUnwrap(problem["found"] as? Int)
        XCTAssertEqual(problem["limit"] as? Int, 2)
        XCTAssertTrue((problem["detail"] as? String ?? "").hasSuffix("; maxDepth=\(fits) fits"), "\(problem["detail"] ?? "")")
        let reply = try server.post("/v1/decode?maxDepth=\(fits)", archive)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertLessThanOrEqual(nesting(try JSONSerialization.jsonObject(with: Data(reply.body))), fits)
        // A bound the archive already fits changes nothing.
        XCTAssertEqual(try server.post("/v1/decode?maxDepth=64", archive).body, try server.post("/v1/decode", archive).body)
    }

    func testParametersAreChecked() throws {
        let server = try TestServer()
        defer { server.stop() }
        let archive = try Fixtures.bytes("goios_nsuuid.bin")
        for query in [
            "maxDepth=0", "maxDepth=-3", "maxDepth=deep", "maxDepth=", "exactIntegers=maybe", "view=raw&maxDepth=8", "view=raw&exactIntegers=1", "exactNumbers=maybe", "view=raw&exactNumbers=1"
        ] {
            let reply = try server.post("/v1/decode?\(query)", archive)
            XCTAssertEqual(reply.status, 400, "\(query): \(reply.text)")
            XCTAssertEqual(reply.jsonObject?["type"] as? String, "urn:archive-service:problem:invalid-query", query)
        }
    }

    func testExactIntegersKeepEveryDigitThroughReadersOfDoubles() throws {
        let server = try TestServer()
        defer { server.stop() }
        let document = Array(#"{"min":{"$integer":"-9223372036854775808"},"max":18446744073709551615,"small":9007199254740991}"#.utf8)
        let archive = try server.post("/v1/encode", document, contentType: "application/json")
        XCTAssertEqual(archive.status, 200, archive.text)
        let plain = try server.post("/v1/decode", archive.body)
        XCTAssertEqual(plain.text, #"{"min":-9223372036854775808,"max":18446744073709551615,"small":9007199254740991}"# + "\n")
        let exact = try server.post("/v1/decode?exactIntegers=1", archive.body)
        XCTAssertEqual(exact.text, #"{"min":{"$integer":"-9223372036854775808"},"max":{"$integer":"18446744073709551615"},"small":9007199254740991}"# + "\n")
        let again = try server.post("/v1/encode", exact.body, contentType: "application/json")
        XCTAssertNil(try KeyedArchive(parsing: archive.body).difference(from: KeyedArchive(parsing: again.body)))
    }

    func testExactNumbersWrapRealsWithoutAFraction() throws {
        let server = try TestServer()
        defer { server.stop() }
        let document = Array(#"{"one":1.0,"zero":-0.0,"half":0.5,"big":{"$integer":"-9223372036854775808"},"n":3}"#.utf8)
        let archive = try server.post("/v1/encode", document, contentType: "application/json")
        XCTAssertEqual(archive.status, 200, archive.text)
        let exact = try server.post("/v1/decode?exactNumbers=1", archive.body)
        XCTAssertEqual(
            exact.text, #"{"one":{"$real":"1.0"},"zero":{"$real":"-0.0"},"half":0.5,"big":{"$integer":"-9223372036854775808"},"n":3}"# + "\n")
        // As jq writes it back: the wrappers keep every number's type.
        let edited = exact.text.replacingOccurrences(of: "0.5", with: "0.50000000000000000")
        let again = try server.post("/v1/encode", Array(edited.utf8), contentType: "application/json")
        XCTAssertNil(try KeyedArchive(parsing: archive.body).difference(from: KeyedArchive(parsing: again.body)))
    }
}
