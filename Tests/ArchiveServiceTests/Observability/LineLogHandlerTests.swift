import ArchiveCodec
import Foundation
import Logging
import XCTest

@testable import ArchiveServer

final class LineLogHandlerTests: XCTestCase {
    func testOneLogfmtLinePerEventWithQuotingAndSortedMetadata() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var logger = Logger(label: "archive-service") { LineLogHandler(label: $0, level: .info, fd: fds[1]) }
        logger[metadataKey: "loop"] = "1"
        logger.info("POST /v1/decode 200", metadata: ["status": "200", "path": "/v1/decode", "note": "two words"])
        logger.debug("hidden")
        logger.warning("plain")
        close(fds[1])
        let text = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, text)
        let first = String(lines[0])
        XCTAssertTrue(first.hasPrefix("ts="), first)
        XCTAssertTrue(first.contains("Z level=info logger=archive-service msg=\"POST /v1/decode 200\" loop=1 note=\"two words\" path=/v1/decode status=200"), first)
        XCTAssertTrue(lines[1].contains("level=warning logger=archive-service msg=plain"), String(lines[1]))
    }

    /// A metadata provider's values join the handler's and the event's: the event's own win,
    /// then the provider's, then the handler's.
    func testMetadataProviderIsHonoured() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let provider = Logger.MetadataProvider { ["trace": "abc", "loop": "from-provider", "path": "from-provider"] }
        var logger = Logger(label: "archive-service") { LineLogHandler(label: $0, level: .info, fd: fds[1], metadataProvider: provider) }
        logger[metadataKey: "loop"] = "1"
        logger.info("GET /healthz 200", metadata: ["path": "/healthz"])
        close(fds[1])
        let text = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("msg=\"GET /healthz 200\" loop=from-provider path=/healthz trace=abc"), text)
    }

    func testJSONLinesKeepNumbersAndShapes() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let logger = Logger(label: "archive-service") { LineLogHandler(label: $0, level: .info, format: .json, fd: fds[1]) }
        logger.info(
            "POST /v1/decode 200",
            metadata: [
                "status": .stringConvertible(Int32(200)), "duration_ms": .stringConvertible(1.25),
                "bytes_out": .stringConvertible(4096), "path": "/v1/decode", "quote": "say \"hi\"\n",
                "list": ["a", .stringConvertible(2)], "nested": ["k": "v"], "nan": .stringConvertible(Double.nan)
            ])
        logger.error("failed", error: HTTPClientError(description: "boom"))
        close(fds[1])
        let text = String(decoding: FileHandle(fileDescriptor: fds[0]).readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, text)
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], String(lines[0]))
        XCTAssertEqual(first["level"] as? String, "info")
        XCTAssertEqual(first["logger"] as? String, "archive-service")
        XCTAssertEqual(first["msg"] as? String, "POST /v1/decode 200")
        XCTAssertTrue((first["ts"] as? String ?? "").hasSuffix("Z"))
        XCTAssertEqual(first["status"] as? Int, 200)
        XCTAssertEqual(first["bytes_out"] as? Int, 4096)
        XCTAssertEqual(first["duration_ms"] as? Double, 1.25)
        XCTAssertEqual(first["path"] as? String, "/v1/decode")
        XCTAssertEqual(first["quote"] as? String, "say \"hi\"\n")
        XCTAssertEqual(first["nan"] as? String, "nan")
        XCTAssertEqual((first["list"] as? [Any])?.count, 2)
        XCTAssertEqual((first["nested"] as? [String: Any])?["k"] as? String, "v")
        let second = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        XCTAssertEqual(second["error"] as? String, "boom")
    }
}
