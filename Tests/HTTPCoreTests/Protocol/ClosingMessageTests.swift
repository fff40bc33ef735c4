import HTTPCore
import XCTest

final class ClosingMessageTests: XCTestCase {
    func testMessageStatesItsLengthClosesAndKeepsHeaderOrder() {
        let bytes = ClosingMessage.bytes(
            status: 431, contentType: "application/problem+json", headers: [("A", "1"), ("B", "2")], body: Array("{}".utf8))
        XCTAssertEqual(
            String(decoding: bytes, as: UTF8.self),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/problem+json\r\nContent-Length: 2\r\n"
                + "Connection: close\r\nA: 1\r\nB: 2\r\n\r\n{}")
        XCTAssertEqual(ClosingMessage.reasonPhrase(503), "Service Unavailable")
        XCTAssertEqual(ClosingMessage.reasonPhrase(418), "Error")
    }
}
