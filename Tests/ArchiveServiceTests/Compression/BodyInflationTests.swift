import XCTest

@testable import ArchiveServer

/// Inflating coded request bodies: every form of the two codings, every way a stream can be
/// wrong, the limit on the inflated size and the budget's say in its growth.
final class BodyInflationTests: XCTestCase {
    /// Text that compresses as JSON does, a few hundred kilobytes of it.
    let plain: [UInt8] = Array((0..<6_000).map { "{\"player\":\($0),\"name\":\"P\($0 * 7919 % 1000)\"}," }.joined().utf8)

    private func inflate(
        _ bytes: [UInt8], _ coding: ContentCoding, limit: Int = 64 << 20,
        reserve: (Int) -> Bool = { _ in true }
    ) throws(BodyInflation.Failure) -> [UInt8] {
        try BodyInflation.inflate(bytes, coding: coding, limit: limit, reserve: reserve)
    }

    private func malformed(_ bytes: [UInt8], _ coding: ContentCoding, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let output = try inflate(bytes, coding)
            XCTFail("inflated \(output.count) bytes", file: file, line: line)
        } catch {
            guard case .malformed(let what) = error else {
                XCTFail("\(error)", file: file, line: line)
                return ""
            }
            return what
        }
        return ""
    }

    func testEveryFormInflates() throws {
        let member = try SystemGzip.compress(plain)
        XCTAssertLessThan(member.count, plain.count / 4)
        XCTAssertEqual(try inflate(member, .gzip), plain)
        XCTAssertEqual(try inflate(try SystemGzip.zlibCompress(plain), .deflate), plain)
        // A bare deflate stream, as some clients send for `deflate`.
        XCTAssertEqual(try inflate(SystemGzip.deflateData(ofMember: member), .deflate), plain)
        // Members one after another (cat a.gz b.gz) are one body.
        let second = try SystemGzip.compress(Array("tail".utf8))
        XCTAssertEqual(try inflate(member + second, .gzip), plain + Array("tail".utf8))
        // A single byte, and data that does not compress at all.
        XCTAssertEqual(try inflate(try SystemGzip.compress([7]), .gzip), [7])
        let noise = (0..<100_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        XCTAssertEqual(try inflate(try SystemGzip.compress(noise, level: 1), .gzip), noise)
    }

    func testBrokenStreamsAreMalformed() throws {
        let member = try SystemGzip.compress(plain)
        XCTAssertTrue(malformed(Array(member.dropLast(20)), .gzip).contains("ends early"))
        XCTAssertTrue(malformed(member + [0, 0, 0], .gzip).contains("3 bytes follow the end"))
        XCTAssertTrue(malformed(plain, .gzip).contains("corrupt"))
        var flipped = member
        flipped[member.count / 2] ^= 0x55
        XCTAssertFalse(malformed(flipped, .gzip).isEmpty)
        // The trailer's CRC and length are checked.
        var badCRC = member
        badCRC[member.count - 6] ^= 1
        XCTAssertTrue(malformed(badCRC, .gzip).contains("corrupt"))
        let zlib = try SystemGzip.zlibCompress(plain)
        var badAdler = zlib
        badAdler[zlib.count - 1] ^= 1
        XCTAssertTrue(malformed(badAdler, .deflate).contains("corrupt"))
        XCTAssertTrue(malformed(Array(zlib.prefix(2)), .deflate).contains("ends early"))
    }

    func testInflatedSizeIsLimited() throws {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let bomb = try SystemGzip.compress(zeros, level: 9)
        XCTAssertLessThan(bomb.count, 5_000)
        XCTAssertThrowsError(try inflate(bomb, .gzip, limit: 1 << 20)) { error in
            XCTAssertEqual(error as? BodyInflation.Failure, .tooLarge(limit: 1 << 20))
        }
        // The limit is inclusive.
        XCTAssertEqual(try inflate(bomb, .gzip, limit: zeros.count).count, zeros.count)
        XCTAssertThrowsError(try inflate(bomb, .gzip, limit: zeros.count - 1))
        XCTAssertThrowsError(try inflate(try SystemGzip.zlibCompress(zeros), .deflate, limit: 100_000))
    }

    func testBudgetSeesEveryGrowth() throws {
        let zeros = [UInt8](repeating: 0, count: 3 << 20)
        // A zlib stream states no size: the storage doubles, and each step is asked for first.
        let stream = try SystemGzip.zlibCompress(zeros)
        var asked: [Int] = []
        XCTAssertEqual(
            try inflate(stream, .deflate) {
                asked.append($0)
                return true
            }.count, zeros.count)
        XCTAssertGreaterThan(asked.count, 2)
        XCTAssertEqual(asked, asked.sorted())
        XCTAssertGreaterThanOrEqual(asked.last!, stream.count + zeros.count)
        // A refusal stops the inflation.
        XCTAssertThrowsError(try inflate(stream, .deflate) { $0 < 1 << 20 }) { error in
            guard case .overBudget(let needed)? = error as? BodyInflation.Failure else { return XCTFail("\(error)") }
            XCTAssertGreaterThanOrEqual(needed, 1 << 20)
        }
        // gzip states its size: an honest body is reserved once, at its size.
        var gzipAsked: [Int] = []
        let member = try SystemGzip.compress(zeros)
        XCTAssertEqual(
            try inflate(member, .gzip) {
                gzipAsked.append($0)
                return true
            }.count, zeros.count)
        XCTAssertEqual(gzipAsked, [member.count + zeros.count])
    }
}
