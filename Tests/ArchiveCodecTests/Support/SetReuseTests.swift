import XCTest

@testable import ArchiveCodec

/// `Set.reuse(forAbout:)`, the set the duplicate-key checks keep from dictionary to dictionary.
final class SetReuseTests: XCTestCase {
    /// After a huge dictionary the set is given back, so clearing it for each small one after
    /// costs the small one's keys; near the next count it keeps its storage.
    func testAHugeCapacityIsGivenBackForASmallCount() {
        var seen = Set(0..<100_000)
        let huge = seen.capacity
        seen.reuse(forAbout: 13)
        XCTAssertTrue(seen.isEmpty)
        XCTAssertLessThan(seen.capacity, 1_024)
        seen.formUnion(0..<500)
        let kept = seen.capacity
        seen.reuse(forAbout: 400)
        XCTAssertTrue(seen.isEmpty)
        XCTAssertEqual(seen.capacity, kept)
        XCTAssertGreaterThan(huge, 100_000)
    }
}
