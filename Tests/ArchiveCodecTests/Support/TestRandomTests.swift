import TestSupport
import XCTest

/// The seeded generator of the random-input tests: a seed replays its values, and a test's seed
/// depends on the run's seed and the test's name alone.
final class TestRandomTests: XCTestCase {
    func testSeedsParseInDecimalAndHexadecimal() {
        XCTAssertEqual(TestRandom.parseSeed("12345"), 12345)
        XCTAssertEqual(TestRandom.parseSeed("0x1F"), 31)
        XCTAssertEqual(TestRandom.parseSeed("0XfFfFfFfFfFfFfFfF"), UInt64.max)
        XCTAssertEqual(TestRandom.parseSeed(TestRandom.format(0xDEAD_BEEF_0000_0001)), 0xDEAD_BEEF_0000_0001)
        for refused in ["", "0x", "-1", "12a", "0x1G", "18446744073709551616", " 1"] {
            XCTAssertNil(TestRandom.parseSeed(refused), refused)
        }
    }

    func testASeedReplaysItsValues() {
        var first = TestRandom(seed: 99)
        var second = TestRandom(seed: 99)
        var plain = SplitMix64(seed: 99)
        let values = (0..<100).map { _ in first.next() }
        XCTAssertEqual((0..<100).map { _ in second.next() }, values)
        XCTAssertEqual((0..<100).map { _ in plain.next() }, values)
        XCTAssertEqual(Set(values).count, 100)
    }

    /// The same run seed and name give one seed; another name or run seed, another.
    func testATestsSeedIsItsNameAndTheRunsSeed() {
        let name = "TestRandomTests.testATestsSeedIsItsNameAndTheRunsSeed"
        let seed = TestRandom.seed(runSeed: 7, name: name)
        XCTAssertEqual(TestRandom.seed(runSeed: 7, name: name), seed)
        XCTAssertNotEqual(TestRandom.seed(runSeed: 8, name: name), seed)
        XCTAssertNotEqual(TestRandom.seed(runSeed: 7, name: name + "2"), seed)
        XCTAssertNotEqual(TestRandom.seed(runSeed: 7, name: ""), TestRandom.seed(runSeed: 7, name: "a"))
        // Fixed values: a seed printed by one build replays in another.
        XCTAssertEqual(TestRandom.seed(runSeed: 0, name: ""), 0xC381_7C01_6BA4_FF30)
        XCTAssertEqual(TestRandom.seed(runSeed: 0x5EED, name: "A.b"), 0x2567_E70D_7B3E_34A4)
        let mine = TestRandom(for: self)
        XCTAssertEqual(mine.seed, TestRandom.seed(runSeed: TestRandom.run.seed, name: self.name))
    }

    /// The printed command reruns this test alone with the run's seed.
    func testTheRerunCommandNamesTheRunSeedAndTheTest() {
        let command = TestRandom.rerunCommand(name: "SomeTests.testSomething")
        XCTAssertTrue(command.hasPrefix("ARCHIVE_TEST_SEED=\(TestRandom.format(TestRandom.run.seed)) swift test --filter "), command)
        XCTAssertTrue(command.hasSuffix("'SomeTests/testSomething$'"), command)
    }
}
