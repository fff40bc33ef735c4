import XCTest

@testable import ArchiveCodec

/// The nodes on a cycle: self-loops, components of several nodes, and long graphs without
/// recursion.
final class ReferenceCyclesTests: XCTestCase {
    /// `edges[n]`: node n's targets, laid end to end as `onCycle` takes them.
    private func onCycle(_ edges: [[Int]]) -> [Bool] {
        var start: [Int32] = [0]
        var targets: [Int32] = []
        for list in edges {
            targets += list.map(Int32.init)
            start.append(Int32(targets.count))
        }
        return ReferenceCycles.onCycle(edgeStart: start, targets: targets)
    }

    func testSmallGraphs() {
        XCTAssertEqual(onCycle([]), [])
        XCTAssertEqual(onCycle([[]]), [false])
        XCTAssertEqual(onCycle([[0]]), [true])
        XCTAssertEqual(onCycle([[1], [2], []]), [false, false, false])
        XCTAssertEqual(onCycle([[1], [0], [0]]), [true, true, false])
        // Two components joined by an edge, and a node pointing into one.
        XCTAssertEqual(onCycle([[1], [2], [0, 3], [4], [3], [3]]), [true, true, true, true, true, false])
        // A diamond is not a cycle.
        XCTAssertEqual(onCycle([[1, 2], [3], [3], []]), [false, false, false, false])
    }

    func testLongChainAndLongCycleWithoutRecursion() {
        let count = 300_000
        let chain = (0..<count).map { $0 + 1 < count ? [$0 + 1] : [] }
        XCTAssertFalse(onCycle(chain).contains(true))
        let ring = (0..<count).map { [($0 + 1) % count] }
        XCTAssertFalse(onCycle(ring).contains(false))
    }
}
