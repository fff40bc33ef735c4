import TestSupport
import XCTest

@testable import ArchiveCodec

final class EncodeErrorPathTests: XCTestCase {
    /// The encoder fills objects from a work list, not in document order: error locations are
    /// computed from the failing node, and must name it exactly.
    func testErrorsNameTheirPlaceInTheDocument() throws {
        let cases: [(String, String)] = [
            (#"{"a":[1,{"b c":{"$bogus":1}}]}"#, #"$.a[1]["b c"].$bogus"#),
            (#"[[[{"$class":"X","k":{"$ref":"nowhere"}}]]]"#, "$[0][0][0].k.$ref"),
            (#"{"$top":{"root":{"$class":"X","d":{"$dict":[[1]]}}}}"#, "$.$top.root.d.$dict[0]"),
            (#"{"x":{"$plist":{"$$class":1}}}"#, "$.x.$plist.$$class")
        ]
        for (json, path) in cases {
            XCTAssertThrowsError(try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary), json) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, json)
                XCTAssertEqual((error as? CodecError)?.jsonPath, path, json)
            }
        }
    }
}
