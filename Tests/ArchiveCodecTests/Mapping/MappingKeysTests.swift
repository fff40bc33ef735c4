import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// The vocabulary is one list, and every place that describes the JSON follows it: the mapping's
/// documentation, the API description and the page's script.
final class MappingKeysTests: XCTestCase {
    private var keys: [String] { MappingKeys.all.map { String(describing: $0) } }

    private func repositoryText(_ path: String) throws -> String {
        try String(contentsOf: Fixtures.repository.appendingPathComponent(path), encoding: .utf8)
    }

    func testEveryKeyIsOneMappingKey() {
        XCTAssertEqual(Set(keys).count, keys.count, "a key listed twice")
        for key in keys {
            XCTAssertTrue(Array(key.utf8).withUnsafeBufferPointer { MappingKeys.isMappingKey($0) }, key)
        }
        // NSKeyedArchiver's own keys are not the JSON's.
        for key in [ArchiverKeys.objects, ArchiverKeys.className, ArchiverKeys.null].map({ String(describing: $0) }) {
            XCTAssertFalse(keys.contains(key), key)
        }
    }

    /// docs/mapping.md's table of `$` keys names every key.
    func testTheMappingDocumentNamesEveryKey() throws {
        let text = try repositoryText("docs/mapping.md")
        XCTAssertEqual(keys.filter { !text.contains("`\($0)`") }, [])
    }

    /// openapi.yaml's schemas and descriptions name every key.
    func testTheAPIDescriptionNamesEveryKey() throws {
        let text = try repositoryText("openapi.yaml")
        let missing = keys.filter { key in
            text.ranges(of: key).allSatisfy { range in
                // `$class` inside `$classes` is not `$class`.
                range.upperBound < text.endIndex && (text[range.upperBound].isLetter || text[range.upperBound].isNumber)
            }
        }
        XCTAssertEqual(missing, [])
    }

    /// The page's vocabulary module (`KEY` in mapping.mjs, the one module of the page that spells
    /// a `$` key) holds every key, and no key the codec does not define.
    func testThePageKnowsEveryKey() throws {
        let text = try repositoryText("Sources/ArchiveServer/Resources/page/mapping.mjs")
        XCTAssertEqual(keys.filter { !text.contains("'\($0)'") }, [])
        let pageKeys = text.matches(of: /'(\$[A-Za-z]+)'/).map { String($0.output.1) }
        XCTAssertEqual(Set(pageKeys).subtracting(keys), [])
    }
}
