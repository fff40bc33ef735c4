import Foundation

#if canImport(XCTest)
import XCTest
#endif

/// Tests that need a program the machine may lack (an executable of this package not built yet,
/// python3, script(1)) skip without it, unless `ARCHIVE_TESTS_REQUIRE_TOOLS=1`: then a missing
/// tool fails the test, so a run that is meant to have every tool (CI) cannot pass by skipping.
public enum MissingTool {
    /// The environment variable that turns a missing tool from a skip into a failure.
    public static let environmentVariable = "ARCHIVE_TESTS_REQUIRE_TOOLS"

    /// Whether this run requires every tool: `ARCHIVE_TESTS_REQUIRE_TOOLS` is set to anything
    /// but empty or `0`.
    public static var required: Bool { isRequired(ProcessInfo.processInfo.environment[environmentVariable]) }

    /// `value` of `ARCHIVE_TESTS_REQUIRE_TOOLS` (nil when unset) asks for every tool.
    public static func isRequired(_ value: String?) -> Bool {
        guard let value else { return false }
        return !value.isEmpty && value != "0"
    }

    /// What a test throws when the tool it needs is missing, as `message` says: a failure when
    /// every tool is required.
    public struct Failure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "\(message) (a failure, not a skip: \(MissingTool.environmentVariable) is set)" }
    }
}

#if canImport(XCTest)
extension MissingTool {
    /// The error to throw for a missing tool: `XCTSkip(message)`, or `Failure` when every tool is
    /// required.
    public static func error(_ message: String, file: StaticString = #filePath, line: UInt = #line) -> any Error {
        required ? Failure(message: message) : XCTSkip(message, file: file, line: line)
    }
}
#endif
