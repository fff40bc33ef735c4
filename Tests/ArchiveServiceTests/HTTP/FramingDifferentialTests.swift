import Foundation
import HTTPCore
import TestSupport
import XCTest

@testable import ArchiveServer

/// The guard and libevent read the same bytes: for every head below, either `RequestHead`
/// refuses it (and the guard closes the connection, so libevent never sees it), or libevent,
/// given the same bytes with no guard in front, ends the request where `RequestHead` says it
/// ends. A head on which they disagree is a request smuggled past the guard.
final class FramingDifferentialTests: XCTestCase {
    /// Framing headers as a hostile client writes them: look-alike letters outside ASCII (the
    /// Kelvin sign for K, the long s, dotless and dotted i), whitespace libevent keeps, folded
    /// lines, control bytes, signs and duplicates.
    static let framings: [String] = [
        "Transfer-Encoding: chunked",
        "Transfer-Encoding: CHUNKED",
        "Transfer-Encoding: chun\u{212A}ed",
        "Transfer-Encoding: \u{212A}chunked",
        "Transfer-Encoding: ch\u{0131}nked",
        "Transfer-Encoding: chunked\u{0130}",
        "Transfer-Encoding:\tchunked",
        "Transfer-Encoding: \tchunked",
        "Transfer-Encoding: chunked\t",
        "Transfer-Encoding:chunked",
        "Transfer-Encoding: chunked ",
        "Transfer-Encoding:\r\n chunked",
        "Transfer-Encoding: chunked\r\n , identity",
        "Transfer-Encoding: chunked, identity",
        "Transfer-Encoding: identity",
        "Transfer-Encoding: chunked\u{0}",
        "Transfer-Encoding: chunked\rX",
        "Transfer-Encoding: \u{0B}chunked",
        "Transfer-Encoding : chunked",
        "Tran\u{017F}fer-Encoding: chunked",
        "Transfer-Encod\u{0131}ng: chunked",
        "Transfer-\u{212A}ncoding: chunked",
        "transfer-encoding: chunked",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity",
        "Transfer-Encoding: identity\r\nTransfer-Encoding: chunked",
        "Content-Length: 5",
        "Content-Length:5",
        "Content-Length:\t5",
        "Content-Length: 5\t",
        "Content-Length: +5",
        "Content-Length: 05",
        "Content-Length: 5, 5",
        "Content-Length: 5\r\nContent-Length: 5",
        "Content-Length: 5\r\nContent-Length: 6",
        "Content-Length: \u{0665}",
        "Content-Length: 5\u{0}0",
        "Content-Length: 5\r\n 0",
        "Content-Length: 5\r\nTransfer-Encoding: chunked",
        "Conte\u{212A}t-Length: 5",
        "Content-Length: 5\r\nConnection: close",
        "Content-Length: 5\r\nConnection: clo\u{017F}e",
        "Content-Length: 5\r\nExpect: 100-continue",
        "Content-Length: 5\r\nExpect: 100-\u{212A}ontinue",
        "Content-Length: 5\r\nExpect: foo",
        "Transfer-Encoding: chunked\r\nExpect: 100-continue"
    ]

    private static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    /// The body bytes sent after a head: a chunked body when the head speaks of chunks, else
    /// five bytes; either way followed by a request the guard must see as libevent does.
    private static func rest(for framing: String) -> String {
        (framing.contains("ncod") || framing.contains("ransfer") ? "5\r\nhello\r\n0\r\n\r\n" : "hello") + smuggled
    }

    func testGuardAndLibeventEndEveryRequestAlikeOrTheGuardRefuses() throws {
        let libevent = try BareLibeventServer()
        defer { libevent.stop() }
        var disagreements: [String] = []
        for framing in Self.framings {
            let head = "POST /first HTTP/1.1\r\nHost: x\r\n\(framing)\r\n\r\n"
            let rest = Self.rest(for: framing)
            let parsed: RequestHead
            do {
                parsed = try Array(head.utf8).withUnsafeBytes { (bytes) throws(RequestHead.Refusal) in try RequestHead.parse(bytes) }
            } catch {
                continue  // refused: the guard answers and closes; libevent never reads these bytes
            }
            let guardBody: (decoded: Int, sent: Int) =
                switch parsed.body {
                case .none: (0, 0)
                case .length(let length): (length, length)
                case .chunked: (5, rest.utf8.count - Self.smuggled.utf8.count)
                }
            let seen = try libevent.requests(readFrom: Array((head + rest).utf8))
            let what = framing.debugDescription
            guard let first = seen.first, first.target == "/first" else {
                disagreements.append("\(what): the guard admits it, libevent answered it itself (\(seen))")
                continue
            }
            if first.bodyBytes != guardBody.decoded {
                disagreements.append("\(what): the guard reads a body of \(guardBody.decoded) bytes, libevent \(first.bodyBytes)")
                continue
            }
            let next = String(rest.utf8.dropFirst(guardBody.sent))!
            // A request that asks to close is the connection's last, for both.
            let guardSeesSmuggled = !parsed.closeRequested && next.hasPrefix("GET /smuggled ")
            let libeventSeesSmuggled = seen.dropFirst().first?.target == "/smuggled"
            if guardSeesSmuggled != libeventSeesSmuggled {
                disagreements.append("\(what): the next request is /smuggled to the guard: \(guardSeesSmuggled), to libevent: \(libeventSeesSmuggled)")
            }
        }
        XCTAssertEqual(disagreements, [], disagreements.joined(separator: "\n"))
    }

    /// The cases above that must not be read as chunked or as a length at all: the guard refuses
    /// them, rather than agreeing with libevent by accident.
    func testLookAlikesAndTabsAreRefused() {
        for framing in [
            "Transfer-Encoding: chun\u{212A}ed", "Transfer-Encoding: ch\u{0131}nked", "Transfer-Encoding:\tchunked",
            "Transfer-Encoding: chunked\u{0}", "Transfer-Encoding:\r\n chunked", "Tran\u{017F}fer-Encoding: chunked",
            "Content-Length: \u{0665}", "Content-Length:\t5", "Content-Length: 5\r\nExpect: foo",
            "Content-Length: 5\r\nExpect: 100-\u{212A}ontinue", "Transfer-Encoding: chunked\rX"
        ] {
            let head = "POST /first HTTP/1.1\r\nHost: x\r\n\(framing)\r\n\r\n"
            XCTAssertThrowsError(
                try Array(head.utf8).withUnsafeBytes { (bytes) throws(RequestHead.Refusal) in try RequestHead.parse(bytes) },
                framing.debugDescription)
        }
    }
}
