import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

/// Every path of every format stops at a deadline: at once when it has passed before the work
/// starts, and part way, soon after it passes, when it passes during the work. Each path is
/// timed whole first; a deadline at a quarter and at a half of that must end it with
/// `timedOut` well before its end (a pass that never polls would run on to it).
final class ConversionDeadlineTests: XCTestCase {
    /// A league of `teams` objects with names, numbers, a shared string and links to each
    /// other (a cycle through the whole list), as a binary keyed archive.
    private static func league(teams: Int, xml: Bool = false) throws -> [UInt8] {
        var entries: [Entry] = [.object("League", [("teams", .array((0..<teams).map { .uid($0 + 3) })), ("motto", .uid(2))]), .string("shared motto")]
        for index in 0..<teams {
            let next = 3 + (index + 1) % teams
            entries.append(
                .object("Team", [("name", .string("Team \(index)")), ("rank", .int(Int64(index))), ("rating", .real(Double(index) / 7)), ("next", .uid(next)), ("motto", .uid(2))]))
        }
        return try buildArchive(entries, xml: xml)
    }

    private static let teams = 12_000

    /// How long after its deadline a stopped run may end, as a share of the whole run.
    private static let allowance = AddressSanitizer.isOn ? 0.375 : 0.25

    private static func seconds(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private static func decode(_ bytes: [UInt8], view: ArchiveView = .readable, nested: Bool = false) throws(CodecError) {
        let archive = try Archive(parsing: bytes, view: view)
        let plan = try archive.plan(view: view, pretty: false, nested: nested ? DecodePolicy(stackSize: 64 << 20) : nil)
        var written = 0
        try archive.writeJSON(view: view, pretty: false, plan: plan, parallelism: .serial) { written += $0.count }
    }

    /// Runs `work` whole (it must succeed), then under deadlines of nothing, a quarter and a
    /// half of that time: each must throw `timedOut`, and stop within a quarter of the whole
    /// time after its deadline (plus a tenth of a second for the machine's noise: the suite
    /// runs tests side by side, and on two loaded cores a nested decode stopped 5 ms past a
    /// slack of 50 ms). Under AddressSanitizer
    /// repeated runs slow down as its quarantine grows (a raw view deadlined at half of 0.70 s
    /// ended at 0.59 s): three eighths there, which still fails a pass that never polls.
    private func assertStops(_ name: String, _ work: () throws(CodecError) -> Void) {
        var failure: CodecError?
        let whole = Self.seconds {
            do throws(CodecError) { try work() } catch { failure = error }
        }
        XCTAssertNil(failure, "\(name) fails without a deadline")
        XCTAssertGreaterThan(whole, 0.05, "\(name): too small an input to see a deadline stop it part way")
        for fraction in [0.0, 0.25, 0.5] {
            var error: CodecError?
            let stopped = Self.seconds {
                ConversionDeadline.run(seconds: whole * fraction) {
                    do throws(CodecError) { try work() } catch let thrown { error = thrown }
                }
            }
            XCTAssertEqual(error?.kind, .timedOut, "\(name) at \(fraction) of \(whole) s: \(String(describing: error))")
            XCTAssertLessThan(stopped, whole * (fraction + Self.allowance) + 0.1, "\(name) at \(fraction) of \(whole) s ran on")
        }
    }

    func testKeyedArchivesStop() throws {
        let binary = try Self.league(teams: Self.teams)
        assertStops("binary decode") { () throws(CodecError) in try Self.decode(binary) }
        assertStops("raw view") { () throws(CodecError) in try Self.decode(binary, view: .raw) }
        assertStops("summary") { () throws(CodecError) in _ = try Archive(parsing: binary).summary() }
        let xml = try Self.league(teams: Self.teams / 2, xml: true)
        assertStops("XML decode") { () throws(CodecError) in try Self.decode(xml) }
        let json = try Archive(parsing: binary).json(view: .readable, pretty: false)
        assertStops("JSON parse and binary encode") { () throws(CodecError) in
            try JSONDocument(parsing: json).writeArchive { _ in }
        }
        assertStops("XML encode") { () throws(CodecError) in _ = try JSONDocument(parsing: json).archive(format: .xml) }
    }

    func testPlainPropertyListsStop() throws {
        let values = (0..<40_000).map { "{\"name\":\"value \($0)\",\"n\":\($0),\"x\":\(Double($0) / 3)}" }.joined(separator: ",")
        let json = Array("{\"$propertyList\":[\(values)]}".utf8)
        let binary = try JSONDocument(parsing: json).archive(format: .binary)
        assertStops("plain plist decode") { () throws(CodecError) in try Self.decode(binary) }
        assertStops("plain plist summary") { () throws(CodecError) in _ = try Archive(parsing: binary).summary() }
        assertStops("plain plist encode") { () throws(CodecError) in try JSONDocument(parsing: json).writeArchive { _ in } }
    }

    func testNestedPayloadsStop() throws {
        // Distinct payloads: equal ones are one plist object, read once.
        let values = try (0..<5_000).map { index in
            let payload = try JSONDocument(parsing: Array("{\"$propertyList\":{\"a\":[1,2,\(index)],\"b\":\"text \(index)\"}}".utf8)).archive(format: .binary)
            return "{\"$data\":\"\(Data(payload).base64EncodedString())\"},\(index)"
        }.joined(separator: ",")
        let outer = try JSONDocument(parsing: Array("{\"$propertyList\":[\(values)]}".utf8)).archive(format: .binary)
        assertStops("nested decode") { () throws(CodecError) in try Self.decode(outer, nested: true) }
        assertStops("nested summary") { () throws(CodecError) in _ = try Archive(parsing: outer).summary(nested: true) }
    }

    func testTypedStreamsStop() throws {
        // Objects of a class of their own chain, each with a number and a C string: every
        // reader, writer and walk of the format has work proportional to them.
        let groups = (0..<20_000).map { "{\"@\":{\"$class\":\"X\",\"$classes\":[[\"X\",0],[\"NSObject\",0]],\"$groups\":[{\"i\":\($0)},{\"*\":\"text \($0)\"}]}}" }
        let json = Array("{\"$typedstream\":[\(groups.joined(separator: ","))]}".utf8)
        let stream = try JSONDocument(parsing: json).archive(format: .binary)
        assertStops("typedstream decode") { () throws(CodecError) in try Self.decode(stream) }
        assertStops("typedstream summary") { () throws(CodecError) in _ = try Archive(parsing: stream).summary() }
        let readable = try Archive(parsing: stream).json(view: .readable, pretty: false)
        assertStops("typedstream encode") { () throws(CodecError) in _ = try JSONDocument(parsing: readable).archive(format: .binary) }
    }

    func testNoDeadlineIsTheDefaultAndRunRestoresTheOuterOne() throws {
        XCTAssertFalse(ConversionDeadline.hasPassed)
        ConversionDeadline.run(seconds: 0) {
            XCTAssertTrue(ConversionDeadline.hasPassed)
            ConversionDeadline.run(seconds: 60) { XCTAssertFalse(ConversionDeadline.hasPassed) }
            XCTAssertTrue(ConversionDeadline.hasPassed)
            ConversionDeadline.run(seconds: nil) { XCTAssertFalse(ConversionDeadline.hasPassed) }
        }
        XCTAssertFalse(ConversionDeadline.hasPassed)
        XCTAssertNoThrow(try ConversionDeadline.check())
    }
}
