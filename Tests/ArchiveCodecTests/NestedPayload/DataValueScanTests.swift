import XCTest

@testable import ArchiveCodec

/// `DataValueScan` finds exactly the `$data` and `$bytes` string members, at their levels.
final class DataValueScanTests: XCTestCase {
    private func scan(_ json: String) -> [(String, Int)] {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            DataValueScan.find(in: buffer).map { (String(decoding: bytes[$0.quote..<$0.end], as: UTF8.self), $0.level) }
        }
    }

    func testFindsDataAndBytesMembersWithTheirLevels() {
        let found = scan(#"{"a":{"$data":"AAEC"},"b":[{"$class":"X","$bytes":"AQ=="}],"$data":"Zg=="}"#)
        XCTAssertEqual(found.map(\.0), [#""AAEC""#, #""AQ==""#, #""Zg==""#])
        XCTAssertEqual(found.map(\.1), [2, 3, 1])
    }

    /// What holds the object a data value is in: the first byte of its key, or 0 for an element.
    func testHolders() {
        let bytes = Array(#"{"[5c]":{"$data":"AAEC"},"@":{"$data":"AQ=="},"x":[{"$data":"Zg=="}, {"y": 1}]}"#.utf8)
        let found = bytes.withUnsafeBufferPointer { DataValueScan.find(in: $0) }
        XCTAssertEqual(found.map(\.holder), [UInt8(ascii: "["), UInt8(ascii: "@"), 0])
    }

    func testIndentedTextReadsTheSame() {
        let found = scan("{\n  \"a\": {\n    \"$data\": \"AAEC\"\n  }\n}")
        XCTAssertEqual(found.map(\.0), [#""AAEC""#])
        XCTAssertEqual(found.map(\.1), [2])
    }

    /// Data keys (`$$data`), the words inside a string, and `$data` holding other than a string
    /// are not data values.
    func testIgnoresWhatIsNotADataValue() {
        XCTAssertTrue(scan(#"{"$$data":"AAEC","s":"\"$data\":\"AAEC\"","t":"$data","x":{"$data":{"$propertyList":1}}}"#).isEmpty)
        XCTAssertTrue(scan(#"["$data", "$bytes"]"#).isEmpty)
    }
}
