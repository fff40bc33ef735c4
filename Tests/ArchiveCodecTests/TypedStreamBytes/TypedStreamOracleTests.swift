import TestSupport
import XCTest

@testable import ArchiveCodec

/// Our reader against someone else's: every real fixture's model, rendered as event text
/// (`TypedStreamEventText`), against what pytypedstream's low-level reader printed for it
/// (`scripts/gen/typedstream_oracle.py`, dumps in `Tests/Fixtures/public/typedstream-oracle/`).
final class TypedStreamOracleTests: XCTestCase {
    /// Where the two readers disagree, and why ours is right. Any other difference fails.
    struct Disagreement: Hashable {
        var fixture: String
        var line: Int
        var ours: String
        var theirs: String
    }

    /// pytypedstream reads an unsigned integer's stored bytes as unsigned at the width they
    /// are stored in (0xFD is 253); Apple's writer stores an unsigned value as the signed
    /// value of the same bits, so 0xFD in a `Q` is 2^64 − 3 — the value uetchy's
    /// tools/archiver.swift archived into this fixture
    /// (`NSNumber(unsignedLongLong: 18446744073709551613)`).
    static let known: Set<Disagreement> = [
        Disagreement(
            fixture: "uetchy-typedstream_NSArchiver-NSNumberWithULongLong.bin", line: 12, ours: "int 18446744073709551613", theirs: "int 253")
    ]

    func testEveryFixtureReadsAsPytypedstreamReadsIt() throws {
        var found: Set<Disagreement> = []
        var compared = 0
        for name in Fixtures.typedStreamNames() {
            let ours = TypedStreamEventText.lines(try TypedStreamReader.read(Fixtures.typedStream(name)))
            let theirs = try Fixtures.typedStreamOracle(name).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            XCTAssertEqual(ours.count, theirs.count, name)
            for (line, (mine, oracle)) in zip(ours, theirs).enumerated() where mine != oracle {
                found.insert(Disagreement(fixture: name, line: line + 1, ours: mine, theirs: oracle))
            }
            compared += min(ours.count, theirs.count)
        }
        XCTAssertEqual(found.subtracting(Self.known), [], "disagreements with pytypedstream not explained")
        XCTAssertEqual(Self.known.subtracting(found), [], "explained disagreements that no longer occur")
        XCTAssertGreaterThan(compared, 70_000)
    }
}
