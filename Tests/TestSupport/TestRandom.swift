import Foundation

#if canImport(XCTest)
import XCTest
#endif

/// The generator random-input tests draw from: SplitMix64 seeded from the run's seed and the
/// test's name, so a failure can be replayed.
///
/// The run's seed is `ARCHIVE_TEST_SEED` when set (decimal, or hexadecimal after `0x`), else a
/// fresh one drawn once per test process and printed on first use (a crash then still leaves
/// it in the log). A test's own seed mixes the run's with its name, so the test rerun alone
/// (`swift test --filter`) with the same `ARCHIVE_TEST_SEED` draws the same values whatever else
/// runs. A test that fails prints its run seed and the command that reruns it.
public struct TestRandom: RandomNumberGenerator {
    /// The environment variable that fixes the run's seed.
    public static let environmentVariable = "ARCHIVE_TEST_SEED"

    /// The run's seed and where it came from.
    public static let run: (seed: UInt64, fromEnvironment: Bool) = {
        if let text = ProcessInfo.processInfo.environment[environmentVariable], !text.isEmpty {
            guard let seed = parseSeed(text) else {
                fatalError("\(environmentVariable)=\(text) is not a decimal or 0x-prefixed hexadecimal UInt64")
            }
            return (seed, true)
        }
        var system = SystemRandomNumberGenerator()
        return (system.next(), false)
    }()

    /// `text` as a seed: decimal digits, or hexadecimal ones after `0x`; nil for anything else.
    public static func parseSeed(_ text: String) -> UInt64? {
        let lower = text.lowercased()
        return lower.hasPrefix("0x") ? UInt64(lower.dropFirst(2), radix: 16) : UInt64(lower, radix: 10)
    }

    /// `seed` as `ARCHIVE_TEST_SEED` takes it.
    public static func format(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }

    private static let announce: Void = {
        let origin = run.fromEnvironment ? "from \(environmentVariable)" : "drawn for this run; set \(environmentVariable) to it to draw the same values again"
        print("random tests: \(environmentVariable)=\(format(run.seed)) (\(origin))")
    }()

    /// The seed of the test named `name` in a run seeded `runSeed`: FNV-1a of the name, mixed
    /// with the run's seed through one SplitMix64 step (Swift's `Hasher` differs per process).
    public static func seed(runSeed: UInt64, name: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        var mixer = SplitMix64(seed: runSeed ^ hash)
        return mixer.next()
    }

    /// The seed this generator started from.
    public let seed: UInt64
    private var generator: SplitMix64

    /// The generator of the test named `name` (XCTest's `Class.testMethod`), in this run.
    public init(name: String) {
        Self.announce
        seed = Self.seed(runSeed: Self.run.seed, name: name)
        generator = SplitMix64(seed: seed)
    }

    /// A generator started from `seed` exactly, apart from any run.
    public init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 { generator.next() }

    /// What to run to replay the test named `name` with the run's seed.
    public static func rerunCommand(name: String) -> String {
        let filter = name.replacingOccurrences(of: ".", with: "/")
        return "\(environmentVariable)=\(format(run.seed)) swift test --filter '\(filter)$'"
    }
}

#if canImport(XCTest)
extension TestRandom {
    /// The generator of `test`; if the test fails, its seed and the command that reruns it are
    /// printed when it ends.
    public init(for test: XCTestCase) {
        let name = test.name
        self.init(name: name)
        test.addTeardownBlock { [weak test] in
            // The run stops after the teardown: its failures so far are the test's.
            guard let run = test?.testRun, run.totalFailureCount > 0 else { return }
            print("\(name) failed with random inputs; to rerun it with the same ones: \(TestRandom.rerunCommand(name: name))")
        }
    }
}
#endif
