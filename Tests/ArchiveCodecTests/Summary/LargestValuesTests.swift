import XCTest

@testable import ArchiveCodec

/// The largest values kept while met, merged, and named; their previews.
final class LargestValuesTests: XCTestCase {
    func testKeepsTheLongestFirstMetFirstAmongEquals() {
        var list = LargestValues()
        var previews = 0
        for (number, length) in [3, 9, 1, 9, 4, 12, 7, 2, 8, 5, 6, 10, 11, 0].enumerated() {
            list.consider(length: length, at: nil) {
                previews += 1
                return "v\(number)"
            }
        }
        XCTAssertEqual(list.entries.map(\.length), [12, 11, 10, 9, 9, 8, 7, 6, 5, 4])
        XCTAssertEqual(list.entries[3].preview, "v1")
        XCTAssertEqual(list.entries[4].preview, "v3")
        // Previews are made only for values that entered the list.
        XCTAssertEqual(previews, 13)
    }

    /// Equal values are listed once; bytes at the same place are not read to say so, and the
    /// comparisons stop at their budget (past it, a value is listed without comparing).
    func testEqualValuesAreListedOnceWithinTheBudget() {
        var compared = 0
        let equal = { (a: Range<Int>, _: Range<Int>) -> Bool in
            compared += a.count
            return true
        }
        var list = LargestValues(comparing: 10)
        list.consider(length: 5, at: nil, span: 0..<5, equal: equal) { "first" }
        list.consider(length: 5, at: nil, span: 0..<5, equal: equal) { "the same place" }
        XCTAssertEqual(compared, 0)
        list.consider(length: 5, at: nil, span: 5..<10, equal: equal) { "equal" }
        list.consider(length: 5, at: nil, span: 10..<15, equal: equal) { "equal" }
        XCTAssertEqual(compared, 10)
        XCTAssertEqual(list.entries.map(\.preview), ["first"])
        list.consider(length: 5, at: nil, span: 15..<20, equal: equal) { "past the budget" }
        XCTAssertEqual(compared, 10)
        XCTAssertEqual(list.entries.map(\.preview), ["first", "past the budget"])
    }

    func testMergedListsStayBounded() {
        let a = (0..<10).map { ArchiveSummary.LargeValue(length: 2 * $0, preview: "a") }.reversed()
        let b = (0..<10).map { ArchiveSummary.LargeValue(length: 2 * $0 + 1, preview: "b") }.reversed()
        let merged = LargestValues.merged(Array(a), Array(b))
        XCTAssertEqual(merged.map(\.length), Array((10..<20).reversed()))
    }

    func testNamingAddsThePayloadSuffix() {
        var values = [
            ArchiveSummary.LargeValue(length: 2, preview: "x", location: ArchiveSummary.Location(owner: 1, ref: 5, suffix: [.member("$keyedArchive")])),
            ArchiveSummary.LargeValue(length: 1, preview: "y", location: ArchiveSummary.Location(owner: 2, ref: 6))
        ]
        LargestValues.name(&values) { $0.owner == 1 ? [.member("icon"), .member("$data")] : nil }
        XCTAssertEqual(values[0].steps, [.member("icon"), .member("$data"), .member("$keyedArchive")])
        XCTAssertNil(values[1].steps)
        XCTAssertNil(values[0].location)
    }

    func testPreviews() {
        let long = Array(String(repeating: "ab", count: 100).utf8)
        long.withUnsafeBufferPointer { XCTAssertEqual(ValuePreview.text(utf8: $0), String(repeating: "ab", count: 40) + "…") }
        Array("short".utf8).withUnsafeBufferPointer { XCTAssertEqual(ValuePreview.text(utf8: $0), "short") }
        // "é€" in big-endian UTF-16.
        [0x00, 0xE9, 0x20, 0xAC].withUnsafeBufferPointer { XCTAssertEqual(ValuePreview.text(utf16BigEndian: $0), "é€") }
        Array("text data".utf8).withUnsafeBufferPointer { XCTAssertEqual(ValuePreview.data($0), "text data") }
        [0x00, 0x01, 0x02].withUnsafeBufferPointer { XCTAssertEqual(ValuePreview.data($0), "AAEC") }
        let binary = [UInt8](repeating: 0xFF, count: 100)
        binary.withUnsafeBufferPointer { XCTAssertEqual(ValuePreview.data($0), String(repeating: "/", count: 80) + "…") }
    }
}
